package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
)

type configOptions struct{ JSON bool }

func newConfigCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration and where each value came from",
		Long: `Print the effective configuration: the project's .continuity.yaml (committed) over the
user's $XDG_CONFIG_HOME/continuity/config.yaml over the defaults, with CONTINUITY_LEDGER_DIR,
CONTINUITY_HANDOFF_DIR, CONTINUITY_BUDGET, CONTINUITY_STALE_AFTER and CONTINUITY_DISABLE over all.
Problems in a file are listed; the hooks keep working on the values that were valid.

Keys: ledger_dir, handoff_dir, budget (characters injected, under 10,000), sources (per source:
full, short or none), handoff.sections, handoff.max_bytes, stale_after (e.g. 7d), redact.extra
(name + pattern), redact.allow, retention.days, retention.max, disable.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := configOptions{JSON: a.json}
			return a.runWith(o, func() error { return runConfig(a, o) })
		},
	}
}

func runConfig(a *app, o configOptions) error {
	p, err := a.project()
	if err != nil {
		return err
	}
	c := p.Config
	// Flatten the configuration to key → value through its JSON form.
	b, err := json.Marshal(c.Config)
	if err != nil {
		return err
	}
	var tree map[string]any
	if err := json.Unmarshal(b, &tree); err != nil {
		return err
	}
	flat := map[string]string{}
	flatten("", tree, flat)
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	origin := func(key string) string {
		for k := key; k != ""; {
			if from, ok := c.From[k]; ok {
				return from
			}
			i := strings.LastIndex(k, ".")
			if i < 0 {
				break
			}
			k = k[:i]
		}
		return "default"
	}
	var problems []string
	for _, e := range c.Problems {
		problems = append(problems, e.Error())
	}
	if o.JSON {
		type entry struct {
			Key   string `json:"key"`
			Value string `json:"value"`
			From  string `json:"from"`
		}
		out := struct {
			Values   []entry  `json:"values"`
			Problems []string `json:"problems"`
		}{Problems: problems}
		for _, k := range keys {
			out.Values = append(out.Values, entry{k, flat[k], origin(k)})
		}
		if out.Problems == nil {
			out.Problems = []string{}
		}
		return writeJSON(a.out, out)
	}
	for _, k := range keys {
		fmt.Fprintf(a.out, "%-22s %-28s %s\n", k, flat[k], origin(k))
	}
	for _, pr := range problems {
		fmt.Fprintf(a.out, "problem: %s (ignored)\n", pr)
	}
	return nil
}

func flatten(prefix string, v any, out map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		for k, sub := range t {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			flatten(key, sub, out)
		}
	case nil:
		out[prefix] = "[]"
	default:
		b, _ := json.Marshal(t)
		s := string(b)
		if str, ok := t.(string); ok {
			s = str
		}
		out[prefix] = s
	}
}
