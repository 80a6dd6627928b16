package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/internal/workspace"
)

type evalOptions struct {
	Agent       string
	Transcripts string
	Splits      string
}

func newEvalCmd(a *app) *cobra.Command {
	var o evalOptions
	c := &cobra.Command{
		Use:   "eval",
		Short: "Replay your agents' transcripts where context was lost and score what each session would be given",
		Long: `Replay your coding agents' transcripts of this repository at the points where a
session loses its context, and score what it would be given there against what the
agent then did: continuity's context (the handoff its hook would write and the start's
injection, rendered in memory) and, where the transcript holds one, the agent's own
compaction summary. Nothing is written, no model is called.

Where: without --transcripts, the transcripts each agent keeps of sessions in this
repository (its folder for the repository, or those of its sessions whose working
directory lies inside the repository). With --transcripts DIR, every *.jsonl and
*.json file under DIR, the agent told by its content.

Split points: each compaction the agent recorded (the history is what came before the
record that holds its summary); in a session without one, the prompts nearest half and
three quarters of its prompts, where the agent made at least 5 tool calls before and 5
after. --splits FILE gives them instead, one per line, tab-separated: file (relative to
--transcripts), the last line of the history, kind (compaction or synthetic), the line
of the agent's summary (or -), and unit (only "line" is replayed); a first line naming
the columns is passed over.

The scores, each "named / of" over all splits of an agent:
  edited       files the session edited before the split and touches again after it
               (edits or reads), named in the context
  read-only    files it only read or searched before (Read/View tools, cat, sed -n,
               head, rg and grep targets) and touches again after it, named
  files        both together: the files it goes back to
  uncommitted  files edited before the split and after the session's last commit
               (every file edited before that commit counts as committed), named
  open errors  checks (test, build, lint, typecheck commands) whose last run before the
               split failed, named on a line that says they fail
  last check   the check run last before the split, named on a line with its outcome
               (pass/passed/ok … or fail/failed/error …)
  task         the latest request of three or more words of four letters, stated: half
               its words (up to 40) appear in the context
  plan         the plan's items not done at the split, each stated the same way
  tokens       the context's length, a token per 4 bytes, the mean per start
A file is named when the context holds its path relative to the repository (or a path
ending in it), or its base name where no other file of the session shares it. What
the agent did comes from its transcript as continuity reads it (its files, reads,
checks, commits), so the truth is continuity's reading; the two contexts are scored
against the same truth. "at summaries" is continuity's context at only the splits
where the agent wrote a summary, beside that summary's own scores.`,
		Example: `  continuity eval
  continuity eval --agent codex --json
  continuity eval --transcripts ~/transcripts --splits ~/transcripts/splits.tsv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runWith(o, func() error { return runEval(a, o) })
		},
	}
	c.Flags().StringVar(&o.Agent, "agent", "", "replay only this agent's transcripts: "+strings.Join(hostNameList(), ", "))
	c.Flags().StringVar(&o.Transcripts, "transcripts", "", "replay the transcripts under `DIR` instead of this repository's")
	c.Flags().StringVar(&o.Splits, "splits", "", "the split points, a tab-separated `FILE` (with --transcripts)")
	return c
}

func runEval(a *app, o evalOptions) error {
	if o.Splits != "" && o.Transcripts == "" {
		return usageError{Err: errors.New("eval: --splits names files under --transcripts DIR: give both")}
	}
	opts := core.EvalOptions{Hosts: known, Dir: o.Transcripts, Splits: o.Splits, Getenv: a.getenv, Now: a.now(), Config: workspace.DefaultConfig()}
	if o.Agent != "" {
		h, err := hostNamed(o.Agent)
		if err != nil {
			return err
		}
		opts.Hosts = []agent.Served{h}
	}
	if o.Transcripts != "" {
		if st, err := os.Stat(o.Transcripts); err != nil || !st.IsDir() {
			return fmt.Errorf("eval: --transcripts %s: not a folder", o.Transcripts)
		}
	} else {
		p, err := a.project()
		if err != nil {
			return err
		}
		if p.Repo.Root == "" {
			return errors.New("eval: not in a git repository: run it in one, or give --transcripts DIR")
		}
		opts.Root, opts.Config = p.Repo.Root, p.Config.Config
	}
	if a.isTerminal(a.errw) {
		opts.Progress = func(done, total int, file string) {
			if done == total {
				fmt.Fprint(a.errw, "\r\033[K")
				return
			}
			fmt.Fprintf(a.errw, "\r\033[Keval: %d/%d %s", done+1, total, tail(file, 60))
		}
	}
	rep, err := core.Eval(opts)
	if err != nil {
		return err
	}
	if a.json {
		return writeJSON(a.out, rep)
	}
	printEval(a.out, rep)
	return nil
}

// tail is the last n bytes of s, marked when cut.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// printEval prints the scores, an agent a table.
func printEval(w io.Writer, rep *core.EvalReport) {
	if rep.Splits == 0 {
		fmt.Fprintln(w, "no split points to replay: no transcript with a compaction, or with enough work around its prompts")
	} else {
		fmt.Fprintf(w, "%d split points in %d transcripts\n", rep.Splits, rep.Transcripts)
	}
	for _, ag := range rep.Agents {
		fmt.Fprintf(w, "\n%s (%d transcripts)\n", ag.Agent, ag.Transcripts)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "context\tsplits\tfiles\tedited\tread-only\tuncommitted\topen errors\tlast check\ttask\tplan\ttokens")
		row := func(name string, s *core.EvalScores) {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", name, s.Splits, ratio(s.Files), ratio(s.Edited), ratio(s.ReadOnly),
				ratio(s.Uncommitted), ratio(s.OpenErrors), ratio(s.LastCheck), ratio(s.Task), ratio(s.Plan), s.Tokens)
		}
		row("continuity", &ag.Continuity)
		if ag.Summary != nil {
			row("continuity at summaries", ag.AtSummaries)
			row("agent's summary", ag.Summary)
		}
		tw.Flush()
	}
	if n := len(rep.Skipped); n > 0 {
		fmt.Fprintf(w, "\nnot replayed (%d):\n", n)
		for i, s := range rep.Skipped {
			if i == 10 {
				fmt.Fprintf(w, "  … %d more (--json lists them all)\n", n-10)
				break
			}
			fmt.Fprintln(w, "  "+s)
		}
	}
}

// ratio is "0.85 (17/20)", "-" when there was nothing to name.
func ratio(r core.Ratio) string {
	v := r.Value()
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.2f (%d/%d)", v, r.Named, r.Of)
}
