package core

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/agent/claude"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/internal/transcript"
	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

var testNow = time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC)

// testHost is Claude Code under another name and limits, to show the core
// takes both from the host it is given.
type testHost struct {
	claude.Host
	name     string
	limits   agent.Limits
	exported []string
}

func (h *testHost) Name() string { return h.name }

// NewDecoder reads Claude Code transcripts and says the model and tokens
// are h's (the recorded transcript predates the reader's usage figures).
func (h *testHost) NewDecoder(root string, red func(string) string) transcript.Decoder {
	return usageDecoder{h.Host.NewDecoder(root, red)}
}

type usageDecoder struct{ transcript.Decoder }

func (d usageDecoder) Facts() *handoff.Facts {
	f := d.Decoder.Facts()
	f.Model, f.Tokens = "model-x", 153412
	return f
}
func (h *testHost) Limits() agent.Limits { return h.limits }
func (h *testHost) ExportLedger(getenv func(string) string, name string) (bool, error) {
	h.exported = append(h.exported, name)
	return true, nil
}

// repo is the kit's temporary git repository (testkit.New), opted in to
// continuity, with the project opened on it.
type repo struct {
	*testkit.Repo
	t   *testing.T
	dir string
	env map[string]string
	p   *workspace.Workspace
}

func (r *repo) getenv(k string) string { return r.env[k] }

func newRepo(t *testing.T) *repo {
	t.Helper()
	k := testkit.New(t, true)
	k.Env["CLAUDE_CONFIG_DIR"] = filepath.Join(k.Env["HOME"], "claude")
	r := &repo{Repo: k, t: t, dir: k.Dir, env: k.Env}
	r.reopen()
	return r
}

func (r *repo) git(args ...string) { r.t.Helper(); r.Git(args...) }

// reopen opens the project again (after a config change).
func (r *repo) reopen() {
	r.t.Helper()
	p, err := workspace.OpenWith(r.dir, r.getenv)
	if err != nil {
		r.t.Fatal(err)
	}
	r.p = p
}

func (r *repo) write(rel, content string) { r.t.Helper(); r.Write(rel, content) }

func (r *repo) read(rel string) string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(rel)))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

// transcript is the demo's transcript recorded from the real client, its
// paths moved into the repository.
func (r *repo) transcript() string {
	r.t.Helper()
	path := filepath.Join(r.transcriptDir(), SessionID+".jsonl")
	if err := os.WriteFile(path, bytes.ReplaceAll(Transcript, []byte(ProjectDir), []byte(r.dir)), 0o644); err != nil {
		r.t.Fatal(err)
	}
	return path
}

// transcriptDir is where Claude Code keeps the repository's transcripts
// in r's environment (created): the only place a hook reads one from.
func (r *repo) transcriptDir() string {
	r.t.Helper()
	dir := claude.Host{}.TranscriptDir(r.getenv, r.p.Root)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.t.Fatal(err)
	}
	return dir
}

func (r *repo) env0(h agent.Host) Env {
	if h == nil {
		h = claude.Host{}
	}
	return Env{Host: agent.Serve(h), Getenv: r.getenv, Now: testNow, Version: "test"}
}

const authLedger = `---
session: auth
goal: Replace session cookies with JWTs
done:
  - Token refresh endpoint
now: Logout endpoint
next:
  - Integration tests
decisions:
  - decision: RS256, not HS256
    why: keys rotate per service
files:
  - src/auth/token.go
---

# Notes
`

func (r *repo) ledger(name, src string) {
	r.write("thoughts/ledgers/CONTINUITY_"+name+".md", src)
}

func mustParse(t *testing.T, src string) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Parse("x.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func contains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s: missing %q in:\n%s", what, w, got)
		}
	}
}

func lacks(t *testing.T, what, got string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(got, w) {
			t.Errorf("%s: unexpected %q in:\n%s", what, w, got)
		}
	}
}
