package handoff

import "testing"

func TestSubstantial(t *testing.T) {
	for _, c := range []struct {
		name string
		p    *Parsed
		want bool
	}{
		{"chat only", &Parsed{Form: FormContinuity, Meta: Meta{Event: "session-end"}, Sections: map[string]string{"Summary": "It is 4.", "Recent requests": "- What is 2+2?", "State": "- Task: What is 2+2?"}}, false},
		{"files", &Parsed{Form: FormContinuity, Meta: Meta{Event: "session-end"}, Sections: map[string]string{"Files touched": "- `a.go`"}}, true},
		{"a plan", &Parsed{Form: FormContinuity, Meta: Meta{Event: "session-end"}, Sections: map[string]string{"State": "- Task: x\n- Plan:\n  - [ ] y"}}, true},
		{"a compaction", &Parsed{Form: FormContinuity, Meta: Meta{Event: "pre-compact"}, Sections: map[string]string{"Summary": "s"}}, true},
		{"recovered", &Parsed{Form: FormContinuity, Meta: Meta{Event: "recovered"}}, true},
		{"another tool's", &Parsed{Form: "continuous-claude-v2"}, true},
		{"none", nil, false},
	} {
		if got := Substantial(c.p); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
