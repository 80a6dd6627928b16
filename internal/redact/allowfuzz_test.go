package redact

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
)

// allowCase is a secret in its text and an allow entry made from them.
type allowCase struct {
	text, secret, entry string
	again               func(seed uint64) (text, secret string) // another secret of the same shape, in the same text
}

// changed is c's text with seven of the secret's letters and digits
// changed at random, each to another character of its class.
func (c allowCase) changed(seed uint64) (text, secret string) {
	rng := rand.New(rand.NewPCG(seed, 13))
	b := []byte(c.secret)
	var at []int
	for i, x := range b {
		if _, ok := sameClass(x); ok {
			at = append(at, i)
		}
	}
	rng.Shuffle(len(at), func(i, j int) { at[i], at[j] = at[j], at[i] })
	for _, i := range at[:min(7, len(at))] {
		class := "0123456789"
		switch x := b[i]; {
		case 'a' <= x && x <= 'z':
			class = "abcdefghijklmnopqrstuvwxyz"
		case 'A' <= x && x <= 'Z':
			class = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		}
		for y := b[i]; y == b[i]; {
			y = class[rng.IntN(len(class))]
			if y != b[i] {
				b[i] = y
				break
			}
		}
	}
	return strings.Replace(c.text, c.secret, string(b), 1), string(b)
}

// makeAllowCase draws a secret (a provider's token, or a password under a
// secret name) and an entry of one of the shapes a teammate could commit:
// a prefix, a fragment, anchored, length-keyed, the variable's name, a
// class after a prefix, case-folded, or the whole value.
func makeAllowCase(seed uint64, shape, a, b uint8) allowCase {
	rng := rand.New(rand.NewPCG(seed, 7))
	contexts := []string{"%s", "TOKEN=%s\n", `{"api_key": "%s"}`, "Authorization: Bearer %s", "STAGING_DEPLOY_PASSWORD=%s"}
	ctx := contexts[rng.IntN(len(contexts))]
	var draw func(seed uint64) string
	if rng.IntN(3) == 0 {
		ctx = "STAGING_DEPLOY_PASSWORD=%s"
		draw = func(seed uint64) string {
			r := rand.New(rand.NewPCG(seed, 11))
			const set = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789#!%"
			b := make([]byte, 16+r.IntN(16))
			for i := range b {
				b[i] = set[r.IntN(len(set))]
			}
			return string(b)
		}
	} else {
		tok := tokens[rng.IntN(len(tokens))]
		pre, _ := syntax.Parse(tok.re, syntax.Perl)
		draw = func(seed uint64) string { return drawToken(pre, tok.min, int(seed%100000)) }
	}
	s := draw(seed)
	n := len(s)
	i, j := int(a)%n, int(b)%n
	if i > j {
		i, j = j, i
	}
	if j == i {
		j = min(n, i+1)
	}
	q := regexp.QuoteMeta
	name, _, _ := strings.Cut(ctx, "%s")
	var entry string
	switch shape % 9 {
	case 0:
		entry = q(s[:j])
	case 1:
		entry = q(s[i:j])
	case 2:
		entry = "^" + q(s[:j])
	case 3:
		entry = fmt.Sprintf("^.{%d}$", n)
	case 4:
		entry = fmt.Sprintf(`\b[A-Za-z0-9_#!%%-]{%d,%d}\b`, max(1, n-int(a)%4), n+int(b)%4)
	case 5:
		entry = q(strings.TrimSpace(name))
	case 6:
		entry = q(s[:i]) + `[A-Za-z0-9_]+`
	case 7:
		entry = "(?i)" + q(strings.ToLower(s[i:j]))
	default:
		entry = q(s)
	}
	return allowCase{text: fmt.Sprintf(ctx, s), secret: s, entry: entry, again: func(seed uint64) (string, string) {
		s := draw(seed)
		return fmt.Sprintf(ctx, s), s
	}}
}

// FuzzAllowEntry: whatever entry a configuration holds, it never spares a
// class of secrets: when it spares a secret the built-in rules find, it
// spares none of the other secrets of the same shape drawn after it, and
// what it did is counted for the run to say.
func FuzzAllowEntry(f *testing.F) {
	for s := range uint8(18) {
		f.Add(uint64(s)*7919, s, uint8(3), uint8(9))
		f.Add(uint64(s)*104729, s, uint8(0), uint8(30))
	}
	f.Fuzz(func(t *testing.T, seed uint64, shape, a, b uint8) {
		c := makeAllowCase(seed, shape, a, b)
		if out, _ := std().Redact(c.text); strings.Contains(out, c.secret) {
			return // not a secret the built-in rules find
		}
		r, err := New(Config{Allow: []string{c.entry}})
		if err != nil {
			return // refused on load: said, and costs only itself
		}
		out, _ := r.Redact(c.text)
		if !strings.Contains(out, c.secret) {
			return
		}
		if len(r.Allowances()) == 0 || r.Allowances()[0].Spared == 0 {
			t.Errorf("allow %q spared %q unsaid", c.entry, c.secret)
		}
		// The same value with seven of its letters and digits changed
		// (at random, each to another of its class) is another secret.
		if text, s := c.changed(seed); s != c.secret {
			if o, _ := std().Redact(text); !strings.Contains(o, s) {
				if o, _ := r.Redact(text); strings.Contains(o, s) {
					t.Fatalf("allow %q spares %q and %q, seven characters apart", c.entry, c.secret, s)
				}
			}
		}
		for k := range uint64(8) {
			text, s := c.again(seed + 1 + k*1_000_003)
			if s == c.secret {
				continue
			}
			if o, _ := std().Redact(text); strings.Contains(o, s) {
				continue
			}
			if o, _ := r.Redact(text); strings.Contains(o, s) {
				t.Fatalf("allow %q spares a class: %q and %q", c.entry, c.secret, s)
			}
		}
	})
}

// TestAllowEntryShapes runs FuzzAllowEntry's property over many drawn
// cases in the plain suite, and shows every shape but the whole value is
// overruled at least once (the check has something to do).
func TestAllowEntryShapes(t *testing.T) {
	overruled := map[uint8]int{}
	spared := map[uint8]int{}
	for seed := range uint64(600) {
		shape := uint8(seed % 9)
		c := makeAllowCase(seed*2654435761, shape, uint8(seed*7), uint8(seed*13))
		if out, _ := std().Redact(c.text); strings.Contains(out, c.secret) {
			continue
		}
		r, err := New(Config{Allow: []string{c.entry}})
		if err != nil {
			continue
		}
		out, _ := r.Redact(c.text)
		if !strings.Contains(out, c.secret) {
			overruled[shape]++
			continue
		}
		spared[shape]++
		if text, s := c.changed(seed); s != c.secret {
			if o, _ := std().Redact(text); !strings.Contains(o, s) {
				if o, _ := r.Redact(text); strings.Contains(o, s) {
					t.Errorf("allow %q spares %q and %q, seven characters apart", c.entry, c.secret, s)
				}
			}
		}
		text, s := c.again(seed + 99)
		if o, _ := std().Redact(text); s != c.secret && !strings.Contains(o, s) {
			if o, _ := r.Redact(text); strings.Contains(o, s) {
				t.Errorf("allow %q spares a class: %q and %q", c.entry, c.secret, s)
			}
		}
	}
	t.Logf("overruled by shape: %v; spared: %v", overruled, spared)
	if spared[8] == 0 {
		t.Errorf("the whole value is never spared: %v", spared)
	}
}
