package redact

import (
	"strings"
	"testing"
)

// TestAllowCannotDisable: an allow entry broad enough to spare real
// secrets is refused (New fails, so the configuration that holds it is
// reported and ignored); one naming a single false positive is kept and
// spares only that.
func TestAllowCannotDisable(t *testing.T) {
	for _, a := range []string{".*", ".", "", "^", "ghp_", "[A-Za-z]", "TOKEN", "(?i)password", "Bearer", "[0-9]", "PRIVATE KEY", `\w+`} {
		if _, err := New(Config{Allow: []string{a}}); err == nil || !strings.Contains(err.Error(), "would let real secrets through") {
			t.Errorf("allow %q accepted: %v", a, err)
		}
	}
	r, err := New(Config{Allow: []string{"sk_test_FAKEallowed", `^EXAMPLE_[0-9]+$`}})
	if err != nil {
		t.Fatalf("a narrow allow list refused: %v", err)
	}
	in := "STRIPE_KEY=sk_test_FAKEallowedFAKEallowed00 GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345xy"
	out, _ := r.Redact(in)
	if !strings.Contains(out, "sk_test_FAKEallowedFAKEallowed00") || strings.Contains(out, "ghp_0123") {
		t.Errorf("narrow allow: %q", out)
	}
}
