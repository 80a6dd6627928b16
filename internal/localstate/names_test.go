package localstate

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionFileNames: a session id names its state file only when it is a
// UUID or a short plain name that holds no secret, by the built-in rules and
// the repository's own; anything else is named by its digest, inside the
// sessions directory.
func TestSessionFileNames(t *testing.T) {
	st := New("/s", "", func(s string) string { return strings.ReplaceAll(s, "acme-internal", "[REDACTED]") })
	for _, c := range []struct {
		id    string
		plain bool
	}{
		{"5d05003d-4bb2-43c8-b286-325e4e31046f", true}, {"_x-", true}, {"codex-1", true}, {strings.Repeat("a", 80), true},
		{strings.Repeat("a", 200), false}, {"", false}, {"../x", false}, {"a/b", false}, {".x", false},
		{"ghp_" + strings.Repeat("A1b2", 9), false}, {"acme-internal", false}, {"AKIA" + "IOSFODNN7EXAMPLE", false},
	} {
		path := st.sessionFile(c.id)
		if filepath.Dir(path) != "/s/sessions" {
			t.Errorf("sessionFile(%q) = %s: outside the sessions directory", c.id, path)
		}
		if got := path == "/s/sessions/"+c.id+".json"; got != c.plain {
			t.Errorf("sessionFile(%q) = %s: plain %v, want %v", c.id, path, got, c.plain)
		}
	}
}
