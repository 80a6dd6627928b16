package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/ledger"
)

// editOptions is one ledger edit from the command line: goal, now, done,
// next, question, constraint or decide.
type editOptions struct {
	Verb   string   // the command: goal, now, done, next, question, constraint, decide
	Ledger string   // --ledger; "" for the active one
	Items  []string // the arguments, trimmed, empty ones dropped (for goal and now: one text)
	Why    string   // decide --why
	Remove bool     // --remove: take the items out instead
	JSON   bool
}

// editResult is what an edit prints with --json.
type editResult struct {
	Path    string   `json:"path"`
	Key     string   `json:"key"`
	Value   *string  `json:"value,omitempty"` // goal, now
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Now     *string  `json:"now,omitempty"` // done: now after the edit
}

// editKeys maps a verb to the ledger key it edits.
var editKeys = map[string]string{
	"goal": ledger.KeyGoal, "now": ledger.KeyNow, "done": ledger.KeyDone, "next": ledger.KeyNext,
	"question": ledger.KeyQuestions, "constraint": ledger.KeyConstraints, "decide": ledger.KeyDecisions,
}

func newScalarCmd(a *app, verb string) *cobra.Command {
	o := editOptions{Verb: verb}
	what := map[string]string{"goal": "what this work stream is for", "now": "the text of the step"}[verb]
	c := &cobra.Command{
		Use:         verb + " TEXT",
		Short:       map[string]string{"goal": "Set the goal of the active ledger", "now": "Set what is being worked on now (\"\" clears it)"}[verb],
		Example:     fmt.Sprintf("  continuity %s %q", verb, map[string]string{"goal": "Replace session cookies with JWTs", "now": "Logout endpoint"}[verb]),
		Annotations: map[string]string{"args": what},
		Args:        minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Items, o.JSON = []string{strings.TrimSpace(strings.Join(args, " "))}, a.json
			return a.runWith(o, func() error { return runEdit(a, o) })
		},
	}
	c.Flags().StringVarP(&o.Ledger, "ledger", "l", "", "edit this ledger instead of the active one")
	return c
}

func newListEditCmd(a *app, verb string) *cobra.Command {
	o := editOptions{Verb: verb}
	short := map[string]string{
		"done":       "Record finished items (each leaves next; a finished now gives way to the first next)",
		"next":       "Add items to what comes next",
		"question":   "Record open questions",
		"constraint": "Record constraints the work must keep to",
	}[verb]
	c := &cobra.Command{
		Use:   verb + " TEXT...",
		Short: short,
		Long: short + `.
Each argument is one item: quote an item that has spaces. An item already in the list is not added twice.`,
		Example:     fmt.Sprintf("  continuity %s \"Integration tests for refresh\" \"Update the API docs\"", verb),
		Annotations: map[string]string{"args": "one or more items (quote an item that has spaces)"},
		Args:        minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Items, o.JSON = trimmedItems(args), a.json
			return a.runWith(o, func() error { return runEdit(a, o) })
		},
	}
	c.Flags().StringVarP(&o.Ledger, "ledger", "l", "", "edit this ledger instead of the active one")
	c.Flags().BoolVar(&o.Remove, "remove", false, "remove the items instead of adding them")
	return c
}

func newDecideCmd(a *app) *cobra.Command {
	o := editOptions{Verb: "decide"}
	c := &cobra.Command{
		Use:         "decide TEXT --why TEXT",
		Short:       "Record a decision and why it was made",
		Example:     `  continuity decide "RS256, not HS256" --why "keys rotate per service"`,
		Annotations: map[string]string{"args": "a decision TEXT and --why TEXT"},
		Args:        minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Items, o.JSON = []string{strings.TrimSpace(strings.Join(args, " "))}, a.json
			return a.runWith(o, func() error { return runEdit(a, o) })
		},
	}
	c.Flags().StringVar(&o.Why, "why", "", "why the decision was made (required)")
	c.Flags().StringVarP(&o.Ledger, "ledger", "l", "", "edit this ledger instead of the active one")
	return c
}

func trimmedItems(args []string) []string {
	var items []string
	for _, s := range args {
		if s = strings.TrimSpace(s); s != "" {
			items = append(items, s)
		}
	}
	return items
}

// runEdit makes one command's edit on the ledger and says what it did.
func runEdit(a *app, o editOptions) error {
	key := editKeys[o.Verb]
	scalar := key == ledger.KeyGoal || key == ledger.KeyNow
	switch {
	case o.Verb == "decide" && (len(o.Items) == 0 || o.Items[0] == "" || strings.TrimSpace(o.Why) == ""):
		return usageError{errors.New("decide needs a decision TEXT and --why TEXT")}
	case o.Verb == "goal" && o.Items[0] == "":
		return usageError{errors.New("goal: needs what this work stream is for")}
	case !scalar && len(o.Items) == 0:
		return usageError{fmt.Errorf("%s: needs the text of an item, not only spaces", o.Verb)}
	}
	rel, before, after, err := a.editLedger(o.Ledger, func(red func(string) string) []ledger.Edit {
		clean := make([]string, len(o.Items))
		for i, it := range o.Items {
			clean[i] = red(it)
		}
		switch {
		case o.Verb == "decide":
			return []ledger.Edit{ledger.Decide(ledger.Decision{Decision: clean[0], Why: red(strings.TrimSpace(o.Why)), Date: a.now().UTC().Format("2006-01-02")})}
		case scalar:
			return []ledger.Edit{ledger.Set(key, clean[0])}
		case o.Remove:
			var edits []ledger.Edit
			for _, it := range clean {
				edits = append(edits, ledger.RemoveExisting(key, it))
			}
			return edits
		case o.Verb == "done":
			return []ledger.Edit{ledger.Finish(clean...)}
		}
		return []ledger.Edit{ledger.Append(key, clean...)}
	})
	if err != nil {
		return err
	}
	res := editResult{Path: rel, Key: key}
	switch {
	case scalar:
		res.Value = &o.Items[0]
	case o.Remove:
		res.Removed = o.Items
	default:
		res.Added = o.Items
	}
	// done moves now on when it finished now: say so.
	var nowMoved bool
	if o.Verb == "done" && !o.Remove {
		if lb, err := ledger.Parse(rel, before); err == nil {
			if la, err := ledger.Parse(rel, after); err == nil && la.Now != lb.Now {
				nowMoved, res.Now = true, &la.Now
			}
		}
	}
	if o.JSON {
		return writeJSON(a.out, res)
	}
	switch {
	case o.Verb == "decide":
		fmt.Fprintf(a.out, "decision recorded (%s)\n", rel)
	case scalar && o.Items[0] == "":
		fmt.Fprintf(a.out, "%s: cleared (%s)\n", key, rel)
	case scalar:
		fmt.Fprintf(a.out, "%s: %s (%s)\n", key, o.Items[0], rel)
	case o.Remove:
		fmt.Fprintf(a.out, "%s removed from %s (%s)\n", plural(len(o.Items), "item"), key, rel)
	default:
		fmt.Fprintf(a.out, "%s added to %s (%s)\n", plural(len(o.Items), "item"), key, rel)
	}
	switch {
	case nowMoved && *res.Now == "":
		fmt.Fprintln(a.out, "now: cleared (next is empty)")
	case nowMoved:
		fmt.Fprintf(a.out, "now: %s (was first in next)\n", *res.Now)
	}
	return nil
}

// editLedger makes edits on the ledger named (else the active one) under
// the lock, refreshing `updated`, and returns its path and its bytes before
// and after. A ledger that does not parse is left untouched. build makes
// the edits from text passed through red, which redacts secrets.
func (a *app) editLedger(name string, build func(red func(string) string) []ledger.Edit) (rel string, before, after []byte, err error) {
	p, err := a.project()
	if err != nil {
		return "", nil, nil, err
	}
	if name, err = a.ledgerName(p, name); err != nil {
		return "", nil, nil, err
	}
	path, err := p.LedgerPath(name)
	if err != nil {
		return "", nil, nil, usageError{err}
	}
	rel = p.Rel(path)
	err = safefile.Update(path, p.WriteOptions(), func(old []byte) ([]byte, error) {
		if old == nil {
			return nil, fmt.Errorf("ledger %s: %w (see `continuity list`)", rel, ledger.ErrNotFound)
		}
		// Apply parses and checks the ledger itself (a YAML parse less
		// on a long ledger); only a failed edit is explained by the
		// ledger's own problems, with its path and lines. The edits are
		// built afresh for each attempt (Update tries again when an editor
		// saved in between, and an edit such as Finish runs in steps).
		out, err := ledger.Apply(old, a.now(), build(p.Redact)...)
		if err != nil {
			if _, perr := ledger.Parse(rel, old); perr != nil {
				return nil, perr
			}
			return nil, ledger.WithPath(err, rel)
		}
		before, after = old, out
		return out, nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return rel, nil, nil, fmt.Errorf("ledger %s: %w (see `continuity list`)", rel, ledger.ErrNotFound)
	}
	return rel, before, after, err
}
