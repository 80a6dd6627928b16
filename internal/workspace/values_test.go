package workspace

import "testing"

// TestValues: every key is listed once, sorted, with where it came from:
// its own origin, its parent's, else the default.
func TestValues(t *testing.T) {
	l := &LoadedConfig{Config: DefaultConfig(), From: map[string]string{"budget": "CONTINUITY_BUDGET", "handoff": ".continuity.yaml"}}
	l.Budget = 5000
	vs, err := l.Values()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Value{}
	for i, v := range vs {
		if i > 0 && vs[i-1].Key >= v.Key {
			t.Errorf("not sorted: %q before %q", vs[i-1].Key, v.Key)
		}
		got[v.Key] = v
	}
	if v := got["budget"]; v.Value != "5000" || v.From != "CONTINUITY_BUDGET" {
		t.Errorf("budget: %+v", v)
	}
	if v := got["handoff.max_bytes"]; v.From != ".continuity.yaml" {
		t.Errorf("handoff.max_bytes: %+v (its parent's origin)", v)
	}
	if v := got["ledger_dir"]; v.From != "default" || v.Value == "" {
		t.Errorf("ledger_dir: %+v", v)
	}
}
