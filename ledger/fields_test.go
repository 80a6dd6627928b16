package ledger

import "testing"

// TestFields: every key maps to its own field, and only the keys of its kind.
func TestFields(t *testing.T) {
	var l Ledger
	for k, f := range map[string]*string{KeySession: &l.Stream, KeyGoal: &l.Goal, KeyNow: &l.Now, KeyUpdated: &l.Updated} {
		if l.Scalar(k) != f || l.List(k) != nil {
			t.Errorf("scalar %s", k)
		}
	}
	for k, f := range map[string]*[]string{KeyConstraints: &l.Constraints, KeyDone: &l.Done, KeyNext: &l.Next, KeyQuestions: &l.Questions, KeyFiles: &l.Files} {
		if l.List(k) != f || l.Scalar(k) != nil {
			t.Errorf("list %s", k)
		}
	}
	if l.Scalar(KeyDecisions) != nil || l.List(KeyDecisions) != nil || l.Scalar("nope") != nil {
		t.Error("decisions or an unknown key mapped to a field")
	}
}
