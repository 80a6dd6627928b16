package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/redact"
	"github.com/continuity-md/continuity/internal/testkit"
)

// probes are pieces of a secret that must not appear anywhere once it is
// redacted: the whole of a short one, else three 12-character windows of its
// longest unbroken run (a leak cut short or joined onto one line still
// shows one of them).
func probes(c testkit.Entry) []string {
	run := ""
	for _, f := range strings.FieldsFunc(strings.ReplaceAll(c.Secret, `\n`, "\n"), func(r rune) bool { return r == '\n' || r == ' ' }) {
		if len(f) > len(run) {
			run = f
		}
	}
	if len(run) <= 16 {
		return []string{run}
	}
	return []string{run[:12], run[len(run)/2-6 : len(run)/2+6], run[len(run)-12:]}
}

// TestSecretsNeverWritten puts each fake secret of the corpus into a
// recorded transcript (a prompt, a Bash command, a failing tool's output,
// a task and the last assistant text), into a compaction summary and into
// CLI edits, runs the hooks and the commands, and checks that no file in
// the work tree and nothing injected holds any piece of it, while each
// handoff shows markers where the secret was.
func TestSecretsNeverWritten(t *testing.T) {
	bin := buildBinary(t)
	tpl := transcriptTemplate(t)
	e := newHEnv(t, bin, tpl)
	secrets := testkit.Sample(testkit.Corpus(t), 12)
	anchors := []string{
		`Add a token refresh endpoint, then logout`,     // the prompt
		`"command":"go test ./src/auth/...`,             // a Bash command
		`Exit code 1`,                                   // its failing output
		`"subject":"Token refresh endpoint`,             // a task
		`The refresh endpoint is in src/auth/token.go;`, // the last assistant text
	}
	for _, a := range anchors {
		if !bytes.Contains(tpl, []byte(a)) {
			t.Fatalf("the recorded transcript no longer has %q", a)
		}
	}
	seen := map[string]bool{}
	var outputs [][]byte // what SessionStart and context printed
	hook := func(pl []byte) []byte {
		stdout, stderr, code, _ := runBounded(t, e, e.repo, []string{"hook"}, pl, nil, 20*time.Second)
		if code != 0 || len(bytes.TrimSpace(stderr)) > 0 {
			t.Fatalf("hook: exit %d\n%s", code, stderr)
		}
		return stdout
	}
	cli := func(args ...string) []byte {
		stdout, stderr, code, _ := runBounded(t, e, e.repo, args, nil, nil, 20*time.Second)
		if code != 0 {
			t.Fatalf("continuity %s: exit %d\n%s", args[0], code, stderr)
		}
		return stdout
	}
	for i, c := range secrets {
		text := c.Text()
		tr := tpl
		for _, a := range anchors {
			tr = bytes.ReplaceAll(tr, []byte(a), []byte(a+testkit.JSONString(" "+text)))
		}
		tr = bytes.ReplaceAll(tr, []byte("/tmp/demo-rec/proj"), []byte(e.repo))
		path := filepath.Join(e.claudeDir, fmt.Sprintf("secret-%02d.jsonl", i))
		writeFile(t, path, tr, 0o644)
		id := fmt.Sprintf("secret-%02d", i)
		for k := range seen {
			seen[k] = true
		}
		hook(payload(e, "session_id", id, "transcript_path", path))
		hook(payload(e, "session_id", id, "transcript_path", path, "hook_event_name", "PostCompact",
			"compact_summary", "<summary>\nWorked on the auth service. "+text+"\n</summary>"))
		var fresh []string
		for _, h := range handoffs(t, e) {
			if _, ok := seen[h]; !ok {
				seen[h] = false
				fresh = append(fresh, h)
			}
		}
		if len(fresh) != 1 {
			t.Fatalf("%s: %d new handoffs, want 1", c.Name, len(fresh))
		}
		h := mustRead(t, fresh[0])
		// The secret reached every section it was put in, as a marker.
		if n := bytes.Count(h, []byte("[REDACTED:")); n < 4 {
			t.Errorf("%s: %d markers in %s, want one per place the secret was put:\n%s", c.Name, n, filepath.Base(fresh[0]), h)
		}
		cli("next", "rotate "+text)
		cli("decide", "Keep "+text+" out", "--why", "it was pasted: "+text)
		outputs = append(outputs, hook(payload(e, "session_id", id+"-start", "hook_event_name", "SessionStart", "source", "startup")))
		outputs = append(outputs, cli("context", "--source", "compact", "--session", id))
	}

	// Nothing anywhere in the work tree, and nothing injected.
	files := 0
	err := filepath.WalkDir(e.repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(e.repo, path)
		outputs = append(outputs, append([]byte(rel+":\n"), b...))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	leaks := 0
	for _, c := range secrets {
		for _, p := range probes(c) {
			for _, out := range outputs {
				if bytes.Contains(out, []byte(p)) {
					leaks++
					where, _, _ := bytes.Cut(out, []byte("\n"))
					t.Errorf("%s: %q found in %s", c.Name, p, where)
					for _, ln := range bytes.Split(out, []byte("\n")) {
						if bytes.Contains(ln, []byte(p)) {
							t.Logf("  line: %s", ln)
						}
					}
					break
				}
			}
		}
	}
	ledger := mustRead(t, e.ledger)
	if n := bytes.Count(ledger, []byte("[REDACTED:")); n < 2*len(secrets) {
		t.Errorf("%d markers in the ledger for %d secrets edited in twice each", n, len(secrets))
	}
	t.Logf("%d secrets, each in 5 transcript places, a compaction summary and 2 CLI edits; %d handoffs and %d files checked, %d leaks",
		len(secrets), len(seen), files, leaks)
}

// TestSecretIDsNeverNameFiles sends each self-evident fake secret as the
// session id (a payload field the tool turns into the name of a local
// state file) and checks that no file or directory name anywhere under the
// case's root, .git included, holds a piece of it.
func TestSecretIDsNeverNameFiles(t *testing.T) {
	bin := buildBinary(t)
	e := newHEnv(t, bin, transcriptTemplate(t))
	var ids []testkit.Entry
	for _, c := range testkit.Corpus(t) {
		// Only a secret that shows by itself: a UUID or a short password
		// is a fine session id once taken out of its KEY=.
		if len(c.Secret) <= 200 && strings.Trim(c.Secret, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == "" && redact.Contains(c.Secret) {
			ids = append(ids, c)
		}
	}
	if len(ids) < 30 {
		t.Fatalf("only %d token-shaped secrets in the corpus", len(ids))
	}
	ids = testkit.Sample(ids, 12)
	for _, c := range ids {
		for _, event := range []string{"PreCompact", "SessionEnd"} {
			_, stderr, code, _ := runBounded(t, e, e.repo, []string{"hook"}, payload(e, "session_id", c.Secret, "hook_event_name", event), nil, 20*time.Second)
			if code != 0 || len(bytes.TrimSpace(stderr)) > 0 {
				t.Fatalf("hook %s: exit %d\n%s", event, code, stderr)
			}
		}
	}
	names := 0
	err := filepath.WalkDir(e.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		names++
		for _, c := range ids {
			for _, p := range probes(c) {
				if strings.Contains(d.Name(), p) {
					t.Errorf("%s: %q names %s", c.Name, p, path)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d token-shaped session ids, %d names checked", len(ids), names)
}

// TestHandEditedSecretsNeverPrinted writes each fake secret into the
// ledger by hand (as a person or an agent editing the file would, outside
// the CLI that redacts what it writes) and runs SessionStart: nothing it
// prints, additionalContext, systemMessage or stderr, may hold a piece of
// the secret.
func TestHandEditedSecretsNeverPrinted(t *testing.T) {
	bin := buildBinary(t)
	e := newHEnv(t, bin, transcriptTemplate(t))
	secrets := testkit.Sample(testkit.Corpus(t), 12)
	leaks := 0
	for i, c := range secrets {
		text, err := json.Marshal(c.Text()) // a JSON string is a YAML double-quoted scalar
		if err != nil {
			t.Fatal(err)
		}
		ledger := fmt.Sprintf("---\nsession: x\ngoal: Harden the hooks\nconstraints: []\ndone: []\nnow: %s\nnext:\n  - %s\ndecisions: []\nquestions: []\nfiles: []\nupdated: 2026-11-22T14:05:09Z\n---\n\n# Notes\n\n%s\n", text, text, c.Text())
		writeFile(t, e.ledger, []byte(ledger), 0o644)
		stdout, stderr, code, _ := runBounded(t, e, e.repo, []string{"hook"},
			payload(e, "session_id", fmt.Sprintf("hand-%02d", i), "hook_event_name", "SessionStart", "source", "startup"), nil, 20*time.Second)
		if code != 0 {
			t.Fatalf("%s: hook exit %d\n%s", c.Name, code, stderr)
		}
		if !bytes.Contains(stdout, []byte("[REDACTED:")) {
			t.Errorf("%s: no marker in what SessionStart printed:\n%s", c.Name, stdout)
		}
		for _, p := range probes(c) {
			for what, out := range map[string][]byte{"stdout": stdout, "stderr": stderr} {
				if bytes.Contains(out, []byte(p)) {
					leaks++
					t.Errorf("%s: %q in SessionStart's %s:\n%s", c.Name, p, what, out)
				}
			}
		}
	}
	t.Logf("%d secrets edited into the ledger by hand, %d leaks", len(secrets), leaks)
}

// TestHandEditedSecretsNeverPrintedByCLI writes each fake secret into the
// ledger by hand and runs the commands that print a ledger's text (an
// agent runs them, and their output goes into its context): show, show
// --json, list --json, search, context. Nothing they print, on stdout or
// stderr, may hold a piece of the secret.
func TestHandEditedSecretsNeverPrintedByCLI(t *testing.T) {
	bin := buildBinary(t)
	e := newHEnv(t, bin, transcriptTemplate(t))
	secrets := testkit.Sample(testkit.Corpus(t), 12)
	leaks := 0
	for _, c := range secrets {
		text, err := json.Marshal(c.Text())
		if err != nil {
			t.Fatal(err)
		}
		ledger := fmt.Sprintf("---\nsession: x\ngoal: %s\nnow: %s\nnext:\n  - %s\n---\n\n# Notes\n\nmarker-word %s\n", text, text, text, c.Text())
		writeFile(t, e.ledger, []byte(ledger), 0o644)
		for _, args := range [][]string{{"show", "x"}, {"show", "x", "--json"}, {"list", "--json"}, {"search", "marker-word"}, {"context"}} {
			stdout, stderr, _, _ := runBounded(t, e, e.repo, args, nil, nil, 20*time.Second)
			for _, p := range probes(c) {
				for what, out := range map[string][]byte{"stdout": stdout, "stderr": stderr} {
					if bytes.Contains(out, []byte(p)) {
						leaks++
						t.Errorf("%s: %q in %v's %s:\n%s", c.Name, p, args, what, out)
					}
				}
			}
		}
	}
	t.Logf("%d secrets edited into the ledger by hand, 5 commands each, %d leaks", len(secrets), leaks)
}
