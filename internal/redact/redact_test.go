package redact

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/testkit"
)

func loadCorpus(t testing.TB) []testkit.Entry { return testkit.Corpus(t) }

// A context places a carrier line in a realistic piece of transcript or
// handoff. SECRET marks where it goes; escape is how the line is written
// there.
type context struct {
	name   string
	tmpl   string
	escape func(string) string
}

var contexts = []context{
	{"prompt", `{"type":"user","message":{"role":"user","content":"please run the deploy with this:\nSECRET\nthen go test ./internal/auth/... and update thoughts/ledgers/CONTINUITY_auth-refactor.md"},"uuid":"7c9e6679-7425-40de-944b-e07fc1f97e4d","cwd":"/home/kim/src/app"}`, testkit.JSONString},
	{"tool-input", `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"Bash","input":{"command":"cd /home/kim/src/app && SECRET && git rev-parse HEAD","description":"Deploy staging (task deploy-staging)"}}]},"uuid":"123e4567-e89b-12d3-a456-426614174000"}`, testkit.JSONString},
	{"tool-output", `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01A09q90qw90lq917835lq9","type":"tool_result","content":"$ cat config/staging.env\nSECRET\n$ git log -1 --format=%H\n3f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f","is_error":false}]}}`, testkit.JSONString},
	{"file-content", `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01B","name":"Write","input":{"file_path":"/home/kim/src/app/deploy/config/settings.yaml","content":"# staging settings, see github.com/acme/app/internal/config\nSECRET\nlog_level: debug\n"}}]}}`, testkit.JSONString},
	{"handoff", "## Commands run\n- `go test ./internal/auth/...` (ok)\n- `SECRET`\n## Files touched\n- src/auth/token.go\n- internal/auth/refresh.go\n", func(s string) string { return s }},
}

// TestCorpusRecall places every fake secret of testdata/secrets in every
// context and wants exactly the secret replaced by its kind's marker:
// everything around it (paths, commands, ids, variable names, URL users and
// hosts) survives byte for byte.
func TestCorpusRecall(t *testing.T) {
	entries := loadCorpus(t)
	found, total := 0, 0
	for _, e := range entries {
		for _, c := range contexts {
			total++
			in := strings.Replace(c.tmpl, "SECRET", c.escape(e.Pre+e.Secret+e.Post), 1)
			want := strings.Replace(c.tmpl, "SECRET", c.escape(e.Pre)+Marker(e.Kind)+c.escape(e.Post), 1)
			got, fs := Redact(in)
			if got != want {
				t.Errorf("%s in %s:\n got: %s\nwant: %s\nfindings: %v", e.Name, c.name, got, want, fs)
				continue
			}
			if len(fs) != 1 || fs[0].Kind != e.Kind || in[fs[0].Start:fs[0].End] != c.escape(e.Secret) {
				t.Errorf("%s in %s: findings %v, want one %s over the secret", e.Name, c.name, fs, e.Kind)
				continue
			}
			found++
		}
	}
	t.Logf("recall %d/%d", found, total)
}

// TestCorpusCoversEveryKind keeps the corpus honest as rules are added.
func TestCorpusCoversEveryKind(t *testing.T) {
	have := map[string]bool{}
	for _, e := range loadCorpus(t) {
		have[e.Kind] = true
	}
	for _, k := range Kinds() {
		if !have[k] {
			t.Errorf("kind %s has no example in testdata/secrets/corpus.txtar", k)
		}
	}
	for k := range have {
		if !slices.Contains(Kinds(), k) {
			t.Errorf("corpus kind %s is not a built-in kind", k)
		}
	}
}

// TestRedactTwiceIsOnce: markers are never redacted again, and JSON stays JSON.
func TestRedactTwiceIsOnce(t *testing.T) {
	for _, e := range loadCorpus(t) {
		for _, c := range contexts {
			in := strings.Replace(c.tmpl, "SECRET", c.escape(e.Pre+e.Secret+e.Post), 1)
			once, _ := Redact(in)
			twice, fs := Redact(once)
			if twice != once || len(fs) != 0 {
				t.Errorf("%s in %s: second pass changed it: %v\n%s", e.Name, c.name, fs, twice)
			}
			if strings.HasPrefix(c.tmpl, "{") && !json.Valid([]byte(once)) {
				t.Errorf("%s in %s: redacted JSON does not parse: %s", e.Name, c.name, once)
			}
		}
	}
}

// TestCleanTextSurvives: paths, commands, SHAs, UUIDs, digests, import
// paths, base64 of text, placeholders and code are not secrets.
func TestCleanTextSurvives(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "secrets", "clean.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got, fs := Redact(string(b))
	for _, f := range fs {
		t.Errorf("line %d col %d: %s on %q", f.Line, f.Col, f.Kind, b[f.Start:f.End])
	}
	if got != string(b) {
		t.Errorf("clean text changed")
	}
}

func TestFindingPositions(t *testing.T) {
	tok := "ghp_" + strings.Repeat("aB3", 12)
	in := "first line\nnaïve: key " + tok + " done\n\nDB_PASSWORD=hunter2x\n"
	got, fs := Redact(in)
	want := []Finding{
		{Kind: "github-token", Line: 2, Col: 12, Start: strings.Index(in, tok), End: strings.Index(in, tok) + len(tok)},
		{Kind: "env-secret", Line: 4, Col: 13, Start: strings.Index(in, "hunter2x"), End: strings.Index(in, "hunter2x") + 8},
	}
	if !slices.Equal(fs, want) {
		t.Errorf("findings\n got %+v\nwant %+v", fs, want)
	}
	if wantOut := "first line\nnaïve: key [REDACTED:github-token] done\n\nDB_PASSWORD=[REDACTED:env-secret]\n"; got != wantOut {
		t.Errorf("got %q, want %q", got, wantOut)
	}
	if sf := Scan([]byte(in)); !slices.Equal(sf, want) {
		t.Errorf("Scan = %+v, want %+v", sf, want)
	}
}

func TestCases(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"no secrets here", "no secrets here"},
		// The user and host of a URL stay.
		{"mysql://root:Sup3r-s3cret@127.0.0.1:3306/app", "mysql://root:[REDACTED:url-password]@127.0.0.1:3306/app"},
		// A token inside a URL password gets the token's kind.
		{"https://x:glpat-abcdefghij0123456789@gitlab.com/a.git", "https://x:[REDACTED:gitlab-token]@gitlab.com/a.git"},
		// A truncated private key still goes, up to where it was cut.
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx3kQ9vK8sLmN0pQrStUvWxYz1234567890abcd\nMIIEowIBAAKC",
			"[REDACTED:private-key]"},
		// Escaped newlines in JSON strings are boundaries, not part of names or values.
		{`"content":"a\nAPI_TOKEN=zq81mv02xk\nb"`, `"content":"a\nAPI_TOKEN=[REDACTED:env-secret]\nb"`},
		{`{"command":"export GITHUB_TOKEN=\"ghp_0123456789abcdefghijABCDEFGHIJ012345\""}`, `{"command":"export GITHUB_TOKEN=\"[REDACTED:github-token]\""}`},
		// Words next to "sk-" are not OpenAI keys.
		{"see the task-description-for-the-thing and risk-assessment-2024-final-v2", "see the task-description-for-the-thing and risk-assessment-2024-final-v2"},
		{"sk-this-is-not-a-key-just-words", "sk-this-is-not-a-key-just-words"},
		// A commit SHA and a UUID after "key" stay.
		{"cache key 3f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f", "cache key 3f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f"},
		{"idempotency_key: 123e4567-e89b-12d3-a456-426614174000", "idempotency_key: 123e4567-e89b-12d3-a456-426614174000"},
		// Public keys are not secrets.
		{"PUBLIC_KEY=MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE4f5wg5l2hKsTeNem", "PUBLIC_KEY=MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE4f5wg5l2hKsTeNem"},
	} {
		if got, _ := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestConfig(t *testing.T) {
	r, err := New(Config{
		Extra: []Rule{
			{Name: "acme-token", Pattern: `acme_(?P<secret>[a-z0-9]{24})`, Keywords: []string{"ACME_"}},
			{Name: "internal-id", Pattern: `INT-[0-9]{6}`},
		},
		Allow: []string{"AKIAIOSFODNN7EXAMPLE", `^hunter2x$`, "(unclosed"},
	})
	if err != nil {
		t.Fatal(err)
	}
	in := "t=acme_0123456789abcdefghijklmn id INT-123456 AKIAIOSFODNN7EXAMPLE DB_PASSWORD=hunter2x (unclosed PASSWORD=zz9zz9"
	got, fs := r.Redact(in)
	want := "t=acme_[REDACTED:acme-token] id [REDACTED:internal-id] AKIAIOSFODNN7EXAMPLE DB_PASSWORD=hunter2x (unclosed PASSWORD=[REDACTED:env-secret]"
	if got != want {
		t.Errorf("got  %q\nwant %q (findings %v)", got, want, fs)
	}
	// The defaults know nothing of the extra rules and allow nothing extra.
	if got, _ := Redact(in); strings.Contains(got, "acme-token") || strings.Contains(got, "AKIAIOSFODNN7EXAMPLE") {
		t.Errorf("package Redact used the config: %q", got)
	}
	for _, bad := range []Config{
		{Extra: []Rule{{Name: "Bad Name", Pattern: "x"}}},
		{Extra: []Rule{{Name: "ok", Pattern: "(x"}}},
	} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%+v) succeeded, want an error", bad)
		}
	}
}

func TestEntropy(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want float64
	}{{"", 0}, {"aaaa", 0}, {"abab", 1}, {"abcd", 2}} {
		if got := Entropy(tc.s); got != tc.want {
			t.Errorf("Entropy(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// TestRandomTokensAreNotWords bounds how often the "mostly words" filter
// would wave a random token through: it must stay rare.
func TestRandomTokensAreNotWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const set = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	wordyN, generic := 0, 0
	const n = 20000
	for range n {
		b := make([]byte, 20+rng.IntN(30))
		for i := range b {
			b[i] = set[rng.IntN(len(set))]
		}
		if wordy(string(b)) {
			wordyN++
		}
		if genericValue(string(b), "token="+string(b), 1) {
			generic++
		}
	}
	t.Logf("random base62 tokens of 20-49 characters: %d/%d wordy, %d/%d taken by generic-secret", wordyN, n, generic, n)
	if wordyN*50 > n {
		t.Errorf("%d/%d random tokens look like words, want under 2%%", wordyN, n)
	}
	if generic*100 < n*95 {
		t.Errorf("generic-secret takes only %d/%d random tokens, want 95%%", generic, n)
	}
}

// realisticText is about size bytes of transcripts and handoffs from the
// repository's testdata, with a few fake secrets sprinkled in.
func realisticText(tb testing.TB, size int) string {
	tb.Helper()
	var parts []string
	for _, glob := range []string{"../../testdata/transcripts/*.jsonl", "../../handoff/testdata/golden/*.md", "../../testdata/secrets/clean.txt"} {
		ms, _ := filepath.Glob(glob)
		for _, m := range ms {
			b, err := os.ReadFile(m)
			if err != nil {
				tb.Fatal(err)
			}
			parts = append(parts, string(b))
		}
	}
	if len(parts) == 0 {
		tb.Fatal("no testdata")
	}
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		b.WriteString(parts[i%len(parts)])
		fmt.Fprintf(&b, "\nDB_PASSWORD=zq%dmv02xk\n", i)
	}
	return b.String()
}

func TestRealisticTextFindsOnlyTheSprinkled(t *testing.T) {
	s := realisticText(t, 1<<20)
	_, fs := Redact(s)
	want := strings.Count(s, "DB_PASSWORD=zq")
	for _, f := range fs {
		if f.Kind != "env-secret" {
			t.Errorf("unexpected %s at line %d: %q", f.Kind, f.Line, s[f.Start:f.End])
		}
	}
	if len(fs) != want {
		t.Errorf("%d findings, want %d", len(fs), want)
	}
}

// BenchmarkRedact reports throughput on 10 MB of transcript and handoff text.
func BenchmarkRedact(b *testing.B) {
	s := realisticText(b, 10<<20)
	b.SetBytes(int64(len(s)))
	b.ResetTimer()
	for b.Loop() {
		Redact(s)
	}
}

// The built-in rules compile lazily; every one of them must compile.
func TestBuiltinRulesCompile(t *testing.T) {
	for _, ru := range builtin {
		if ru.scan != nil {
			continue
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("rule %s: %v", ru.kind, r)
				}
			}()
			ru.re.get()
		}()
	}
}
