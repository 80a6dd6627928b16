package e2e

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/e2e/mockapi"
)

const (
	workStream = "auth-refactor"
	goal       = "Replace session cookies with short-lived JWTs and refresh tokens"
	summary    = "Added the token refresh endpoint in src/auth/token.go (RS256). Next: the logout endpoint."
	tools      = "Write Edit Bash TaskCreate TaskUpdate"
)

// firstContexts returns the SessionStart contexts carried by the first model
// request of a run, failing when there is none.
func firstContexts(t *testing.T, s session) []string {
	t.Helper()
	reqs := modelRequests(s.Requests)
	if len(reqs) == 0 {
		t.Fatalf("session %s made no model request", s.ID)
	}
	ctx := injected(reqs[0].Body)
	if len(ctx) == 0 {
		t.Fatalf("session %s: no %q in the first request", s.ID, strings.TrimSpace(contextMarker))
	}
	return ctx
}

func anyContains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// handoffs returns the handoff files of the work stream, by name, and their text joined.
func (p *project) handoffs() (names []string, all string) {
	p.t.Helper()
	dir := filepath.Join(p.dir, "thoughts", "shared", "handoffs", workStream)
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		p.t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		names = append(names, e.Name())
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			p.t.Fatal(err)
		}
		b.Write(data)
		b.WriteString("\n")
	}
	sort.Strings(names)
	return names, b.String()
}

// logHookDurations logs our hook's client-measured durationMs per event.
func (p *project) logHookDurations(ids ...string) {
	p.t.Helper()
	for _, id := range ids {
		for _, r := range p.hookRuns(id) {
			p.t.Logf("hook %-22s session %.8s durationMs=%4.0f exit=%.0f stdout=%dB stderr=%q",
				r.Name, id, r.DurationMs, r.ExitCode, len(r.Stdout), r.Stderr)
		}
	}
}

// TestContinuityAcrossCompaction drives a work session (Write, Edit, Bash,
// TaskCreate, TaskUpdate), compacts it, resumes it, clears it and starts a
// fresh one, checking that the ledger reaches the model each time and that the
// handoffs record the work.
func TestContinuityAcrossCompaction(t *testing.T) {
	p := newProject(t)
	p.initContinuity(workStream, goal)
	token := filepath.Join(p.dir, "src", "auth", "token.go")

	// 1. Startup: the work.
	work := p.runClaude([]mockapi.Response{
		mockapi.Tool("TaskCreate", map[string]any{"subject": "Add token refresh endpoint",
			"description": "POST /v1/auth/refresh returns a new access token", "activeForm": "Adding token refresh endpoint"}),
		mockapi.Tool("TaskCreate", map[string]any{"subject": "Write logout endpoint",
			"description": "Revoke the refresh token", "activeForm": "Writing logout endpoint"}),
		mockapi.Tool("Write", map[string]any{"file_path": token,
			"content": "package auth\n\nfunc Refresh() error { return nil }\n"}),
		mockapi.Tool("Edit", map[string]any{"file_path": token,
			"old_string": "func Refresh() error { return nil }", "new_string": "func Refresh() error { return errNotYet }"}),
		mockapi.Tool("Bash", map[string]any{"command": "ls src/auth", "description": "List the auth package"}),
		mockapi.Tool("TaskUpdate", map[string]any{"taskId": "1", "status": "completed"}),
		mockapi.Text("The token refresh endpoint is in place."),
	}, "-p", "implement the token refresh endpoint", "--allowedTools", tools)
	if errs := p.toolErrors(work.ID); len(errs) > 0 {
		t.Fatalf("the scripted tool calls failed in the client: %v", errs)
	}
	if got := p.read("src/auth/token.go"); !strings.Contains(got, "errNotYet") {
		t.Fatalf("Write+Edit did not run: token.go = %q", got)
	}
	if ctx := firstContexts(t, work); !anyContains(ctx, goal) {
		t.Errorf("startup: the goal is not in the injected context:\n%s", strings.Join(ctx, "\n---\n"))
	}

	// 2. Compaction.
	p.api.SetSummary(summary)
	compact := p.runClaude(nil, "--resume", work.ID, "-p", "/compact keep the auth notes")
	if compact.ID != work.ID {
		t.Errorf("/compact changed the session id: %s -> %s", work.ID, compact.ID)
	}
	compacted := false
	for _, r := range compact.Requests {
		compacted = compacted || r.Compaction
	}
	if !compacted {
		t.Fatal("/compact sent no compaction request")
	}
	names, all := p.handoffs()
	t.Logf("handoffs after compaction: %v", names)
	if len(names) == 0 {
		t.Fatalf("no handoff under thoughts/shared/handoffs/%s", workStream)
	}
	for _, want := range []string{
		"src/auth/token.go",          // written and edited
		"Add token refresh endpoint", // tasks
		"Write logout endpoint",
		"Added the token refresh endpoint in src/auth/token.go (RS256)", // compaction summary
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no handoff holds %q; handoffs:\n%s", want, all)
		}
	}
	compactRan := false
	for _, r := range p.hookRuns(work.ID) {
		if r.Name == "SessionStart:compact" {
			compactRan = true
			if !strings.Contains(r.Stdout, goal) {
				t.Errorf("SessionStart(compact) output lacks the goal: %s", r.Stdout)
			}
		}
	}
	if !compactRan {
		t.Error("the transcript records no SessionStart:compact run of our hook")
	}

	// 3. Resume after compaction: the goal reaches the model again.
	resumed := p.runClaude([]mockapi.Response{mockapi.Text("Working on logout.")},
		"--resume", work.ID, "-p", "continue with the logout endpoint")
	if ctx := firstContexts(t, resumed); !anyContains(ctx, goal) {
		t.Errorf("after compaction: the goal is not in the injected context:\n%s", strings.Join(ctx, "\n---\n"))
	}
	if first := modelRequests(resumed.Requests)[0]; !strings.Contains(string(first.Body), "Added the token refresh endpoint") {
		t.Error("after compaction: the compaction summary is not in the first request")
	}

	// 4. /clear, then a fresh session.
	cleared := p.runClaude(nil, "--resume", work.ID, "-p", "/clear")
	if cleared.ID == work.ID {
		t.Errorf("/clear kept the session id %s", work.ID)
	}
	fresh := p.runClaude([]mockapi.Response{mockapi.Text("Next is the logout endpoint.")}, "-p", "what is next?")
	ctx := firstContexts(t, fresh)
	if !anyContains(ctx, goal) {
		t.Errorf("fresh session: the goal is not in the injected context:\n%s", strings.Join(ctx, "\n---\n"))
	}
	if !anyContains(ctx, "CONTINUITY_"+workStream+".md") {
		t.Errorf("fresh session: the injected context does not say where the ledger is:\n%s", strings.Join(ctx, "\n---\n"))
	}
	t.Logf("fresh session context (%d chars):\n%s", len(ctx[0]), ctx[0])

	p.logHookDurations(work.ID, cleared.ID, fresh.ID)
	for _, f := range []string{"pre-compact-manual.json", "post-compact-manual.json", "session-end-other.json"} {
		t.Logf("continuity hook < %s on session %.8s: %v (wall, run directly)", f, work.ID, p.timeHook(f, work.ID).Round(time.Millisecond))
	}
}

// TestBigLedgerStaysInline gives the ledger a notes body over 50 KB: what the
// SessionStart hook injects must still arrive inline (under the client's
// 10,000-character cliff) with the goal, now and next intact.
func TestBigLedgerStaysInline(t *testing.T) {
	p := newProject(t)
	p.initContinuity(workStream, goal)
	const now = "Logout endpoint revokes the refresh token"
	const next = "Integration tests for refresh and logout"
	p.run(p.bin, "now", now)
	p.run(p.bin, "next", next)

	ledgerPath := filepath.Join("thoughts", "ledgers", "CONTINUITY_"+workStream+".md")
	var notes strings.Builder
	notes.WriteString(p.read(ledgerPath))
	notes.WriteString("\n## Investigation log\n\n")
	for i := 0; notes.Len() < 52*1024; i++ {
		notes.WriteString("- Traced the cookie middleware through handler chain step; nothing unexpected in this hop.\n")
	}
	p.write(ledgerPath, notes.String())
	if fi, err := os.Stat(filepath.Join(p.dir, ledgerPath)); err != nil || fi.Size() < 50*1024 {
		t.Fatalf("ledger is not >= 50 KB: %v %v", fi, err)
	}

	s := p.runClaude([]mockapi.Response{mockapi.Text("On it.")}, "-p", "where were we?")
	for _, r := range s.Requests {
		for _, bad := range []string{"persisted-output", "Output too large"} {
			if strings.Contains(string(r.Body), bad) {
				t.Errorf("request %d holds %q: the injected context was cut by the client", r.N, bad)
			}
		}
	}
	ctx := firstContexts(t, s)
	for _, want := range []string{goal, now, next} {
		if !anyContains(ctx, want) {
			t.Errorf("the injected context lacks %q", want)
		}
	}
	for _, c := range ctx {
		t.Logf("injected %d chars", len(c))
	}
	p.logHookDurations(s.ID)
}
