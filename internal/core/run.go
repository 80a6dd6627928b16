package core

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
)

// CLI runs one continuity command line in dir, with the environment getenv
// and stdin, and returns what it printed.
type CLI func(dir string, getenv func(string) string, stdin []byte, args ...string) (stdout, stderr []byte, err error)

// DemoOptions say how the demo runs.
type DemoOptions struct {
	Host   agent.Host
	Sample agent.Sample
	Getenv func(string) string // the person's environment
	Run    CLI
	Keep   bool // keep the temporary repository
}

// Step is one thing the demo did and what came of it, in one line.
type Step struct {
	Command string `json:"command"`
	Result  string `json:"result"`
	Prompt  string `json:"-"` // "$" for a shell command, else the host's prompt
}

// File is a file the demo shows.
type File struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

// DemoReport is what the demo did and shows (its --json output).
type DemoReport struct {
	Repository  string          `json:"repository"`
	Kept        bool            `json:"kept"`
	Steps       []Step          `json:"steps"`
	Ledger      File            `json:"ledger"`
	Handoff     File            `json:"handoff"`
	Context     string          `json:"context"`       // what the model reads after compaction
	StartOutput json.RawMessage `json:"session_start"` // the start hook's whole output
}

// stream is the demo's work stream.
const stream = "auth-refactor"

// Demo plays the whole loop in a temporary git repository: init, a ledger and
// a few edits, the recorded session, the hooks around a compaction. The
// repository is removed at the end unless o.Keep.
func Demo(o DemoOptions) (*DemoReport, error) {
	tmp, err := os.MkdirTemp("", "continuity-demo-")
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	root := filepath.Join(tmp, "proj")
	if !o.Keep {
		defer os.RemoveAll(tmp)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	rep, err := play(o, tmp, root)
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	rep.Kept = o.Keep
	return rep, nil
}

// play runs the demo's steps in the repository root and collects what it
// shows.
func play(o DemoOptions, tmp, root string) (*DemoReport, error) {
	rep := &DemoReport{Repository: root}
	git := func(args ...string) error {
		_, err := gitfacts.Git{Repo: gitfacts.Repo{Root: root}, Timeout: 10 * gitfacts.DefaultTimeout}.Run(context.Background(), args...)
		return err
	}
	hasGit := git("init", "-q", "-b", "feature/"+stream) == nil
	if hasGit {
		for _, args := range [][]string{
			{"-c", "user.name=Kim", "-c", "user.email=kim@example.com", "commit", "-q", "--allow-empty", "-m", "start"},
			{"config", "user.name", "Kim"},
			{"config", "user.email", "kim@example.com"}, // a fresh machine may have no identity git can guess
		} {
			if err := git(args...); err != nil {
				return nil, err
			}
		}
	}
	// The demo's commands run in the temporary repository with a clean
	// environment: the person's own CONTINUITY_* settings do not apply.
	// The client's own files (its transcripts) live in the demo's directory.
	home := map[string]string{}
	for _, kv := range o.Sample.Home(filepath.Join(tmp, "agent")) {
		k, v, _ := strings.Cut(kv, "=")
		home[k] = v
	}
	getenv := func(k string) string {
		if v, ok := home[k]; ok {
			return v
		}
		if strings.HasPrefix(k, "CONTINUITY_") || o.Sample.Private(k) {
			return ""
		}
		return o.Getenv(k)
	}
	// cli runs a continuity command line; its result is its output, one line.
	cli := func(args ...string) func() (string, error) {
		return func() (string, error) {
			out, errw, err := o.Run(root, getenv, nil, args...)
			if err != nil {
				return "", fmt.Errorf("%v %s", err, errw)
			}
			// The ledger's path is said once, by new.
			res := strings.ReplaceAll(strings.TrimSpace(string(out)), " (thoughts/ledgers/CONTINUITY_"+stream+".md)", "")
			return strings.ReplaceAll(res, "\n", "; "), nil
		}
	}
	settings, err := o.Host.SettingsPath(getenv, root, agent.Project)
	if err != nil {
		return nil, err
	}
	settings, _ = filepath.Rel(root, settings)
	type step struct {
		show string
		run  func() (string, error)
	}
	steps := []step{{"continuity init", func() (string, error) {
		_, err := cli("init", "--agent", o.Host.Name(), "--command", "continuity hook")()
		return "registered the hooks (" + settings + ") and the ledger merge driver", err
	}}}
	if hasGit {
		// What init registered is committed, as a team would.
		dir := filepath.Dir(settings)
		steps = append(steps, step{`git add ` + dir + ` .gitattributes && git commit -m "Register continuity"`, func() (string, error) {
			if err := git("add", dir, ".gitattributes"); err != nil {
				return "", err
			}
			return "committed, as a team would", git("commit", "-q", "-m", "Register continuity")
		}})
	}
	for _, args := range [][]string{
		{"new", stream, "--goal", "Replace session cookies with short-lived JWTs"},
		{"now", "Token refresh endpoint"},
		{"next", "Logout endpoint", "Integration tests"},
		{"decide", "RS256, not HS256", "--why", "keys rotate per service"},
	} {
		steps = append(steps, step{ShellLine(args), cli(args...)})
	}
	// The transcript is where the client keeps it: the only place a hook
	// reads one from.
	resolved, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	tdir := o.Host.TranscriptDir(getenv, resolved)
	if tdir == "" {
		return nil, fmt.Errorf("%s keeps no transcripts the demo can play", o.Host.Title())
	}
	transcript := filepath.Join(tdir, SessionID+".jsonl")
	data := bytes.ReplaceAll(Transcript, []byte(ProjectDir), []byte(root))
	steps = append(steps, step{o.Sample.Start(), func() (string, error) {
		if err := safefile.MkdirAll(tdir, tmp, 0o755); err != nil {
			return "", err
		}
		err := safefile.Create(transcript, data, safefile.Options{LockDir: filepath.Join(tmp, "locks"), Root: tmp})
		return fmt.Sprintf("a session recorded from the real client: the agent writes the refresh endpoint in src/auth/token.go (%d KB transcript)", len(data)/1024), err
	}}, step{`continuity done "Token refresh endpoint"`, func() (string, error) {
		res, err := cli("done", "Token refresh endpoint")()
		return "run by the agent: " + res, err
	}})
	for _, st := range steps {
		res, err := st.run()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", st.show, err)
		}
		rep.Steps = append(rep.Steps, Step{st.show, res, "$"})
	}
	return rep, compaction(o, rep, getenv, root, transcript)
}

// compaction runs the hooks the host runs around a compaction, then reads
// the ledger, the handoff and the injected context for the report.
func compaction(o DemoOptions, rep *DemoReport, getenv func(string) string, root, transcript string) error {
	p, err := workspace.OpenWith(root, getenv)
	if err != nil {
		return err
	}
	for _, payload := range o.Sample.Compaction(SessionID, transcript, root, CompactSummary) {
		ev, err := o.Host.Decode(payload)
		if err != nil {
			return err
		}
		out, errw, _ := o.Run(root, getenv, payload, "hook", "--agent", o.Host.Name())
		if len(errw) > 0 {
			return fmt.Errorf("hook %s: %s", ev.Name, strings.TrimSpace(string(errw)))
		}
		var res string
		switch ev.Kind {
		case agent.BeforeCompact:
			res = "wrote a handoff from the transcript"
		case agent.Start:
			rep.StartOutput = json.RawMessage(bytes.TrimSpace(out))
			if rep.Context, err = o.Sample.Context(out); err != nil {
				return err
			}
			res = fmt.Sprintf("gave the model %d characters of context (below)", len([]rune(rep.Context)))
		case agent.AfterCompact:
			res = "added the compaction summary to the handoff"
		}
		rep.Steps = append(rep.Steps, Step{"/compact (hook " + ev.Name + ")", res, o.Sample.Typed()})
	}
	lpath, err := p.LedgerPath(stream)
	if err != nil {
		return err
	}
	src, err := os.ReadFile(lpath)
	if err != nil {
		return err
	}
	rep.Ledger = File{p.Rel(lpath), string(src)}
	if h, err := p.LatestHandoff(stream, time.Now()); err == nil && h != "" {
		src, err := os.ReadFile(h)
		if err != nil {
			return err
		}
		rep.Handoff = File{p.Rel(h), string(src)}
	}
	return nil
}

// ShellLine quotes a continuity command line as a person would type it.
func ShellLine(args []string) string {
	parts := []string{"continuity"}
	for _, a := range args {
		if strings.ContainsAny(a, " ,'\"") {
			a = `"` + a + `"`
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}
