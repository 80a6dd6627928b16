package main

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/internal/workspace"
)

func newResumeCmd(a *app) *cobra.Command {
	var from string
	var carry bool
	c := &cobra.Command{
		Use:   "resume [NAME]",
		Short: "Make NAME the active ledger and print its context",
		Long: `Pick up a work stream: make NAME the active ledger in this worktree (when given) and print
the context a new session would get: the ledger and its latest handoff.

With sync: ref, --from MACHINE|PERSON prints instead the newest handoff of the stream that machine
("laptop") or person ("Kim", matched like --author) recorded, as the last fetch brought it
(` + "`continuity sync`" + ` fetches now), attributed: "from laptop (Kim), 2 h ago, branch feature/auth".
--carry also applies that snapshot's uncommitted work here, byte for byte (a file that held a
secret arrives redacted, and is named): only onto a worktree with no uncommitted change, at the
commit the snapshot was taken on; otherwise it refuses, says why, and writes nothing. --json (with
--from) prints the snapshot and what was applied.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := a.project()
			if err != nil {
				return err
			}
			e := a.env(known[0])
			switch {
			case from == "" && a.json:
				return usageError{Err: fmt.Errorf("resume: no --json without --from: the context it prints is text")}
			case from == "" && carry:
				return usageError{Err: fmt.Errorf("resume: --carry needs --from MACHINE|PERSON")}
			}
			if from != "" {
				named := ""
				if len(args) == 1 {
					named = args[0]
				}
				name, err := a.ledgerName(p, named)
				if err != nil {
					return err
				}
				return resumeFrom(a, p, e, name, from, carry)
			}
			if len(args) == 0 {
				name, err := a.activeName(p)
				if err != nil {
					return err
				}
				inj, err := core.Context(p, e, name, "startup", "")
				return printInjection(a, forPerson(inj), err)
			}
			inj, err := core.Resume(p, e, args[0])
			if errors.Is(err, workspace.ErrBadName) {
				return usageError{Err: err}
			}
			if (err == nil || inj.Input.Ledger != nil || inj.Input.LedgerRaw != nil) && inj.Input.LedgerPath != "" {
				fmt.Fprintf(a.out, "active ledger: %s\n", inj.Input.LedgerPath)
			}
			return printInjection(a, forPerson(inj), err)
		},
	}
	c.Flags().StringVar(&from, "from", "", "the newest handoff another machine or person recorded (sync: ref)")
	c.Flags().BoolVar(&carry, "carry", false, "with --from: apply that snapshot's uncommitted work to this clean worktree")
	return c
}

// resumeFrom prints the newest snapshot of stream from a machine or
// person and, with carry, applies its uncommitted work.
func resumeFrom(a *app, p *workspace.Workspace, e core.Env, stream, from string, carry bool) error {
	if !core.Syncing(p) {
		return errors.New("resume --from: sync is off in this repository (set `sync: ref` in .continuity.yaml, then `continuity sync`)")
	}
	r, err := core.ResumeSnapshot(p, e, stream, from, carry)
	if a.json {
		if r.Snapshot.Commit == "" {
			return err
		}
		if jerr := writeJSON(a.out, r); jerr != nil {
			return jerr
		}
		return err
	}
	if r.Text != "" {
		fmt.Fprintln(a.out, r.Text)
	}
	if err != nil {
		return err
	}
	if ap := r.Applied; ap != nil {
		fmt.Fprintf(a.out, "carried %s here", plural(len(ap.Written), "file"))
		if len(ap.Deleted) > 0 {
			fmt.Fprintf(a.out, ", deleted %d", len(ap.Deleted))
		}
		fmt.Fprintln(a.out, ":")
		for _, f := range ap.Written {
			fmt.Fprintf(a.out, "  %s\n", f)
		}
		for _, f := range ap.Deleted {
			fmt.Fprintf(a.out, "  %s (deleted)\n", f)
		}
		for _, f := range ap.Redacted {
			fmt.Fprintf(a.out, "note: %s held what looks like a secret; it arrived redacted\n", f)
		}
		for _, s := range ap.Skipped {
			fmt.Fprintf(a.out, "note: %s was not carried (%s)\n", s.Path, s.Why)
		}
	}
	return nil
}

// forPerson words the injection's first line for the person who ran
// resume rather than for a model at a session's start: "work stream
// "auth" (thoughts/ledgers/CONTINUITY_auth.md), last updated …", where the
// model reads "…, restored at session start (startup); …".
func forPerson(inj core.Injection) core.Injection {
	in := inj.Input
	if in.LedgerPath == "" {
		return inj
	}
	first, rest, _ := strings.Cut(inj.Text, "\n")
	if !strings.HasPrefix(first, "continuity: the ledger of work stream ") {
		return inj
	}
	head := "Work stream " + strconv.Quote(in.Name) + " (" + in.LedgerPath + ")"
	if in.Ledger != nil && in.Ledger.Updated != "" {
		head += ", last updated " + in.Ledger.Updated
	}
	inj.Text = head + ":\n" + unfence(rest)
	return inj
}

// fenceLine matches the lines that frame the repository's text for a
// model (the fence and the line explaining it): a person reading the
// context needs neither.
var fenceLine = regexp.MustCompile(`^(?:«(?:quoted|end) [0-9a-f]+»|Between «quoted [0-9a-f]+» and «end [0-9a-f]+»: .*)$`)

// unfence drops the model's framing from an injection printed for a person.
func unfence(text string) string {
	lines := strings.Split(text, "\n")
	out := lines[:0]
	for _, l := range lines {
		if !fenceLine.MatchString(l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
