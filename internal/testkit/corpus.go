package testkit

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// Entry is one fake secret and the text around it.
type Entry struct {
	Name   string // kind/n
	Kind   string // the kind redaction must report
	Pre    string // text before the secret
	Secret string
	Post   string // text after it
}

// Text is the secret in its line.
func (e Entry) Text() string { return e.Pre + e.Secret + e.Post }

// Corpus reads the corpus, failing tb when it cannot.
func Corpus(tb testing.TB) []Entry {
	tb.Helper()
	_, here, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(here), "..", "..", "testdata", "secrets", "corpus.txtar")
	ar, err := txtar.ParseFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out []Entry
	for _, f := range ar.Files {
		text := strings.TrimSuffix(string(f.Data), "\n")
		pre, rest, ok1 := strings.Cut(text, "«")
		secret, post, ok2 := strings.Cut(rest, "»")
		if !ok1 || !ok2 {
			tb.Fatalf("corpus %s: no «secret»", f.Name)
		}
		kind, _, _ := strings.Cut(f.Name, "/")
		out = append(out, Entry{f.Name, kind, pre, secret, post})
	}
	if len(out) < 30 {
		tb.Fatalf("only %d secrets in %s", len(out), path)
	}
	return out
}

// JSONString is s as the inside of a JSON string, escaped as Claude Code's
// transcripts escape it (no HTML escaping).
func JSONString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}
