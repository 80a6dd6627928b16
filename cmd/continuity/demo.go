package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/demo"
	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/safefile"
)

type demoOptions struct {
	Keep bool // keep the temporary repository
	JSON bool
}

// demoStep is one thing the demo did and what came of it, in one line.
type demoStep struct {
	Command string `json:"command"`
	Result  string `json:"result"`
}

// demoFile is a file the demo shows.
type demoFile struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

// demoReport is what the demo prints with --json.
type demoReport struct {
	Repository   string          `json:"repository"`
	Kept         bool            `json:"kept"`
	Steps        []demoStep      `json:"steps"`
	Ledger       demoFile        `json:"ledger"`
	Handoff      demoFile        `json:"handoff"`
	Context      string          `json:"context"`       // what the model reads after compaction
	SessionStart json.RawMessage `json:"session_start"` // the hook's whole output
}

func newDemoCmd(a *app) *cobra.Command {
	var o demoOptions
	c := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole loop in a temporary repository on a recorded session",
		Long: `Run continuity's whole loop in a temporary git repository: init, a new ledger, a few
edits, a session recorded from the real Claude Code (embedded in the binary) in which the agent
finishes a step, then the hooks Claude Code runs around a compaction (PreCompact, SessionStart
with source compact, PostCompact). Prints one line per step, then the ledger, the handoff and
the context the model reads after compaction. --json prints all of it as one object.`,
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
	tmp, err := os.MkdirTemp("", "continuity-demo-")
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	root := filepath.Join(tmp, "proj")
	if !o.Keep {
		defer os.RemoveAll(tmp)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	rep, err := demoRun(a, tmp, root)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	rep.Kept = o.Keep
	if o.JSON {
		return writeJSON(a.out, rep)
	}
	removed := "removed at the end; --keep keeps it"
	if o.Keep {
		removed = "kept"
	}
	fmt.Fprintf(a.out, "continuity demo: a temporary repository at %s (%s)\n\n", root, removed)
	for _, st := range rep.Steps {
		prompt := "$"
		if strings.HasPrefix(st.Command, "/") {
			prompt = ">" // typed in Claude Code
		}
		fmt.Fprintf(a.out, "%s %s  → %s\n", prompt, st.Command, st.Result)
	}
	for _, f := range []struct{ title, body string }{
		{"the ledger, " + rep.Ledger.Path, rep.Ledger.Text},
		{"the handoff, " + rep.Handoff.Path, rep.Handoff.Text},
		{"what the model reads after compaction (SessionStart, source compact; --json for the hook's JSON)", rep.Context},
	} {
		fmt.Fprintf(a.out, "\n== %s\n\n%s\n", f.title, strings.TrimRight(f.body, "\n"))
	}
	return nil
}

// demoRun runs the demo's steps in the repository root and collects what
// it shows.
func demoRun(a *app, tmp, root string) (*demoReport, error) {
	rep := &demoReport{Repository: root}
	git := func(args ...string) error {
		_, err := gitfacts.Git{Repo: gitfacts.Repo{Root: root}, Timeout: 10 * gitfacts.DefaultTimeout}.Run(context.Background(), args...)
		return err
	}
	hasGit := git("init", "-q", "-b", "feature/auth-refactor") == nil
	if hasGit {
		for _, args := range [][]string{
			{"-c", "user.name=Kim", "-c", "user.email=kim@example.com", "commit", "-q", "--allow-empty", "-m", "start"},
			{"config", "user.name", "Kim"},
		} {
			if err := git(args...); err != nil {
				return nil, err
			}
		}
	}
	// The demo's commands run in the temporary repository with a clean
	// environment: the person's own CONTINUITY_* settings do not apply.
	sub := func(in []byte, out, errw *bytes.Buffer) *app {
		return &app{in: bytes.NewReader(in), out: out, errw: errw, now: a.now, dir: root,
			getenv: func(k string) string {
				if strings.HasPrefix(k, "CONTINUITY_") || k == "CLAUDE_ENV_FILE" {
					return ""
				}
				return a.getenv(k)
			}}
	}
	// cli runs a continuity command line; its result is its output, one line.
	cli := func(args ...string) func() (string, error) {
		return func() (string, error) {
			var out, errw bytes.Buffer
			err := runCLI(sub(nil, &out, &errw), args...)
			if err != nil {
				return "", fmt.Errorf("%v %s", err, errw.String())
			}
			// The ledger's path is said once, by new.
			res := strings.ReplaceAll(strings.TrimSpace(out.String()), " (thoughts/ledgers/CONTINUITY_auth-refactor.md)", "")
			return strings.ReplaceAll(res, "\n", "; "), nil
		}
	}
	steps := []struct {
		show string
		run  func() (string, error)
	}{
		{"continuity init", func() (string, error) {
			var out, errw bytes.Buffer
			if err := runInit(sub(nil, &out, &errw), setupOptions{Command: "continuity hook"}); err != nil {
				return "", err
			}
			return "registered the hooks (.claude/settings.json) and the ledger merge driver", nil
		}},
	}
	if hasGit {
		// What init registered is committed, as a team would.
		steps = append(steps, struct {
			show string
			run  func() (string, error)
		}{`git add .claude .gitattributes && git commit -m "Register continuity"`, func() (string, error) {
			if err := git("add", ".claude", ".gitattributes"); err != nil {
				return "", err
			}
			return "committed, as a team would", git("commit", "-q", "-m", "Register continuity")
		}})
	}
	goal := "Replace session cookies with short-lived JWTs"
	for _, args := range [][]string{
		{"new", "auth-refactor", "--goal", goal},
		{"now", "Token refresh endpoint"},
		{"next", "Logout endpoint", "Integration tests"},
		{"decide", "RS256, not HS256", "--why", "keys rotate per service"},
	} {
		steps = append(steps, struct {
			show string
			run  func() (string, error)
		}{shellLine(args), cli(args...)})
	}
	transcript := filepath.Join(tmp, "transcript.jsonl")
	data := bytes.ReplaceAll(demo.Transcript, []byte(demo.ProjectDir), []byte(root))
	steps = append(steps, struct {
		show string
		run  func() (string, error)
	}{"claude", func() (string, error) {
		err := safefile.Create(transcript, data, safefile.Options{LockDir: filepath.Join(tmp, "locks"), Root: tmp})
		return fmt.Sprintf("a session recorded from the real client: the agent writes the refresh endpoint in src/auth/token.go (%d KB transcript)", len(data)/1024), err
	}}, struct {
		show string
		run  func() (string, error)
	}{`continuity done "Token refresh endpoint"`, func() (string, error) {
		res, err := cli("done", "Token refresh endpoint")()
		return "run by the agent: " + res, err
	}})
	for _, st := range steps {
		res, err := st.run()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", st.show, err)
		}
		rep.Steps = append(rep.Steps, demoStep{st.show, res})
	}
	return rep, demoCompaction(rep, sub, root, transcript)
}

// demoCompaction runs the hooks Claude Code runs around /compact, then
// reads the ledger, the handoff and the injected context for the report.
func demoCompaction(rep *demoReport, sub func(in []byte, out, errw *bytes.Buffer) *app, root, transcript string) error {
	payload := func(fields map[string]string) []byte {
		m := map[string]string{"session_id": demo.SessionID, "transcript_path": transcript, "cwd": root}
		for k, v := range fields {
			m[k] = v
		}
		b, _ := json.Marshal(m)
		return b
	}
	p, err := sub(nil, nil, nil).project()
	if err != nil {
		return err
	}
	for _, ev := range []map[string]string{
		{"hook_event_name": "PreCompact", "trigger": "manual", "custom_instructions": ""},
		{"hook_event_name": "SessionStart", "source": "compact"},
		{"hook_event_name": "PostCompact", "trigger": "manual", "compact_summary": demo.CompactSummary},
	} {
		var out, errw bytes.Buffer
		runHook(sub(payload(ev), &out, &errw))
		if errw.Len() > 0 {
			return fmt.Errorf("hook %s: %s", ev["hook_event_name"], strings.TrimSpace(errw.String()))
		}
		var res string
		switch ev["hook_event_name"] {
		case "PreCompact":
			res = "wrote a handoff from the transcript"
		case "SessionStart":
			rep.SessionStart = json.RawMessage(bytes.TrimSpace(out.Bytes()))
			var o struct {
				HookSpecificOutput struct{ AdditionalContext string } `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal(out.Bytes(), &o); err != nil {
				return fmt.Errorf("hook SessionStart: %w", err)
			}
			rep.Context = o.HookSpecificOutput.AdditionalContext
			res = fmt.Sprintf("gave the model %d characters of context (below)", len([]rune(rep.Context)))
		case "PostCompact":
			res = "added the compaction summary to the handoff"
		}
		rep.Steps = append(rep.Steps, demoStep{"/compact (hook " + ev["hook_event_name"] + ")", res})
	}
	lpath, err := p.LedgerPath("auth-refactor")
	if err != nil {
		return err
	}
	src, err := os.ReadFile(lpath)
	if err != nil {
		return err
	}
	rep.Ledger = demoFile{p.Rel(lpath), string(src)}
	if h := latestHandoff(p, "auth-refactor"); h != "" {
		src, err := os.ReadFile(h)
		if err != nil {
			return err
		}
		rep.Handoff = demoFile{p.Rel(h), string(src)}
	}
	return nil
}

// shellLine quotes a continuity command line as a person would type it.
func shellLine(args []string) string {
	parts := []string{"continuity"}
	for _, a := range args {
		if strings.ContainsAny(a, " ,'\"") {
			a = `"` + a + `"`
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// runCLI runs one continuity command line inside another command (the demo).
func runCLI(a *app, args ...string) error {
	root := newRoot(a)
	root.SetArgs(args)
	root.SetOut(a.out)
	root.SetErr(a.errw)
	return root.Execute()
}
