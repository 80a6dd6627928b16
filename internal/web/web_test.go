package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/internal/workspace"
)

const host = "127.0.0.1:7777"

var now = time.Date(2026, 11, 22, 17, 5, 9, 0, time.UTC)

// team writes a repository where three people with three agents worked on
// two streams, each handoff rendered by the embedded template.
func team(t *testing.T) *testkit.Repo {
	t.Helper()
	r := testkit.New(t, true)
	r.Write("thoughts/ledgers/CONTINUITY_auth.md", "---\nsession: auth\ngoal: Ship JWT auth\nnow: Logout endpoint\nnext:\n  - Integration tests\ndecisions:\n  - decision: RS256, not HS256\n    why: keys rotate per service\n    date: 2026-11-21\nupdated: 2026-11-22T14:05:09Z\n---\n\n# Notes\n\nRefresh tokens **rotate**.\n")
	for i, w := range []struct{ stream, author, agent, summary string }{
		{"auth", "Kim", "claude", "Wrote the refresh endpoint."},
		{"auth", "Ana Newcomer", "codex", "Logout revokes the refresh token."},
		{"billing", "Lee", "gemini", "Invoices render as PDF."},
	} {
		m := handoff.Meta{Stream: w.stream, Created: now.Add(time.Duration(i-3) * time.Hour), Event: "session-end",
			Agent: w.agent, Author: w.author, Branch: "feat/" + w.stream, AgentSession: "0123abcd-0000", Version: "test"}
		src, err := handoff.Render(&handoff.Handoff{Meta: m, Summary: w.summary}, "")
		if err != nil {
			t.Fatal(err)
		}
		r.Write("thoughts/shared/handoffs/"+w.stream+"/"+handoff.FileName(m.Created, m.Event, m.AgentSession), string(src))
	}
	return r
}

func serve(t *testing.T, r *testkit.Repo) http.Handler {
	t.Helper()
	p, err := workspace.OpenWith(r.Dir, r.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	return New(p, host, func() time.Time { return now }).Handler()
}

// get requests target of h as a browser at host would and returns the
// status and the body.
func get(h http.Handler, target string) (int, string) {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Host = host
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(body)
}

// TestPages: the timeline shows every handoff with who, which agent and
// which stream; a stream's page its ledger and handoffs; a handoff's page
// its sections; search its lines.
func TestPages(t *testing.T) {
	h := serve(t, team(t))
	code, body := get(h, "/")
	if code != 200 {
		t.Fatalf("timeline: %d %s", code, body)
	}
	for _, want := range []string{"Kim", "Ana Newcomer", "Lee", "agent-claude", "agent-codex", "agent-gemini", `href="/stream/billing"`, "Invoices render as PDF.", "2026-11-22 Sunday"} {
		if !strings.Contains(body, want) {
			t.Errorf("timeline lacks %q", want)
		}
	}
	if strings.Index(body, "Invoices") > strings.Index(body, "Wrote the refresh") {
		t.Error("timeline: not newest first")
	}
	if _, body := get(h, "/?agent=codex"); strings.Contains(body, "Kim") || !strings.Contains(body, "Ana Newcomer") {
		t.Error("timeline: the agent filter")
	}

	code, body = get(h, "/stream/auth")
	if code != 200 {
		t.Fatalf("stream: %d", code)
	}
	for _, want := range []string{"Ship JWT auth", "Logout endpoint", "RS256, not HS256", "<strong>rotate</strong>", "Wrote the refresh endpoint.", "Logout revokes"} {
		if !strings.Contains(body, want) {
			t.Errorf("stream page lacks %q", want)
		}
	}
	if strings.Contains(body, "Invoices") {
		t.Error("stream page shows another stream's handoff")
	}

	i := strings.Index(body, `href="/handoff/auth/`)
	if i < 0 {
		t.Fatal("stream page links no handoff")
	}
	link := body[i+6 : i+6+strings.IndexByte(body[i+6:], '"')]
	code, body = get(h, link)
	if code != 200 || !strings.Contains(body, "<h2>Summary</h2>") || !strings.Contains(body, "session-end") {
		t.Errorf("handoff page %s: %d\n%s", link, code, body)
	}

	if code, body = get(h, "/search?q=REFRESH+endpoint"); code != 200 || !strings.Contains(body, "Wrote the refresh endpoint.") || !strings.Contains(body, `href="/handoff/auth/`) {
		t.Errorf("search: %d\n%s", code, body)
	}
	if _, body = get(h, "/style.css"); !strings.Contains(body, "--claude") {
		t.Error("no stylesheet")
	}
}

// TestNotFound: unknown streams and handoffs, and paths that climb out of
// the handoff directory, are 404s that read nothing.
func TestNotFound(t *testing.T) {
	r := team(t)
	r.Write("secret.md", "---\nsession: x\n---\nTOP SECRET\n")
	h := serve(t, r)
	for _, target := range []string{"/stream/nosuch", "/stream/..", "/handoff/auth/nosuch.md", "/handoff/../../secret.md",
		"/handoff/auth/..%2f..%2f..%2fsecret.md", "/handoff/a/b/c.md", "/handoff/auth/x.txt", "/nosuch"} {
		code, body := get(h, target)
		// 307: the router's redirect to the cleaned path, which is a 404.
		if code != 404 && code != 307 || strings.Contains(body, "TOP SECRET") {
			t.Errorf("%s: %d %s", target, code, body)
		}
	}
}

// TestHostCheck: only requests addressed to the server's own host and
// port are answered (a rebound name, localhost or another port get 421),
// only GET and HEAD, and every answer forbids scripts and frames.
func TestHostCheck(t *testing.T) {
	h := serve(t, team(t))
	for _, hh := range []string{"attacker.example", "attacker.example:7777", "localhost:7777", "127.0.0.1:7778", "127.0.0.1", ""} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Host = hh
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusMisdirectedRequest || strings.Contains(rec.Body.String(), "Kim") {
			t.Errorf("Host %q: %d %s", hh, rec.Code, rec.Body.String())
		}
	}
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("x"))
	req.Host = host
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", rec.Code)
	}
	req = httptest.NewRequest(http.MethodGet, "/", nil)
	req.Host = host
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
		t.Errorf("CSP %q", csp)
	}
}

// TestUntrustedText: a committed handoff is untrusted: its HTML, its
// script links and its front matter are shown as text, on every page.
func TestUntrustedText(t *testing.T) {
	r := testkit.New(t, true)
	r.Write("thoughts/shared/handoffs/auth/2026-11-22T10-00-00Z_session-end_aaaaaaaa.md",
		"---\nsession: \"auth\"\ncreated: \"2026-11-22T10:00:00.000Z\"\nevent: \"session-end\"\nauthor: \"<b>Mallory</b>\"\nagent: \"x\\\" onmouseover=\\\"alert(1)\"\nbranch: \"<script>alert(2)</script>\"\n---\n\n## Summary\n\n<script>alert(3)</script> hello <img src=\"http://attacker.example/x.png\">\n\n[click](javascript:alert(4)) ![i](http://attacker.example/y.png)\n\n<iframe src=\"http://attacker.example\"></iframe>\n")
	h := serve(t, r)
	for _, target := range []string{"/", "/stream/auth", "/handoff/auth/2026-11-22T10-00-00Z_session-end_aaaaaaaa.md", "/search?q=hello", "/search?q=%3Cscript%3E"} {
		code, body := get(h, target)
		if code != 200 {
			t.Fatalf("%s: %d", target, code)
		}
		for _, bad := range []string{"<script>alert", "<b>Mallory", "javascript:alert", "<iframe", `<img src="http://attacker`, `" onmouseover="alert`} {
			if strings.Contains(body, bad) {
				t.Errorf("%s shows %q raw:\n%s", target, bad, body)
			}
		}
	}
	if _, body := get(h, "/"); !strings.Contains(body, "&lt;b&gt;Mallory&lt;/b&gt;") {
		t.Error("the author is not shown as text")
	}
	// Raw HTML is shown as the text it is, never dropped with what follows it.
	_, body := get(h, "/handoff/auth/2026-11-22T10-00-00Z_session-end_aaaaaaaa.md")
	for _, want := range []string{"&lt;script&gt;alert(3)&lt;/script&gt; hello", "&lt;iframe src="} {
		if !strings.Contains(body, want) {
			t.Errorf("the handoff page does not show %q as text:\n%s", want, body)
		}
	}
}

// TestRedacted: a secret edited into a ledger or a handoff is shown on no
// page, search included.
func TestRedacted(t *testing.T) {
	corpus := testkit.Corpus(t)
	r := testkit.New(t, true)
	var lines []string
	for _, e := range corpus {
		lines = append(lines, "- "+e.Text())
	}
	all := strings.Join(lines, "\n")
	r.Write("thoughts/ledgers/CONTINUITY_auth.md", "---\nsession: auth\ngoal: keys\n---\n\n# Notes\n\n"+all+"\n")
	r.Write("thoughts/shared/handoffs/auth/2026-11-22T10-00-00Z_session-end_aaaaaaaa.md",
		"---\nsession: \"auth\"\ncreated: \"2026-11-22T10:00:00.000Z\"\nevent: \"session-end\"\n---\n\n## Summary\n\n"+corpus[0].Text()+"\n\n## Notes\n\n"+all+"\n")
	h := serve(t, r)
	pages := []string{"/", "/stream/auth", "/handoff/auth/2026-11-22T10-00-00Z_session-end_aaaaaaaa.md"}
	for _, e := range corpus {
		pages = append(pages, "/search?q="+url.QueryEscape(e.Secret[:len(e.Secret)/2]))
	}
	for _, target := range pages {
		_, body := get(h, target)
		for _, e := range corpus {
			if strings.Contains(body, e.Secret) {
				t.Errorf("%s shows the secret %s", target, e.Name)
			}
		}
	}
}
