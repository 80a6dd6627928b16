package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/internal/inject"
)

type syncOptions struct {
	Stream     string
	Background string // push or fetch: the detached run a hook started
	JSON       bool
}

func newSyncCmd(a *app) *cobra.Command {
	var o syncOptions
	c := &cobra.Command{
		Use:   "sync",
		Short: "Record the active stream, push this machine's snapshots and fetch everyone's, now",
		Long: `With sync: ref in the configuration, each handoff the hooks write is recorded, with its stream's
ledger and the worktree's uncommitted changes (tracked and untracked, never ignored, redacted, at
most 1 MiB a file and 4 MiB in all), on this machine's ref refs/continuity/<machine>/<stream>, and
pushed in the background; each session start fetches everyone's in the background for the next.
sync does both in the foreground: it records the active stream (--stream another), pushes this
machine's refs (only those: never another machine's or person's) and fetches the others into
refs/continuity-fetched/<remote>/, saying each step, and fails with git's reason when the remote
cannot be reached, asks for a login, or refuses the push. Git never prompts: an SSH key needs an
agent, an HTTPS remote a credential helper. --json prints what it did and every snapshot known.
Pick up another machine's work with ` + "`continuity resume --from MACHINE|PERSON [--carry]`" + `.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.JSON = a.json
			return a.runWith(o, func() error { return runSync(a, o) })
		},
	}
	streamFlag(c, &o.Stream, "the work stream to record (default: the active one)")
	c.Flags().StringVar(&o.Background, "background", "", "")
	_ = c.Flags().MarkHidden("background")
	return c
}

func runSync(a *app, o syncOptions) error {
	p, err := a.project()
	if err != nil {
		return err
	}
	e := a.env(known[0])
	if o.Background != "" {
		if o.Background != "push" && o.Background != "fetch" {
			return usageError{Err: fmt.Errorf("--background must be push or fetch, got %q", o.Background)}
		}
		if !core.Syncing(p) {
			return nil
		}
		return core.Background(p, e, o.Background)
	}
	stream := o.Stream
	if stream == "" {
		stream, _, _ = p.Active(a.getenv) // none: nothing to record, still push and fetch
	} else if _, err := a.ledgerName(p, stream); err != nil {
		return usageError{Err: err}
	}
	progress := a.errw
	if o.JSON {
		progress = nil
	}
	rep, err := core.Sync(p, e, stream, progress)
	if o.JSON {
		if jerr := writeJSON(a.out, rep); jerr != nil {
			return jerr
		}
		return err
	}
	if rep.Announce != "" {
		fmt.Fprintln(a.out, rep.Announce)
	}
	if rep.Recorded {
		fmt.Fprintf(a.out, "recorded %s on refs/continuity/%s/%s\n", rep.Stream, rep.Machine, rep.Stream)
	}
	if rep.Pushed {
		fmt.Fprintf(a.out, "pushed to %s\n", rep.Remote)
	}
	if rep.Fetched {
		fmt.Fprintf(a.out, "fetched from %s\n", rep.Remote)
	}
	now := a.now()
	for _, s := range rep.Snapshots {
		where := "this machine"
		if s.Remote != "" {
			where = "from " + s.Remote
		}
		fmt.Fprintf(a.out, "  %s  %s  %s (%s), %s ago  [%s]\n", s.Stream, s.Host(), s.Author, s.Machine, inject.Age(now.Sub(s.When)), where)
	}
	return err
}

// selfBinary is the continuity binary background work is started from:
// this process's own; under go test, the command testscript runs as
// continuity (a test binary run under its own name starts none: it would
// run the tests).
func selfBinary() string {
	exe, err := os.Executable()
	if err == nil && !strings.HasSuffix(strings.TrimSuffix(exe, ".exe"), ".test") {
		return exe
	}
	arg0 := os.Args[0]
	if strings.TrimSuffix(filepath.Base(arg0), ".exe") != "continuity" {
		return ""
	}
	if !strings.ContainsAny(arg0, `/\`) {
		p, err := exec.LookPath(arg0)
		if err != nil {
			return ""
		}
		arg0 = p
	}
	abs, err := filepath.Abs(arg0)
	if err != nil {
		return ""
	}
	return abs
}
