package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/host"
	"github.com/continuity-md/continuity/internal/inject"
	"github.com/continuity-md/continuity/internal/project"
	"github.com/continuity-md/continuity/internal/session"
	"github.com/continuity-md/continuity/ledger"
)

func newContextCmd(a *app) *cobra.Command {
	var source, id, name, agent string
	c := &cobra.Command{
		Use:   "context",
		Short: "Print exactly what a session start would inject",
		Long: `Print exactly the text the session start hook would inject into the model's context for a
session started with --source (startup, resume, clear, compact, fork), for the host --agent
(its size limit and unit). --json prints the hook's whole JSON output (byte for byte what the
hook prints) instead.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(session.Sources, source) {
				return usageError{Err: fmt.Errorf("--source must be one of %s; got %q", strings.Join(session.Sources, ", "), source)}
			}
			h, err := hostNamed(agent)
			if err != nil {
				return err
			}
			p, name, err := a.projectAndLedger(name)
			if err != nil {
				return err
			}
			inj, err := session.Context(p, a.env(h), name, source, id)
			if a.json {
				ans := host.Answer{Context: inj.Text, Message: inj.Message}
				if errors.Is(err, ledger.ErrNotFound) {
					ans = host.Answer{Context: inject.NoLedger()}
				} else if inj.Problem != "" {
					fmt.Fprintf(a.errw, "continuity: %s\n", inj.Problem)
				}
				out, err := h.Encode(host.Event{Kind: host.Start, Source: source, SessionID: id}, ans)
				if err == nil {
					_, err = a.out.Write(out)
				}
				return err
			}
			return printInjection(a, inj, err)
		},
	}
	c.Flags().StringVar(&source, "source", "startup", "the session's source: startup, resume, clear, compact or fork")
	c.Flags().StringVar(&id, "session", "", "the agent session id (for --source compact: its fresh handoff)")
	c.Flags().StringVarP(&name, "ledger", "l", "", "this ledger instead of the active one")
	c.Flags().StringVar(&agent, "agent", "", "the host: "+hostNames()+" (default "+hosts[0].Name()+")")
	return c
}

// projectAndLedger opens the project and checks the named ledger, or
// finds the active one when name is "".
func (a *app) projectAndLedger(name string) (*project.Project, string, error) {
	p, err := a.project()
	if err != nil {
		return nil, "", err
	}
	if name == "" {
		name, err = a.activeName(p)
		return p, name, err
	}
	if err := project.CheckName(name); err != nil {
		return nil, "", usageError{Err: err}
	}
	return p, name, nil
}

// printInjection prints an injection's text; a ledger that could not be
// read at all is an error, one that did not parse a line on stderr.
func printInjection(a *app, inj session.Injection, err error) error {
	if err != nil && inj.Input.Ledger == nil && inj.Input.LedgerRaw == nil {
		return err
	}
	if err != nil {
		fmt.Fprintf(a.errw, "continuity: %v\n", firstLine(err))
	}
	fmt.Fprintln(a.out, inj.Text)
	return nil
}

// loadLedger reads and parses a ledger; a missing one is (nil, nil, nil).
func loadLedger(p *project.Project, name string) (*ledger.Ledger, []byte, error) {
	return session.LoadLedger(p, name)
}

func newHandoffCmd(a *app) *cobra.Command {
	var transcript, name, agent string
	c := &cobra.Command{
		Use:   "handoff",
		Short: "Write a handoff now, from a transcript (the latest of this project by default)",
		Long: `Write a handoff now for the active ledger (or --ledger), from --transcript or else the
newest transcript the host (--agent) keeps for this project.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := hostNamed(agent)
			if err != nil {
				return err
			}
			p, name, err := a.projectAndLedger(name)
			if err != nil {
				return err
			}
			e := a.env(h)
			named := transcript != ""
			if transcript == "" {
				if transcript = session.LatestTranscript(e, p.Root); transcript == "" {
					fmt.Fprintln(a.errw, "continuity: no transcript of this project found; the handoff holds the ledger and git facts only")
				}
			}
			w, err := session.WriteHandoff(p, e, session.Request{Name: name, Event: "manual", Transcript: transcript,
				AgentSession: session.SessionOf(transcript), Named: named})
			if w.Read != "" {
				fmt.Fprintf(a.errw, "continuity: read %s: %s\n", transcript, w.Read)
			}
			if err != nil && w.Path == "" {
				return err
			}
			if err != nil {
				fmt.Fprintf(a.errw, "continuity: %v\n", err)
			}
			if w.Path == "" { // the same as this session's last handoff
				fmt.Fprintf(a.errw, "continuity: %s\n", w.Message)
			}
			if a.json {
				return writeJSON(a.out, map[string]string{"path": w.Path, "transcript": transcript})
			}
			if w.Path != "" {
				fmt.Fprintf(a.out, "wrote %s\n", w.Path)
			}
			return nil
		},
	}
	c.Flags().StringVar(&transcript, "transcript", "", "the transcript (JSONL) to read")
	c.Flags().StringVarP(&name, "ledger", "l", "", "write it for this ledger instead of the active one")
	c.Flags().StringVar(&agent, "agent", "", "the host whose transcript it is: "+hostNames()+" (default "+hosts[0].Name()+")")
	return c
}

func newResumeCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "resume [NAME]",
		Short: "Make NAME the active ledger and print its context",
		Long: `Pick up a work stream: make NAME the active ledger in this worktree (when given) and print
the context a new session would get: the ledger and its latest handoff.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := a.project()
			if err != nil {
				return err
			}
			e := a.env(hosts[0])
			if len(args) == 0 {
				name, err := a.activeName(p)
				if err != nil {
					return err
				}
				inj, err := session.Context(p, e, name, "startup", "")
				return printInjection(a, inj, err)
			}
			inj, err := session.Resume(p, e, args[0])
			if errors.Is(err, project.ErrBadName) {
				return usageError{Err: err}
			}
			if (err == nil || inj.Input.Ledger != nil || inj.Input.LedgerRaw != nil) && inj.Input.LedgerPath != "" {
				fmt.Fprintf(a.out, "active ledger: %s\n", inj.Input.LedgerPath)
			}
			return printInjection(a, inj, err)
		},
	}
}
