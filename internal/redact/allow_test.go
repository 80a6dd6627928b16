package redact

import (
	"regexp"
	"regexp/syntax"
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
	r, err := New(Config{Allow: []string{"sk_test_FAKEallowedFAKEallowed00", `^EXAMPLE_[0-9]+$`}})
	if err != nil {
		t.Fatalf("a narrow allow list refused: %v", err)
	}
	in := "STRIPE_KEY=sk_test_FAKEallowedFAKEallowed00 GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345xy"
	out, _ := r.Redact(in)
	if !strings.Contains(out, "sk_test_FAKEallowedFAKEallowed00") || strings.Contains(out, "ghp_0123") {
		t.Errorf("narrow allow: %q", out)
	}
}

// TestAllowCannotDodgeSamples: for every provider the rules know, an
// entry made to miss a few sample secrets (the token's prefix and a class
// that leaves out one character, or keeps a range) is refused: the check
// draws values of every token's own pattern, not one fixed example each.
func TestAllowCannotDodgeSamples(t *testing.T) {
	for _, tok := range tokens {
		prefix, _ := regexp.MustCompile(tok.re).LiteralPrefix()
		if len(prefix) < 3 {
			continue
		}
		q := regexp.QuoteMeta(prefix)
		re, _ := syntax.Parse(tok.re, syntax.Perl)
		var next []string
		for _, i := range []int{100, 201, 302} {
			v := drawToken(re, tok.min, i)
			next = append(next, regexp.QuoteMeta(v[len(prefix):len(prefix)+1]))
		}
		all := map[byte]bool{}
		for i := range 400 {
			all[drawToken(re, tok.min, i)[len(prefix)]] = true
		}
		three := q + "[^" + next[0] + "]"
		if len(all) > 3 {
			three = q + "[^" + strings.Join(next, "") + "]"
		}
		for _, a := range []string{q, q + "[^" + next[0] + "]", three, q + ".[^" + next[1] + "]",
			"^" + q + "[^" + next[2] + "]", "=" + q + "[^" + next[0] + "]", "(?i)" + q + "[^" + next[1] + "]"} {
			if _, err := New(Config{Allow: []string{a}}); err == nil {
				t.Errorf("%s: allow %q accepted", tok.kind, a)
			}
		}
	}
	for _, a := range []string{"(?i)client.?secret: [^V]", "PRIVATE KEY-----\n[^M]", "Bearer [^V]", "deploy:[^Q]", `(?i)secret.?key["']?\s*[:=]\s*["']?[^V]`} {
		if _, err := New(Config{Allow: []string{a}}); err == nil {
			t.Errorf("allow %q accepted", a)
		}
	}
	if _, err := New(Config{Allow: []string{"ghp_FAKEexampleFAKEexampleFAKEexample1234", `^EXAMPLE_[0-9]+$`, "sk_test_FAKEallowed"}}); err != nil {
		t.Errorf("narrow entries refused: %v", err)
	}
}

// TestSecretSamplesAreSecrets: every sample is found by the built-in
// rules, and every built-in kind is among what they find, so the check
// covers every provider and shape the rules know.
func TestSecretSamplesAreSecrets(t *testing.T) {
	kinds := map[string]bool{}
	missed := 0
	for _, s := range secretSamples() {
		_, found := std().Redact(s)
		if len(found) == 0 {
			missed++
			t.Logf("not a secret: %q", s)
		}
		for _, f := range found {
			kinds[f.Kind] = true
		}
	}
	if missed*50 > len(secretSamples()) {
		t.Errorf("%d of %d samples not found", missed, len(secretSamples()))
	}
	for _, ru := range builtin {
		if !kinds[ru.kind] {
			t.Errorf("no sample of %s", ru.kind)
		}
	}
}
