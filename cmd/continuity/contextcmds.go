package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/hookio"
	"github.com/continuity-md/continuity/internal/project"
)

var sources = map[string]bool{"startup": true, "resume": true, "clear": true, "compact": true, "fork": true}

func newContextCmd(a *app) *cobra.Command {
	var source, session, name string
	c := &cobra.Command{
		Use:   "context",
		Short: "Print exactly what SessionStart would inject",
		Long: `Print exactly the text the SessionStart hook would inject into the model's context for a
session started with --source (startup, resume, clear, compact, fork). --json prints the hook's
whole JSON output (byte for byte what the hook prints) instead.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !sources[source] {
				return usageError{fmt.Errorf("--source must be one of startup, resume, clear, compact, fork; got %q", source)}
			}
			p, err := a.project()
			if err != nil {
				return err
			}
			if name == "" {
				if name, err = a.activeName(p); err != nil {
					return err
				}
			} else if err := project.CheckName(name); err != nil {
				return usageError{err}
			}
			if a.json {
				out, problem := sessionStartOutput(p, name, source, session, a.now())
				if problem != "" {
					fmt.Fprintf(a.errw, "continuity: %s\n", problem)
				}
				return hookio.Write(a.out, out)
			}
			in, err := contextInput(p, name, source, session, a.now())
			if err != nil && in.Ledger == nil && in.LedgerRaw == nil {
				return err
			}
			if err != nil {
				fmt.Fprintf(a.errw, "continuity: %v\n", firstLine(err))
			}
			fmt.Fprintln(a.out, renderContext(p, in))
			return nil
		},
	}
	c.Flags().StringVar(&source, "source", "startup", "the session's source: startup, resume, clear, compact or fork")
	c.Flags().StringVar(&session, "session", "", "the agent session id (for --source compact: its fresh handoff)")
	c.Flags().StringVarP(&name, "ledger", "l", "", "this ledger instead of the active one")
	return c
}

func firstLine(err error) string {
	s := err.Error()
	for i := range s {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

func newHandoffCmd(a *app) *cobra.Command {
	var transcript, name string
	c := &cobra.Command{
		Use:   "handoff",
		Short: "Write a handoff now, from a transcript (the latest of this project by default)",
		Long: `Write a handoff now for the active ledger (or --ledger), from --transcript or else the
newest Claude Code transcript of this project ($CLAUDE_CONFIG_DIR or ~/.claude, projects/<dir>/).`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := a.project()
			if err != nil {
				return err
			}
			if name == "" {
				if name, err = a.activeName(p); err != nil {
					return err
				}
			} else if err := project.CheckName(name); err != nil {
				return usageError{err}
			}
			if transcript == "" {
				transcript = latestTranscript(a, p.Root)
				if transcript == "" {
					fmt.Fprintln(a.errw, "continuity: no transcript of this project found; the handoff holds the ledger and git facts only")
				}
			}
			// Claude Code names a transcript after its session.
			session := strings.TrimSuffix(filepath.Base(transcript), ".jsonl")
			if transcript == "" || session == filepath.Base(transcript) {
				session = ""
			}
			rel, _, err := writeHandoff(a, p, handoffRequest{Name: name, Event: "manual", Transcript: transcript, AgentSession: session}, a.now())
			if err != nil && rel == "" {
				return err
			}
			if err != nil {
				fmt.Fprintf(a.errw, "continuity: %v\n", err)
			}
			if a.json {
				return writeJSON(a.out, map[string]string{"path": rel, "transcript": transcript})
			}
			fmt.Fprintf(a.out, "wrote %s\n", rel)
			return nil
		},
	}
	c.Flags().StringVar(&transcript, "transcript", "", "the transcript (JSONL) to read")
	c.Flags().StringVarP(&name, "ledger", "l", "", "write it for this ledger instead of the active one")
	return c
}

var nonAlnum = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9]`) })

// latestTranscript finds the newest transcript Claude Code keeps for root.
func latestTranscript(a *app, root string) string {
	cfg := a.getenv("CLAUDE_CONFIG_DIR")
	if cfg == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		cfg = filepath.Join(home, ".claude")
	}
	dir := filepath.Join(cfg, "projects", nonAlnum().ReplaceAllString(root, "-"))
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var best string
	var bestT int64
	for _, e := range ents {
		if filepath.Ext(e.Name()) != ".jsonl" || !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil && info.ModTime().UnixNano() > bestT {
			best, bestT = filepath.Join(dir, e.Name()), info.ModTime().UnixNano()
		}
	}
	return best
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
			var name string
			if len(args) == 1 {
				if err := runUse(a, args[0]); err != nil {
					return err
				}
				name = args[0]
			} else if name, err = a.activeName(p); err != nil {
				return err
			}
			in, err := contextInput(p, name, "startup", "", a.now())
			if err != nil && in.Ledger == nil && in.LedgerRaw == nil {
				return err
			}
			if err != nil {
				fmt.Fprintf(a.errw, "continuity: %v\n", firstLine(err))
			}
			fmt.Fprintln(a.out, renderContext(p, in))
			return nil
		},
	}
}
