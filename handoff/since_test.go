package handoff

import (
	"strings"
	"testing"

	"github.com/continuity-md/continuity/ledger"
)

func TestSummaryOf(t *testing.T) {
	cases := []struct {
		name string
		f    *Facts
		want string
	}{
		{"nil", nil, ""},
		{"no compaction: the last reply", &Facts{LastAssistant: " Done. "}, "Done."},
		{"a host that does not say what came after: both", &Facts{CompactSummary: "Old.", LastAssistant: "New."}, "Last reply: New.\n\nThe latest compaction's summary: Old."},
		{"a host that does not say, the reply being the summary", &Facts{CompactSummary: "Old.", LastAssistant: "Old."}, "Old."},
		{"nothing since: the summary is current", &Facts{CompactSummary: "Old.", LastAssistant: "Before.", Compactions: 1, Since: &Since{}}, "Old."},
		{
			"work since",
			&Facts{CompactSummary: "Wrote a.go.", LastAssistant: "b.go is written.", Compactions: 2, Since: &Since{
				Prompts: []string{"now\n  b"}, Files: []string{"b.go"}, Commands: []string{"go  test"}, Errors: []string{"Bash `x`: no"},
				LastAssistant: "b.go is written.",
			}},
			"b.go is written.\n\nSince the last compaction: asked \"now b\". edited b.go. ran `go  test`. failed: Bash `x`: no.\n\nBefore it (the compaction's summary): Wrote a.go.",
		},
		{
			"work since but no reply yet",
			&Facts{CompactSummary: "S.", LastAssistant: "stale", Compactions: 1, Since: &Since{Files: []string{"1", "2", "3", "4", "5", "6", "7"}}},
			"Since the last compaction: edited 3, 4, 5, 6, 7 (and 2 before).\n\nBefore it (the compaction's summary): S.",
		},
	}
	for _, c := range cases {
		if got := SummaryOf(c.f); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	// The stale reply (from before the compaction) is never the summary's news.
	for _, c := range cases {
		if c.f != nil && c.f.Since != nil && c.f.LastAssistant == "stale" {
			if got := SummaryOf(c.f); strings.Contains(got, "stale") {
				t.Errorf("a reply from before the compaction in %q", got)
			}
		}
	}
}

// TestBuildNowIsNotNext: the step the ledger says is now is not listed
// again under Next, even when the agent's task for it is still open.
func TestBuildNowIsNotNext(t *testing.T) {
	l := &ledger.Ledger{Now: "Logout endpoint", Next: []string{"Integration tests"}}
	f := &Facts{State: State{Plan: []Task{{Subject: "Logout endpoint", Status: "in_progress"}, {Subject: "Docs", Status: "pending"}}}}
	h := Build(Meta{}, f, l)
	if want := []string{"Docs", "Integration tests"}; strings.Join(h.Next, "|") != strings.Join(want, "|") {
		t.Errorf("next = %q, want %q", h.Next, want)
	}
}
