package e2e

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

const (
	workStream = "auth-refactor"
	goal       = "Replace session cookies with short-lived JWTs and refresh tokens"
	summary    = "Added the token refresh endpoint in src/auth/token.go (RS256). Next: the logout endpoint."
	tools      = "Write Edit Bash TaskCreate TaskUpdate"
	ledgerNow  = "Wiring the refresh endpoint into the router"
	ledgerNext = "Write the logout endpoint"

	// A teammate's handoff, newer by name than anything the test writes: the
	// compact injection must name this session's own PreCompact handoff.
	decoyHandoff = "2099-01-01T00-00-00Z_session-end_teammate.md"
	decoySummary = "Teammate's unrelated work on billing exports."
	decoyText    = "---\nsession: \"" + workStream + "\"\ncreated: \"2099-01-01T00:00:00Z\"\nevent: \"session-end\"\n" +
		"reason: \"other\"\nagent_session: \"00000000-0000-4000-8000-000000000000\"\nauthor: \"Teammate\"\n---\n\n" +
		"# Handoff: " + workStream + "\n\n## Summary\n\n" + decoySummary + "\n"
)

// firstContexts returns the additionalContexts our hook printed (as the
// transcripts of sessions record them) that reached the model verbatim in the
// first model request of run s. It fails when none did.
func (p *project) firstContexts(s session, ids ...string) []string {
	p.t.Helper()
	reqs := modelRequests(s.Requests)
	if len(reqs) == 0 {
		p.t.Fatalf("session %s made no model request", s.ID)
	}
	var printed []string
	for _, id := range ids {
		for _, r := range p.hookRuns(id) {
			if c := additionalContext(r.Stdout); c != "" {
				printed = append(printed, c)
			}
		}
	}
	sent := texts(reqs[0].Body)
	var out []string
	for _, c := range printed {
		if anyContains(sent, contextMarker+c) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		raw := strings.Join(injected(reqs[0].Body), "\n---\n")
		if len(raw) > 2000 {
			raw = raw[:2000] + "…"
		}
		p.t.Fatalf("session %s: none of our hook's %d contexts reached the first request verbatim; after the marker it holds:\n%s",
			s.ID, len(printed), raw)
	}
	return out
}

// sourceContext returns the additionalContext our hook printed on its
// SessionStart run with the given source in session id (as the transcript
// records it) that reached the model verbatim in request r. It fails when
// the hook did not run with that source or none of its outputs is in r.
func (p *project) sourceContext(r AnthropicRequest, id, source string) string {
	p.t.Helper()
	var printed []string
	for _, run := range p.hookRuns(id) {
		if run.Name != "SessionStart:"+source {
			continue
		}
		if c := additionalContext(run.Stdout); c != "" {
			printed = append(printed, c)
		}
	}
	if len(printed) == 0 {
		p.t.Fatalf("session %.8s: the transcript records no SessionStart:%s run of our hook with a context", id, source)
	}
	sent := texts(r.Body)
	for _, c := range printed {
		if anyContains(sent, contextMarker+c) {
			return c
		}
	}
	var heads []string
	for _, c := range injected(r.Body) {
		heads = append(heads, strings.SplitN(c, "\n", 2)[0])
	}
	p.t.Fatalf("session %.8s: request %d does not carry our SessionStart:%s context (%d printed); its injected contexts begin:\n%s",
		id, r.N, source, len(printed), strings.Join(heads, "\n"))
	return ""
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

// handoff returns the sections ("## Heading" → body) of the last handoff whose
// name contains kind, failing when there is none.
func (p *project) handoff(names []string, kind string) map[string]string {
	p.t.Helper()
	name := ""
	for _, n := range names {
		if strings.Contains(n, kind) {
			name = n
		}
	}
	if name == "" {
		p.t.Fatalf("no %s handoff among %v", strings.Trim(kind, "_"), names)
	}
	text := p.read(filepath.Join("thoughts", "shared", "handoffs", workStream, name))
	sections := map[string]string{}
	for _, part := range strings.Split(text, "\n## ")[1:] {
		heading, body, _ := strings.Cut(part, "\n")
		sections[strings.TrimSpace(heading)] = body
	}
	return sections
}

// logHookDurations logs our hook's client-measured durationMs per event.
func (p *project) logHookDurations(ids ...string) {
	p.t.Helper()
	for _, id := range ids {
		for _, r := range p.hookRuns(id) {
			if os.Getenv("E2E_DEBUG") != "" {
				p.t.Logf("%s stdout: %s", r.Name, r.Stdout)
			}
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
	p.run(p.bin, "now", ledgerNow)
	p.run(p.bin, "next", ledgerNext)
	token := filepath.Join(p.dir, "src", "auth", "token.go")

	// 1. Startup: the work.
	work := p.runClaude([]AnthropicResponse{
		AnthropicTool("TaskCreate", map[string]any{"subject": "Add token refresh endpoint",
			"description": "POST /v1/auth/refresh returns a new access token", "activeForm": "Adding token refresh endpoint"}),
		AnthropicTool("TaskCreate", map[string]any{"subject": "Write logout endpoint",
			"description": "Revoke the refresh token", "activeForm": "Writing logout endpoint"}),
		AnthropicTool("Write", map[string]any{"file_path": token,
			"content": "package auth\n\nfunc Refresh() error { return nil }\n"}),
		AnthropicTool("Edit", map[string]any{"file_path": token,
			"old_string": "func Refresh() error { return nil }", "new_string": "func Refresh() error { return errNotYet }"}),
		AnthropicTool("Bash", map[string]any{"command": "ls src/auth", "description": "List the auth package"}),
		AnthropicTool("TaskUpdate", map[string]any{"taskId": "1", "status": "completed"}),
		AnthropicText("The token refresh endpoint is in place."),
	}, "-p", "implement the token refresh endpoint", "--allowedTools", tools)
	if errs := p.toolErrors(work.ID); len(errs) > 0 {
		t.Fatalf("the scripted tool calls failed in the client: %v", errs)
	}
	if got := p.read("src/auth/token.go"); !strings.Contains(got, "errNotYet") {
		t.Fatalf("Write+Edit did not run: token.go = %q", got)
	}
	if ctx := p.firstContexts(work, work.ID); !anyContains(ctx, goal) {
		t.Errorf("startup: the goal is not in the injected context:\n%s", strings.Join(ctx, "\n---\n"))
	}

	// 2. Compaction, then a prompt, in ONE client process (stream-json on
	// stdin): the request after the compaction request must carry what
	// SessionStart(compact) injected, naming the handoff PreCompact wrote for
	// this session. A teammate's newer handoff in the same directory must not
	// be taken for it.
	handoffDir := filepath.Join("thoughts", "shared", "handoffs", workStream)
	p.write(filepath.Join(handoffDir, decoyHandoff), decoyText)
	p.api.SetSummary(summary)
	cs := p.runClaudeStream([]AnthropicResponse{AnthropicText("Working on logout.")},
		[]string{"/compact keep the auth notes", "continue with the logout endpoint"}, "--resume", work.ID)
	if cs.ID != work.ID {
		t.Errorf("/compact changed the session id: %s -> %s", work.ID, cs.ID)
	}
	after := afterCompaction(t, cs.Turns[0].Requests, cs.Turns[1].Requests)
	prePath := p.preCompactHandoff(work.ID, summary)
	names, all := p.handoffs()
	t.Logf("handoffs after compaction: %v", names)
	for _, want := range []string{"src/auth/token.go", "Add token refresh endpoint", "Write logout endpoint", summary} {
		if !strings.Contains(all, want) {
			t.Errorf("no handoff holds %q; handoffs:\n%s", want, all)
		}
	}
	pre := p.handoff([]string{filepath.Base(prePath)}, "_pre-compact_")
	for _, c := range []struct{ section, want string }{
		{"Summary", summary},
		{"Files touched", "src/auth/token.go"},
		{"Done", "Add token refresh endpoint"}, // TaskUpdate completed task #1
		{"Next", "Write logout endpoint"},      // task #2 is still pending
		{"Goal", goal},
	} {
		if !strings.Contains(pre[c.section], c.want) {
			t.Errorf("pre-compact handoff, section %q lacks %q; sections: %q", c.section, c.want, pre)
		}
	}

	p.checkCompactContext(after, work.ID, prePath, summary)
	if cs.Turns[1].Result != "Working on logout." {
		t.Errorf("the prompt after /compact got %q, want the scripted reply", cs.Turns[1].Result)
	}
	if err := os.Remove(filepath.Join(p.dir, handoffDir, decoyHandoff)); err != nil {
		t.Fatal(err)
	}

	// 3. Resume after compaction: the goal reaches the model again.
	resumed := p.runClaude([]AnthropicResponse{AnthropicText("Working on logout.")},
		"--resume", work.ID, "-p", "continue with the logout endpoint")
	if ctx := p.firstContexts(resumed, work.ID); !anyContains(ctx, goal) {
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
	// The session /clear started did nothing: its SessionEnd has nothing new to hand off.
	if names, _ := p.handoffs(); anyContains(names, "_"+cleared.ID[:8]+".md") {
		t.Errorf("the empty session after /clear wrote a handoff: %v", names)
	}
	fresh := p.runClaude([]AnthropicResponse{AnthropicText("Next is the logout endpoint.")}, "-p", "what is next?")
	ctx := p.firstContexts(fresh, fresh.ID)
	if !anyContains(ctx, goal) {
		t.Errorf("fresh session: the goal is not in the injected context:\n%s", strings.Join(ctx, "\n---\n"))
	}
	if !anyContains(ctx, summary) {
		t.Errorf("fresh session: the latest handoff's summary is not in the injected context:\n%s", strings.Join(ctx, "\n---\n"))
	}
	if !anyContains(ctx, "CONTINUITY_"+workStream+".md") {
		t.Errorf("fresh session: the injected context does not say where the ledger is:\n%s", strings.Join(ctx, "\n---\n"))
	}

	p.logHookDurations(work.ID, cleared.ID, fresh.ID)
	for _, f := range []string{"pre-compact-manual.json", "post-compact-manual.json", "session-end-other.json"} {
		t.Logf("continuity hook < %s on session %.8s: %v (wall, run directly)", f, work.ID, p.timeHook(f, work.ID).Round(time.Millisecond))
	}
}

// afterCompaction returns the first model request after the compaction
// request, which must be among the requests of the compacting turn; the
// request after it may come later in that turn or in the next one.
func afterCompaction(t *testing.T, compacting, next []AnthropicRequest) AnthropicRequest {
	t.Helper()
	at := -1
	for i, r := range compacting {
		if r.Compaction {
			at = i
			break
		}
	}
	if at < 0 {
		t.Fatalf("no compaction request among the %d requests of the compacting turn", len(compacting))
	}
	rest := append(append([]AnthropicRequest(nil), compacting[at+1:]...), next...)
	after := modelRequests(rest)
	if len(after) == 0 {
		t.Fatal("no model request after the compaction request: the prompt after compaction never reached the API")
	}
	return after[0]
}

// preCompactHandoff returns the path, relative to the repository, of the one
// handoff PreCompact wrote for session id, checking that it is a file in the
// work stream's handoff directory and that PostCompact put the compaction
// summary into it.
func (p *project) preCompactHandoff(id, summary string) string {
	p.t.Helper()
	names, _ := p.handoffs()
	var name string
	for _, n := range names {
		if strings.HasSuffix(n, "_pre-compact_"+id[:8]+".md") {
			if name != "" {
				p.t.Fatalf("two pre-compact handoffs of session %.8s: %v", id, names)
			}
			name = n
		}
	}
	if name == "" {
		p.t.Fatalf("no pre-compact handoff of session %.8s under thoughts/shared/handoffs/%s: %v", id, workStream, names)
	}
	rel := "thoughts/shared/handoffs/" + workStream + "/" + name
	if fi, err := os.Stat(filepath.Join(p.dir, filepath.FromSlash(rel))); err != nil || !fi.Mode().IsRegular() {
		p.t.Fatalf("pre-compact handoff %s: %v", rel, err)
	}
	if text := p.read(rel); !strings.Contains(text, summary) {
		p.t.Errorf("PostCompact did not put the compaction summary into %s:\n%s", rel, text)
	}
	return rel
}

// checkCompactContext checks what the model got in request r, the first
// after a compaction of session id: our hook's SessionStart(compact) output,
// verbatim, saying so, with the ledger's goal, now and next, naming the
// handoff PreCompact wrote for this session (prePath), not the decoy; and
// the client's own compaction summary. It returns the context.
func (p *project) checkCompactContext(r AnthropicRequest, id, prePath, summary string) string {
	p.t.Helper()
	ctx := p.sourceContext(r, id, "compact")
	for _, want := range []string{
		"restored at session start (compact)",
		"Goal: " + goal,
		"Now: " + ledgerNow,
		"Next:\n- " + ledgerNext,
		prePath + " (latest handoff)",
	} {
		if !strings.Contains(ctx, want) {
			p.t.Errorf("the context after compaction lacks %q:\n%s", want, ctx)
		}
	}
	for _, bad := range []string{decoyHandoff, decoySummary} {
		if strings.Contains(ctx, bad) {
			p.t.Errorf("the context after compaction holds the teammate's newer handoff (%q), not this session's:\n%s", bad, ctx)
		}
	}
	if !anyContains(texts(r.Body), summary) {
		p.t.Errorf("request %d, the first after compaction, does not carry the compaction summary", r.N)
	}
	return ctx
}

// autoCompactTokens is a prompt size that makes the pinned client compact by
// itself before its next request: its model's window is 1,000,000 tokens;
// 990,000 compacts, 960,000 does not (measured).
const autoCompactTokens = 990000

// TestAutoCompaction lets the client compact on its own: the stand-in API
// reports a prompt near the context window, so before the next prompt's
// request the client compacts with trigger "auto". PreCompact must write this
// session's handoff (trigger auto, completed by PostCompact), and the request
// after the compaction must carry our SessionStart(compact) context naming it.
func TestAutoCompaction(t *testing.T) {
	p := newProject(t)
	p.initContinuity(workStream, goal)
	p.run(p.bin, "now", ledgerNow)
	p.run(p.bin, "next", ledgerNext)
	work := p.runClaude([]AnthropicResponse{AnthropicText("The refresh route goes in the auth router.")},
		"-p", "where does the refresh route go?")
	p.write(filepath.Join("thoughts", "shared", "handoffs", workStream, decoyHandoff), decoyText)

	const autoSummary = "Wired POST /v1/auth/refresh into the auth router; the logout endpoint is next."
	p.api.SetSummary(autoSummary)
	s := p.runClaudeStream([]AnthropicResponse{
		{Text: "The auth router is read.", InputTokens: autoCompactTokens},
		AnthropicText("Wiring the refresh route."),
	}, []string{"read the auth router", "wire the refresh route"}, "--resume", work.ID)
	if s.ID != work.ID {
		t.Errorf("auto-compaction changed the session id: %s -> %s", work.ID, s.ID)
	}
	for _, r := range s.Turns[0].Requests {
		if r.Compaction {
			t.Fatalf("request %d compacted before the large prompt size was reported", r.N)
		}
	}
	auto := false
	for _, ev := range s.Events {
		meta, _ := ev["compact_metadata"].(map[string]any)
		auto = auto || ev["subtype"] == "compact_boundary" && meta["trigger"] == "auto"
	}
	if !auto {
		t.Fatal("the client printed no compact_boundary event with trigger auto: it did not compact by itself")
	}
	after := afterCompaction(t, s.Turns[1].Requests, nil)
	prePath := p.preCompactHandoff(work.ID, autoSummary)
	if text := p.read(prePath); !strings.Contains(text, "trigger: \"auto\"") {
		t.Errorf("the pre-compact handoff does not record trigger auto:\n%s", text)
	}
	p.checkCompactContext(after, work.ID, prePath, autoSummary)
	if s.Turns[1].Result != "Wiring the refresh route." {
		t.Errorf("the prompt after the auto-compaction got %q, want the scripted reply", s.Turns[1].Result)
	}
	p.logHookDurations(work.ID)
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

	s := p.runClaude([]AnthropicResponse{AnthropicText("On it.")}, "-p", "where were we?")
	for _, r := range s.Requests {
		for _, bad := range []string{"persisted-output", "Output too large"} {
			if strings.Contains(string(r.Body), bad) {
				t.Errorf("request %d holds %q: the injected context was cut by the client", r.N, bad)
			}
		}
	}
	ctx := p.firstContexts(s, s.ID)
	for _, want := range []string{goal, now, next} {
		if !anyContains(ctx, want) {
			t.Errorf("the injected context lacks %q", want)
		}
	}
	for _, c := range ctx {
		t.Logf("injected %d chars", len([]rune(c)))
		if n := len([]rune(c)); n >= 10000 {
			t.Errorf("injected %d characters, over the client's 10,000-character cliff", n)
		}
	}
	p.logHookDurations(s.ID)
}
