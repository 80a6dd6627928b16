package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/agent/claude"
	"github.com/continuity-md/continuity/internal/core"
)

type demoOptions struct {
	Keep bool // keep the temporary repository
	JSON bool
}

// demoHost is the host whose recorded session the demo plays.
var demoHost = claude.Host{}

func newDemoCmd(a *app) *cobra.Command {
	var o demoOptions
	c := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole loop in a temporary repository on a recorded session",
		Long: `Run continuity's whole loop in a temporary git repository: init, a new ledger, a few
edits, a session recorded from the real ` + demoHost.Title() + ` (embedded in the binary) in which the agent
finishes a step, then the hooks the agent runs around a compaction (before it, the session's
restart with source compact, after it). Prints one line per step, then the ledger, the handoff
and the context the model reads after compaction. --json prints all of it as one object.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.JSON = a.json
			return a.runWith(o, func() error { return runDemo(a, o) })
		},
	}
	c.Flags().BoolVar(&o.Keep, "keep", false, "keep the temporary repository and print its path")
	return c
}

func runDemo(a *app, o demoOptions) error {
	rep, err := core.Demo(core.DemoOptions{Host: demoHost, Sample: claude.Sample{}, Getenv: a.getenv, Keep: o.Keep,
		Run: func(dir string, getenv func(string) string, stdin []byte, args ...string) ([]byte, []byte, error) {
			var out, errw bytes.Buffer
			sub := &app{in: bytes.NewReader(stdin), out: &out, errw: &errw, now: a.now, dir: dir, getenv: getenv}
			root := newRoot(sub)
			root.SetArgs(args)
			root.SetOut(&out)
			root.SetErr(&errw)
			err := root.Execute()
			return out.Bytes(), errw.Bytes(), err
		}})
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(a.out, rep)
	}
	removed := "removed at the end; --keep keeps it"
	if o.Keep {
		removed = "kept"
	}
	fmt.Fprintf(a.out, "continuity demo: a temporary repository at %s (%s)\n\n", rep.Repository, removed)
	for _, st := range rep.Steps {
		fmt.Fprintf(a.out, "%s %s  → %s\n", st.Prompt, st.Command, st.Result)
	}
	for _, f := range []struct{ title, body string }{
		{"the ledger, " + rep.Ledger.Path, rep.Ledger.Text},
		{"the handoff, " + rep.Handoff.Path, rep.Handoff.Text},
		{"what the model reads after compaction (the session start hook, source compact; --json for the hook's JSON)", rep.Context},
	} {
		fmt.Fprintf(a.out, "\n== %s\n\n%s\n", f.title, strings.TrimRight(f.body, "\n"))
	}
	return nil
}
