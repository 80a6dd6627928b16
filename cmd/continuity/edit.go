package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/ledger"
)

// editOptions is one ledger edit from the command line: goal, now, done,
// next, question, constraint or decide.
type editOptions struct {
	Verb   string   // the command: goal, now, done, next, question, constraint, decide
	Stream string   // --stream; "" for the active one
	Items  []string // the arguments, trimmed, empty ones dropped (for goal and now: one text)
	Why    string   // decide --why
	Remove bool     // --remove: take the items out instead
	JSON   bool
}

// editVerbs says how each edit command reads: what its arguments are,
// and its help. A list verb takes items; goal, now and decide one text.
var editVerbs = map[string]struct{ use, args, short, example string }{
	"goal": {"goal TEXT", "what this work stream is for", "Set the goal of the active ledger", `  continuity goal "Replace session cookies with JWTs"`},
	"now":  {"now TEXT", "the text of the step", `Set what is being worked on now ("" clears it)`, `  continuity now "Logout endpoint"`},
	"decide": {"decide TEXT --why TEXT", "a decision TEXT and --why TEXT", "Record a decision and why it was made",
		`  continuity decide "RS256, not HS256" --why "keys rotate per service"`},
	"done":       {short: "Record finished items (each leaves next; a finished now gives way to the first next)"},
	"next":       {short: "Add items to what comes next"},
	"question":   {short: "Record open questions"},
	"constraint": {short: "Record constraints the work must keep to"},
}

func newEditCmd(a *app, verb string) *cobra.Command {
	o := editOptions{Verb: verb}
	v := editVerbs[verb]
	list := v.use == ""
	c := &cobra.Command{Use: v.use, Short: v.short, Example: v.example, Annotations: map[string]string{"args": v.args}, Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Items, o.JSON = []string{strings.TrimSpace(strings.Join(args, " "))}, a.json
			if list {
				o.Items = trimmedItems(args)
			}
			return a.runWith(o, func() error { return runEdit(a, o) })
		},
	}
	if list {
		c.Use, c.Annotations["args"] = verb+" TEXT...", "one or more items (quote an item that has spaces)"
		c.Long = v.short + ".\nEach argument is one item: quote an item that has spaces. An item already in the list is not added twice."
		c.Example = fmt.Sprintf("  continuity %s \"Integration tests for refresh\" \"Update the API docs\"", verb)
		c.Flags().BoolVar(&o.Remove, "remove", false, "remove the items instead of adding them")
	}
	if verb == "decide" {
		c.Flags().StringVar(&o.Why, "why", "", "why the decision was made (required)")
	}
	streamFlag(c, &o.Stream, "edit this work stream's ledger instead of the active one", "ledger")
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
	key := core.Key(o.Verb)
	scalar := key == ledger.KeyGoal || key == ledger.KeyNow
	switch {
	case o.Verb == "decide" && (len(o.Items) == 0 || o.Items[0] == "" || strings.TrimSpace(o.Why) == ""):
		return usageError{Err: errors.New("decide needs a decision TEXT and --why TEXT")}
	case o.Verb == "goal" && o.Items[0] == "":
		return usageError{Err: errors.New("goal: needs what this work stream is for")}
	case !scalar && len(o.Items) == 0:
		return usageError{Err: fmt.Errorf("%s: needs the text of an item, not only spaces", o.Verb)}
	}
	p, _, path, err := a.ledgerFile(o.Stream)
	if err != nil {
		return err
	}
	res, err := core.Apply(p, path, a.now(), core.Change{Verb: o.Verb, Items: o.Items, Why: o.Why, Remove: o.Remove})
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(a.out, res)
	}
	printLines(a.out, res.Lines())
	return nil
}
