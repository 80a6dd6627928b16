package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/internal/testkit"
)

const indexSecret = "ghp_0123456789abcdefghijABCDEFGHIJ012345xy"

// plantTranscript copies a recorded transcript to dst, its cwd made dir.
func plantTranscript(t *testing.T, src, dst, oldCwd, dir string, edit func(string) string) {
	t.Helper()
	b := string(testkit.ReadFile(t, src))
	q, _ := json.Marshal(dir)
	b = strings.ReplaceAll(b, `"`+oldCwd+`"`, string(q))
	if edit != nil {
		b = edit(b)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestIndexEveryAgentsSessions plants recorded transcripts of four agents,
// for this repository and for a sibling one, and indexes: each of this
// repository's sessions is found once, the sibling's never, a second run
// reads nothing, no secret reaches the store, and a record outlives its
// transcript.
func TestIndexEveryAgentsSessions(t *testing.T) {
	base := testkit.TempDir(t)
	root := filepath.Join(base, "proj")
	other := filepath.Join(base, "proj-old") // its Claude Code folder's name starts like root's
	home := filepath.Join(base, "home")
	for _, d := range []string{root, other, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	env := map[string]string{"HOME": home, "USERPROFILE": home, "XDG_STATE_HOME": filepath.Join(base, "state"), "XDG_CONFIG_HOME": filepath.Join(base, "config")}
	getenv := func(k string) string { return env[k] }
	slug := func(d string) string {
		return strings.Map(func(c rune) rune {
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
				return c
			}
			return '-'
		}, d)
	}
	td := filepath.Join("..", "..")
	secret := func(s string) string {
		return strings.Replace(s, "Add the token refresh endpoint", "Add the token refresh endpoint GITHUB_TOKEN="+indexSecret, -1)
	}
	claudeT := filepath.Join(home, ".claude", "projects", slug(root), "7fb435c1-7033-4aa9-962f-957e346c19e6.jsonl")
	plantTranscript(t, filepath.Join(td, "testdata", "transcripts", "tools-and-compact.jsonl"), claudeT, "/tmp/rec1/proj", root, secret)
	plantTranscript(t, filepath.Join(td, "testdata", "transcripts", "tools-and-compact.jsonl"),
		filepath.Join(home, ".claude", "projects", slug(other), "11111111-7033-4aa9-962f-957e346c19e6.jsonl"), "/tmp/rec1/proj", other, nil)
	codex := filepath.Join(td, "internal", "agent", "codex", "testdata", "rollout-e2e.jsonl")
	plantTranscript(t, codex, filepath.Join(home, ".codex", "sessions", "2026", "11", "23", "rollout-2026-11-23T17-40-52-01a2097f-1480-7d02-a478-77bccbc14231.jsonl"), "/home/dev/sandbox/proj", root, nil)
	plantTranscript(t, codex, filepath.Join(home, ".codex", "sessions", "2026", "11", "24", "rollout-2026-11-24T17-40-52-other.jsonl"), "/home/dev/sandbox/proj", other,
		func(s string) string {
			return strings.ReplaceAll(s, "01a2097f-1480-7d02-a478-77bccbc14231", "02b2097f-1480-7d02-a478-77bccbc14231")
		})
	copilotT := filepath.Join(td, "internal", "agent", "copilot", "testdata", "copilot", "copilot-events.jsonl")
	plantTranscript(t, copilotT, filepath.Join(home, ".copilot", "session-state", "7ea0a04b-5a3d-42de-be09-0d61a195428c", "events.jsonl"), "/home/kim/src/proj", root, nil)
	plantTranscript(t, copilotT, filepath.Join(home, ".copilot", "session-state", "8ea0a04b-5a3d-42de-be09-0d61a195428c", "events.jsonl"), "/home/kim/src/proj", other, nil)
	droidT := filepath.Join(td, "internal", "agent", "droid", "testdata", "droid", "droid-session.jsonl")
	plantTranscript(t, droidT, filepath.Join(home, ".factory", "sessions", slug(root), "301bee31-44ec-4f34-b205-2953c66cf851.jsonl"), "/home/kim/src/proj", root, nil)
	plantTranscript(t, droidT, filepath.Join(home, ".factory", "sessions", slug(other), "401bee31-44ec-4f34-b205-2953c66cf851.jsonl"), "/home/kim/src/proj", other, nil)

	run := func() core.IndexResult {
		t.Helper()
		var out, errw bytes.Buffer
		a := &app{out: &out, errw: &errw, dir: root, getenv: getenv, now: func() time.Time { return time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC) }}
		r := newRoot(a)
		r.SetArgs([]string{"index", "--json"})
		if err := r.Execute(); err != nil {
			t.Fatalf("index: %v\n%s", err, errw.String())
		}
		var res core.IndexResult
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatalf("index --json: %v\n%s", err, out.String())
		}
		return res
	}
	res := run()
	want := map[string]int{"claude": 1, "codex": 1, "copilot": 1, "droid": 1}
	for n, c := range want {
		if res.PerAgent[n] != c {
			t.Errorf("%s: %d sessions found, want %d (%+v)", n, res.PerAgent[n], c, res)
		}
	}
	if res.Found != 4 || res.Read != 4 || res.Kept != 4 || len(res.Problems) > 0 {
		t.Fatalf("first run: %+v", res)
	}
	again := run()
	if again.Read != 0 || again.Unchanged != 4 {
		t.Errorf("second run read again: %+v", again)
	}
	err := filepath.Walk(res.Store, func(path string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && bytes.Contains(testkit.ReadFile(t, path), []byte(indexSecret)) {
			t.Errorf("the secret reached the store: %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	if err := os.Remove(claudeT); err != nil {
		t.Fatal(err)
	}
	after := run()
	if after.Found != 3 || after.Kept != 4 {
		t.Errorf("after the transcript's deletion: %+v, want 3 found and 4 kept", after)
	}
	var out, errw bytes.Buffer
	a := &app{out: &out, errw: &errw, dir: root, getenv: getenv, now: time.Now}
	p, err := a.project()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := core.FindSessionRecord(p, "7fb435c1")
	if err != nil || rec == nil {
		t.Fatalf("the deleted transcript's record: %v, %v", rec, err)
	}
	if !rec.Gone() || len(rec.Facts.Prompts) == 0 || !strings.Contains(strings.Join(rec.Facts.Prompts, "\n"), "token refresh endpoint") {
		t.Errorf("record after deletion: gone %v, prompts %q", rec.Gone(), rec.Facts.Prompts)
	}
}
