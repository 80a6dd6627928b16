package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// caseStyles spells a name of words in every style code and configuration
// use: camelCase, PascalCase, kebab-case, snake_case and SCREAMING_SNAKE.
func caseStyles(words []string) []string {
	title := func(w string) string { return strings.ToUpper(w[:1]) + w[1:] }
	var camel, pascal strings.Builder
	for i, w := range words {
		if i == 0 {
			camel.WriteString(w)
		} else {
			camel.WriteString(title(w))
		}
		pascal.WriteString(title(w))
	}
	return []string{camel.String(), pascal.String(), strings.Join(words, "-"), strings.Join(words, "_"),
		strings.ToUpper(strings.Join(words, "_"))}
}

// randomValue is a value of n characters as a generator makes one: mixed
// case and digits.
func randomValue(rng *rand.Rand, n int) string {
	const set = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = set[rng.IntN(len(set))]
	}
	b[1], b[4], b[9] = 'Q', '7', 'k' // a digit, both cases, whatever the draw
	return string(b)
}

// TestSecretNamesEveryCaseStyle: a random value of 16 or more characters
// under a secret-named key is found whatever the key's case style, bare or
// quoted, after ':', '=' or ' = '.
func TestSecretNamesEveryCaseStyle(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 16))
	names := [][]string{{"client", "secret"}, {"access", "token"}, {"db", "password"}, {"private", "key"},
		{"api", "key"}, {"auth", "token"}, {"webhook", "secret"}, {"refresh", "token"}, {"signing", "secret"}}
	for _, words := range names {
		for _, name := range caseStyles(words) {
			for _, sep := range []string{": ", "=", " = "} {
				for _, quote := range []string{"", `"`, "'"} {
					v := randomValue(rng, 16+rng.IntN(9))
					in := name + sep + quote + v + quote
					out, found := std().Redact(in)
					if len(found) == 0 || strings.Contains(out, v) {
						t.Errorf("not found: %q -> %q", in, out)
					}
				}
			}
		}
	}
}
