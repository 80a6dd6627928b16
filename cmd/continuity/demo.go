package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/demo"
)

func newDemoCmd(a *app) *cobra.Command {
	var keep bool
	c := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole loop in a temporary repository on a recorded session",
		Long: `Run continuity's whole loop in a temporary git repository: init, a new ledger, a few
edits, then the hooks Claude Code would run around a compaction (PreCompact, PostCompact,
SessionStart with source compact), fed a transcript recorded from the real Claude Code and
embedded in the binary. Prints the ledger, the handoff and the SessionStart JSON.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error { return runDemo(a, keep) },
	}
	c.Flags().BoolVar(&keep, "keep", false, "keep the temporary repository and print its path")
	return c
}

func runDemo(a *app, keep bool) error {
	tmp, err := os.MkdirTemp("", "continuity-demo-")
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	root := filepath.Join(tmp, "proj")
	if !keep {
		defer os.RemoveAll(tmp)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if git, err := exec.LookPath("git"); err == nil {
		for _, args := range [][]string{
			{"init", "-q", "-b", "feature/auth-refactor"},
			{"-c", "user.name=Kim", "-c", "user.email=kim@example.com", "commit", "-q", "--allow-empty", "-m", "start"},
			{"config", "user.name", "Kim"},
		} {
			cmd := exec.Command(git, args...)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("demo: git %s: %v: %s", args[0], err, out)
			}
		}
	}
	// The demo's commands run in the temporary repository with a clean
	// environment: the person's own CONTINUITY_* settings do not apply.
	var log bytes.Buffer
	sub := func(in []byte) *app {
		return &app{in: bytes.NewReader(in), out: &log, errw: a.errw, now: a.now, dir: root,
			getenv: func(k string) string {
				if strings.HasPrefix(k, "CONTINUITY_") || k == "CLAUDE_ENV_FILE" {
					return ""
				}
				return a.getenv(k)
			}}
	}
	steps := []struct {
		show string
		run  func(*app) error
	}{
		{"continuity init", func(s *app) error { return runInit(s, setupOptions{Command: "continuity hook"}) }},
		{`continuity new auth-refactor --goal "Replace session cookies with short-lived JWTs"`, func(s *app) error {
			return runNew(s, newOptions{Name: "auth-refactor", Goal: "Replace session cookies with short-lived JWTs"})
		}},
		{`continuity now "Token refresh endpoint"`, func(s *app) error { return runCLI(s, "now", "Token refresh endpoint") }},
		{`continuity next "Logout endpoint" "Integration tests"`, func(s *app) error { return runCLI(s, "next", "Logout endpoint", "Integration tests") }},
		{`continuity decide "RS256, not HS256" --why "keys rotate per service"`, func(s *app) error {
			return runCLI(s, "decide", "RS256, not HS256", "--why", "keys rotate per service")
		}},
	}
	if git, err := exec.LookPath("git"); err == nil {
		// What init registered is committed, as a team would: the hooks
		// and the merge driver's .gitattributes line.
		commit := struct {
			show string
			run  func(*app) error
		}{`git add .claude .gitattributes && git commit -m "Register continuity"`, func(*app) error {
			for _, args := range [][]string{{"add", ".claude", ".gitattributes"}, {"commit", "-q", "-m", "Register continuity"}} {
				cmd := exec.Command(git, args...)
				cmd.Dir = root
				if out, err := cmd.CombinedOutput(); err != nil {
					return fmt.Errorf("git %s: %v: %s", args[0], err, out)
				}
			}
			return nil
		}}
		steps = append(steps[:1], append([]struct {
			show string
			run  func(*app) error
		}{commit}, steps[1:]...)...)
	}
	if keep {
		fmt.Fprintf(a.out, "continuity demo: a temporary repository at %s (kept)\n\n", root)
	} else {
		fmt.Fprintf(a.out, "continuity demo: a temporary repository at %s (removed at the end; --keep keeps it)\n\n", root)
	}
	for _, st := range steps {
		log.Reset()
		if err := st.run(sub(nil)); err != nil {
			return fmt.Errorf("demo: %s: %w", st.show, err)
		}
		fmt.Fprintf(a.out, "$ %s\n%s", st.show, indent(log.String()))
	}

	// A session recorded from the real Claude Code, moved into this repository.
	transcript := filepath.Join(tmp, "transcript.jsonl")
	data := bytes.ReplaceAll(demo.Transcript, []byte(demo.ProjectDir), []byte(root))
	if err := os.WriteFile(transcript, data, 0o600); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	payload := func(fields map[string]string) []byte {
		m := map[string]string{"session_id": demo.SessionID, "transcript_path": transcript, "cwd": root}
		for k, v := range fields {
			m[k] = v
		}
		b, _ := json.Marshal(m)
		return b
	}
	fmt.Fprintf(a.out, "\nClaude Code compacts the session (a transcript of %d KB recorded from the real client):\n", len(data)/1024)
	var startJSON []byte
	for _, ev := range []map[string]string{
		{"hook_event_name": "PreCompact", "trigger": "manual", "custom_instructions": ""},
		{"hook_event_name": "SessionStart", "source": "compact"},
		{"hook_event_name": "PostCompact", "trigger": "manual", "compact_summary": demo.CompactSummary},
	} {
		log.Reset()
		s := sub(payload(ev))
		s.errw = &log
		var out bytes.Buffer
		s.out = &out
		runHook(s)
		fmt.Fprintf(a.out, "  hook %s%s: done\n", ev["hook_event_name"], paren(ev["source"]+ev["trigger"]))
		if log.Len() > 0 {
			fmt.Fprint(a.out, indent(log.String()))
		}
		if ev["hook_event_name"] == "SessionStart" {
			startJSON = out.Bytes()
		}
	}

	p, err := sub(nil).project()
	if err != nil {
		return err
	}
	lpath, _ := p.LedgerPath("auth-refactor")
	ledgerSrc, err := os.ReadFile(lpath)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	fmt.Fprintf(a.out, "\n== the ledger, %s\n\n%s", p.Rel(lpath), ledgerSrc)
	if h := latestHandoff(p, "auth-refactor"); h != "" {
		src, err := os.ReadFile(h)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		fmt.Fprintf(a.out, "\n== the handoff, %s\n\n%s", p.Rel(h), src)
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, startJSON, "", "  ") == nil {
		fmt.Fprintf(a.out, "\n== what SessionStart (source compact) gives Claude Code\n\n%s\n", pretty.String())
		var o struct {
			HookSpecificOutput struct{ AdditionalContext string } `json:"hookSpecificOutput"`
		}
		if json.Unmarshal(startJSON, &o) == nil {
			fmt.Fprintf(a.out, "\n== the injected context as the model reads it\n\n%s\n", o.HookSpecificOutput.AdditionalContext)
		}
	}
	if keep {
		fmt.Fprintf(a.out, "\nkept the repository at %s\n", root)
	}
	return nil
}

// runCLI runs one continuity command line inside another command (the demo).
func runCLI(a *app, args ...string) error {
	root := newRoot(a)
	root.SetArgs(args)
	root.SetOut(a.out)
	root.SetErr(a.errw)
	return root.Execute()
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ") + "\n"
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}
