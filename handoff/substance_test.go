package handoff

import "testing"

func TestSubstantial(t *testing.T) {
	old := func(event, body string) *Parsed {
		p, err := Parse([]byte("---\nsession: s\nevent: " + event + "\n---\n\n" + body))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name string
		p    *Parsed
		want bool
	}{
		{"chat only", old("session-end", "## State\n\n- Task: What is 2+2?\n\n## Summary\n\nIt is 4.\n\n## Recent requests\n\n- What is 2+2?\n"), false},
		{"files", old("session-end", "## Files touched\n\n- `a.go`\n"), true},
		{"a plan", old("session-end", "## State\n\n- Task: x\n- Plan:\n  - [ ] y\n"), true},
		{"a compaction", old("pre-compact", "## Summary\n\ns\n"), true},
		{"recovered", &Parsed{Form: FormContinuity, Meta: Meta{Event: "recovered"}}, true},
		{"another tool's", &Parsed{Form: "continuous-claude-v2"}, true},
		{"none", nil, false},
		{"state: a check", &Parsed{Form: FormContinuity, State: State{Checks: []Check{{Command: "make", Outcome: Passed}}}}, true},
		{"work: a command", &Parsed{Form: FormContinuity, Work: Work{Commands: 1}}, true},
		{"state: a task alone", &Parsed{Form: FormContinuity, State: State{Task: "x"}}, false},
	} {
		if got := Substantial(c.p); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
