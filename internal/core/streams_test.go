package core

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/ledger"
)

var now = time.Date(2026, 11, 22, 17, 5, 9, 0, time.UTC)

const ledgerSrc = "---\nsession: auth\ngoal: Ship JWT auth\nnow: Refresh endpoint\nnext:\n  - Logout endpoint\n  - Tests\nupdated: 2026-11-22T14:05:09Z\n---\n\n# Notes\nrefresh tokens rotate\n"

// handoffFile writes a handoff of stream at created, by author, with tokens
// in its front matter when > 0, and returns its path relative to the root.
func handoffFile(r *testkit.Repo, stream string, created time.Time, author string, tokens int) string {
	rel := fmt.Sprintf("thoughts/shared/handoffs/%s/%s_pre-compact_abcdef12.md", stream, created.UTC().Format("2006-01-02T15-04-05Z"))
	fm := fmt.Sprintf("---\nsession: %s\ncreated: %s\nevent: pre-compact\nauthor: %s\nbranch: main\n", stream, created.UTC().Format(time.RFC3339), author)
	if tokens > 0 {
		fm += fmt.Sprintf("model: model-x\ntokens: %d\n", tokens)
	}
	r.Write(rel, fm+"---\n\n## Summary\n\nWrote the refresh endpoint.\n")
	return rel
}

// TestListContextSize: list reads each work stream's ledger and recent
// handoffs, newest first, with the context size the handoff recorded (and
// none when it recorded none).
func TestListContextSize(t *testing.T) {
	r := testkit.New(t, true)
	r.Write("thoughts/ledgers/CONTINUITY_auth.md", ledgerSrc)
	handoffFile(r, "auth", now.Add(-5*time.Hour), "Kim", 0)
	latest := handoffFile(r, "auth", now.Add(-3*time.Hour), "Ana Newcomer", 153412)
	handoffFile(r, "billing", now.Add(-time.Hour), "Kim", 0)
	entries := List(openProject(r), "auth", 10, now)
	if len(entries) != 2 || entries[0].Stream != "auth" || !entries[0].Active || entries[1].Path != "" {
		t.Fatalf("entries %+v", entries)
	}
	e := entries[0]
	if e.Goal != "Ship JWT auth" || e.Handoffs != 2 || len(e.Recent) != 2 || strings.Join(e.Authors, ",") != "Ana Newcomer,Kim" {
		t.Errorf("auth: %+v", e)
	}
	if e.Latest == nil || e.Latest.Path != latest || e.Latest.Tokens != 153412 || e.Latest.Model != "model-x" {
		t.Fatalf("latest %+v", e.Latest)
	}
	if got := ContextSize(e.Latest.Tokens); got != "handed off at 153k tokens" {
		t.Errorf("ContextSize = %q", got)
	}
	if e.Recent[1].Tokens != 0 || ContextSize(e.Recent[1].Tokens) != "" {
		t.Errorf("a handoff without tokens: %+v", e.Recent[1])
	}
	if one := List(openProject(r), "", 1, now); len(one[0].Recent) != 1 || one[0].Handoffs != 2 {
		t.Errorf("--recent 1: %+v", one[0])
	}
}

// TestSearch: lines match without case, filtered by stream, author and time.
func TestSearch(t *testing.T) {
	r := testkit.New(t, true)
	r.Write("thoughts/ledgers/CONTINUITY_auth.md", ledgerSrc)
	handoffFile(r, "auth", now.Add(-3*time.Hour), "Ana Newcomer", 0)
	handoffFile(r, "auth", now.Add(-10*24*time.Hour), "Kim", 0)
	p := openProject(r)
	// A handoff repeating the ledger's now ("## Now" / "now: …").
	r.Write("thoughts/shared/handoffs/auth/2026-11-22T13-05-09Z_session-end_abcdef13.md",
		"---\nsession: auth\ncreated: 2026-11-22T13:05:09Z\nevent: session-end\nauthor: Kim\n---\n\n## Now\n\nRefresh endpoint\n\n## Files touched\n\n- `refresh.go`\n")
	hits := Search(p, Query{Text: "REFRESH"})
	if len(hits) != 4 {
		t.Errorf("refresh: %d hits %+v, want 4: the ledger's now and notes, the newest handoff's file and the summary the other two share, once", len(hits), hits)
	}
	for _, h := range hits {
		if h.Text == "Refresh endpoint" {
			t.Errorf("the ledger's now was shown again from a handoff: %+v", h)
		}
	}
	if hits := Search(p, Query{Text: "refresh", In: "ledgers"}); len(hits) != 2 || hits[0].Kind != "ledger" || hits[1].Kind != "ledger" {
		t.Errorf("--in ledgers: %+v", hits)
	}
	if hits := Search(p, Query{Text: "refresh", In: "handoffs"}); len(hits) != 3 || hits[0].Kind != "handoff" {
		t.Errorf("--in handoffs: %+v", hits)
	}
	hits = Search(p, Query{Text: "refresh endpoint", Author: "ana"})
	if len(hits) != 1 || hits[0].Kind != "handoff" || hits[0].Author != "Ana Newcomer" {
		t.Errorf("--author ana: %+v", hits)
	}
	since, err := Since("7d", now)
	if err != nil {
		t.Fatal(err)
	}
	if hits := Search(p, Query{Text: "wrote", Since: since}); len(hits) != 1 {
		t.Errorf("--since 7d: %+v", hits)
	}
	if hits := Search(p, Query{Text: "refresh", Stream: "billing"}); len(hits) != 0 {
		t.Errorf("--session billing: %+v", hits)
	}
	if _, err := Since("last week", now); err == nil {
		t.Error("Since accepted \"last week\"")
	}
}

func TestAuthorMatches(t *testing.T) {
	for _, c := range []struct {
		author, query string
		want          bool
	}{
		{"Ana Newcomer", "Ana", true},
		{"Ana Newcomer", "ana new", true},
		{"Ana Newcomer", "A N", true},
		{"Ana Newcomer", "newcomer", true},
		{"Ana Newcomer", "Newcomer Ana", false},
		{"Ana Newcomer", "na", false},
		{"Ana Newcomer", "Anastasia", false},
		{"", "Ana", false},
	} {
		if got := AuthorMatches(c.author, c.query); got != c.want {
			t.Errorf("AuthorMatches(%q, %q) = %v, want %v", c.author, c.query, got, c.want)
		}
	}
}

// TestThin: of the older handoffs, only the last of each day stays; one
// git does not track is spared; a dry run removes nothing.
func TestThin(t *testing.T) {
	r := testkit.New(t, true)
	day := time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC)
	var files []string
	for i := 0; i < 3; i++ { // three on one day
		files = append(files, handoffFile(r, "auth", day.Add(time.Duration(i)*time.Hour), "Kim", 0))
	}
	files = append(files, handoffFile(r, "auth", day.Add(48*time.Hour), "Kim", 0)) // the newest, kept
	r.Git("add", ".")
	r.Git("commit", "-q", "-m", "handoffs")
	untracked := handoffFile(r, "auth", day.Add(30*time.Minute), "Kim", 0)
	p := openProject(r)
	dry, err := Thin(p, "auth", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(dry.Removed, ",") != files[0]+","+files[1] || len(dry.Spared) != 1 || !strings.HasPrefix(dry.Spared[0], untracked) {
		t.Fatalf("dry: %+v (files %v)", dry, files)
	}
	if r.Read(files[0]) == "" {
		t.Fatal("the dry run removed a file")
	}
	res, err := Thin(p, "auth", 1, false)
	if err != nil || res.Kept != 3 || r.Read(files[0]) != "" || !strings.Contains(r.Git("status", "--short"), "D  "+files[0]) {
		t.Errorf("thin: %+v, %v", res, err)
	}
}

func TestThinOutsideGit(t *testing.T) {
	r := testkit.New(t, true)
	p := openProject(r)
	p.Repo.Root = ""
	if _, err := Thin(p, "auth", 1, false); !errors.Is(err, ErrNoGit) {
		t.Errorf("Thin outside git: %v", err)
	}
}

// TestEditAndNowMoved: done finishes now, which gives way to the first
// next; a secret in an item is redacted; a ledger that does not parse is
// left untouched.
func TestEditAndNowMoved(t *testing.T) {
	r := testkit.New(t, true)
	r.Write("thoughts/ledgers/CONTINUITY_auth.md", ledgerSrc)
	p := openProject(r)
	path := r.Path("thoughts/ledgers/CONTINUITY_auth.md")
	done, err := Apply(p, path, now, Change{Verb: "done", Items: []string{"Refresh endpoint"}})
	if err != nil {
		t.Fatal(err)
	}
	if done.Now == nil || *done.Now != "Logout endpoint" {
		t.Errorf("done: now moved to %v, want Logout endpoint", done.Now)
	}
	if l, err := compat.ParseLedger("x.md", []byte(r.Read("thoughts/ledgers/CONTINUITY_auth.md"))); err != nil || l.Now != "Logout endpoint" {
		t.Errorf("the ledger's now after done: %v (%v)", l, err)
	}
	// An item that is not now leaves now where it is, and says nothing of it.
	if done, err := Apply(p, path, now, Change{Verb: "done", Items: []string{"Something else"}}); err != nil || done.Now != nil {
		t.Errorf("done of another item: now %v, %v", done.Now, err)
	}
	secret := "AKIA" + "IOSFODNN7EXAMPLE"
	if _, _, err := Edit(p, path, now, Change{Verb: "question", Items: []string{"rotate " + secret + "?"}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Read("thoughts/ledgers/CONTINUITY_auth.md"), secret) {
		t.Error("the secret reached the ledger")
	}
	if _, _, err := Edit(p, path, now, Change{Verb: "decide", Items: []string{"RS256"}, Why: "rotation"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Read("thoughts/ledgers/CONTINUITY_auth.md"), "date: 2026-11-22") {
		t.Error("decide: no date")
	}
	bad := "---\nsession: [\n---\n"
	r.Write("thoughts/ledgers/CONTINUITY_bad.md", bad)
	if _, _, err := Edit(p, r.Path("thoughts/ledgers/CONTINUITY_bad.md"), now, Change{Verb: "now", Items: []string{"x"}}); err == nil || r.Read("thoughts/ledgers/CONTINUITY_bad.md") != bad {
		t.Errorf("bad ledger: %v", err)
	}
	if _, _, err := Edit(p, r.Path("thoughts/ledgers/CONTINUITY_none.md"), now, Change{Verb: "now", Items: []string{"x"}}); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("missing ledger: %v", err)
	}
}

// TestLint: problems carry their file and line; a missing file is one.
func TestLint(t *testing.T) {
	r := testkit.New(t, true)
	r.Write("thoughts/ledgers/CONTINUITY_auth.md", ledgerSrc)
	r.Write("thoughts/ledgers/CONTINUITY_bad.md", "---\nsession: bad\ndone: 3\n---\n")
	rep, err := Lint(openProject(r), r.Dir, nil)
	if err != nil || rep.Files != 2 || rep.BadFiles() != 1 || rep.Problems[0].Line != 3 {
		t.Errorf("lint: %+v, %v", rep, err)
	}
	rep, _ = Lint(openProject(r), r.Dir, []string{"nosuch.md"})
	if rep.BadFiles() != 1 || rep.Problems[0].Message != "no such file" {
		t.Errorf("lint nosuch.md: %+v", rep)
	}
}

// TestStartUseApply: a ledger starts active, is not started twice, and an
// edit says what it did in the words the commands print.
func TestStartUseApply(t *testing.T) {
	r := testkit.New(t, false)
	p := openProject(r)
	path, _ := p.LedgerPath("auth")
	if err := Start(p, "auth", path, "Ship JWT auth", now); err != nil {
		t.Fatal(err)
	}
	if err := Start(p, "auth", path, "again", now); err == nil || !strings.Contains(err.Error(), "already exists (make it active with `continuity use auth`)") {
		t.Errorf("second start: %v", err)
	}
	if name, _, _ := p.Active(r.Getenv); name != "auth" {
		t.Errorf("active %q", name)
	}
	other, _ := p.LedgerPath("none")
	if err := Use(p, "none", other); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("use a missing ledger: %v", err)
	}
	for _, c := range []struct {
		change Change
		want   string
	}{
		{Change{Verb: "now", Items: []string{"Refresh"}}, "now: Refresh (thoughts/ledgers/CONTINUITY_auth.md)"},
		{Change{Verb: "next", Items: []string{"Logout", "Tests"}}, "2 items added to next (thoughts/ledgers/CONTINUITY_auth.md)"},
		{Change{Verb: "done", Items: []string{"Refresh"}}, "1 item added to done (thoughts/ledgers/CONTINUITY_auth.md)\nnow: Logout (was first in next)"},
		{Change{Verb: "next", Items: []string{"Tests"}, Remove: true}, "1 item removed from next (thoughts/ledgers/CONTINUITY_auth.md)"},
		{Change{Verb: "done", Items: []string{"Logout"}}, "1 item added to done (thoughts/ledgers/CONTINUITY_auth.md)\nnow: cleared (next is empty)"},
		{Change{Verb: "now", Items: []string{""}}, "now: cleared (thoughts/ledgers/CONTINUITY_auth.md)"},
		{Change{Verb: "decide", Items: []string{"RS256"}, Why: "rotation"}, "decision recorded (thoughts/ledgers/CONTINUITY_auth.md)"},
	} {
		res, err := Apply(p, path, now, c.change)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(res.Lines(), "\n"); got != c.want {
			t.Errorf("%+v: %q, want %q", c.change, got, c.want)
		}
	}
}

// TestThinKeepsSubstance: --keep 1 keeps the handoff of the work, not the
// chat-only one written after it (thin once chose by age alone).
func TestThinKeepsSubstance(t *testing.T) {
	r := testkit.New(t, true)
	day := time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC)
	work := handoffFile(r, "auth", day, "Kim", 0) // pre-compact: substance
	chat := "thoughts/shared/handoffs/auth/2026-11-10T10-00-00Z_session-end_abcdef99.md"
	r.Write(chat, "---\nsession: auth\ncreated: 2026-11-10T10:00:00Z\nevent: session-end\n---\n\n## Summary\n\nIt is 4.\n\n## Recent requests\n\n- What is 2+2?\n")
	r.Git("add", ".")
	r.Git("commit", "-q", "-m", "handoffs")
	res, err := Thin(openProject(r), "auth", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed) != 1 || res.Removed[0] != chat {
		t.Errorf("removed %q, want the chat-only %s (kept %s)", res.Removed, chat, work)
	}
}
