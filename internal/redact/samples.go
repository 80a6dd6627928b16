package redact

import (
	"encoding/base64"
	"math/rand/v2"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode/utf8"
)

// Sample secrets check allow entries: an entry that matches any of them
// would spare real secrets. They are generated for every built-in kind:
// provider tokens from their own patterns, the other shapes from templates
// of the text they sit in, each with values drawn so that every character
// a value may start with is drawn at least once.

const (
	sampleAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	sampleB64   = sampleAlnum + "+/"
	samplePass  = sampleAlnum + "!#%^*-_.~"
)

// samplesPerToken is how many values each provider pattern gives: enough
// that an entry excluding one character, or keeping a few, still matches.
const samplesPerToken = 48

// secretSamples are the texts an allow entry must match none of.
var secretSamples = sync.OnceValue(func() []string {
	out := append([]string(nil), allowCanaries...)
	for _, t := range tokens {
		out = append(out, tokenSamples(t)...)
	}
	return append(out, shapeSamples()...)
})

// tokenSamples draws values of t's pattern, each alone and, for the first
// few, in the text around it (an entry may match the rule's whole match).
func tokenSamples(t token) []string {
	re, err := syntax.Parse(t.re, syntax.Perl)
	if err != nil {
		panic("redact: token " + t.kind + ": " + err.Error())
	}
	var out []string
	for i := range samplesPerToken {
		v := drawToken(re, t.min, i)
		out = append(out, v)
		if i < 8 {
			out = append(out, "TOKEN="+v+"\n", `{"token": "`+v+`"}`, "Authorization: Bearer "+v)
		}
	}
	return out
}

// drawToken returns value i of re, at least min bytes long.
func drawToken(re *syntax.Regexp, min, i int) string {
	for open := 12; ; open += 16 {
		g := &drawer{rng: rand.New(rand.NewPCG(uint64(i), 23)), i: i, open: open}
		var b strings.Builder
		g.draw(re, &b)
		if b.Len() >= min || open > 4096 {
			return b.String()
		}
	}
}

// drawer writes a string re matches. The first character class drawn
// takes its i-th member, so the values of i cover every first character.
type drawer struct {
	rng     *rand.Rand
	i       int
	open    int // repetitions of an open-ended repeat
	classes int
}

func (g *drawer) draw(re *syntax.Regexp, b *strings.Builder) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		b.WriteRune(g.member(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte(sampleAlnum[g.rng.IntN(len(sampleAlnum))])
	case syntax.OpCapture:
		g.draw(re.Sub[0], b)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			g.draw(s, b)
		}
	case syntax.OpAlternate:
		g.draw(re.Sub[(g.i+g.rng.IntN(2))%len(re.Sub)], b)
	case syntax.OpQuest:
		if g.rng.IntN(2) == 0 {
			g.draw(re.Sub[0], b)
		}
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		for range g.count(re) {
			g.draw(re.Sub[0], b)
		}
	}
}

// count is how many times a repeat runs.
func (g *drawer) count(re *syntax.Regexp) int {
	lo, hi := re.Min, re.Max
	switch re.Op {
	case syntax.OpStar:
		lo, hi = 0, -1
	case syntax.OpPlus:
		lo, hi = 1, -1
	}
	if hi < 0 {
		return lo + g.open
	}
	return lo + g.rng.IntN(hi-lo+1)
}

// member picks a rune of a class given as ranges (lo, hi pairs).
func (g *drawer) member(ranges []rune) rune {
	size := 0
	for k := 0; k+1 < len(ranges); k += 2 {
		size += int(ranges[k+1]-ranges[k]) + 1
	}
	size = min(size, 1<<16)
	n := g.rng.IntN(size)
	if g.classes == 0 {
		n = g.i % size
	}
	g.classes++
	for k := 0; k+1 < len(ranges); k += 2 {
		w := int(ranges[k+1]-ranges[k]) + 1
		if n < w && utf8.ValidRune(ranges[k]+rune(n)) {
			return ranges[k] + rune(n)
		}
		n -= w
	}
	return 'x'
}

// shape is a template of one built-in shape: the value drawn (n bytes of
// set) goes where text puts it.
type shape struct {
	set  string
	n    int
	text func(v string) string
}

// secretNames are secret-named keys in every case style.
var secretNames = func() []string {
	var out []string
	for _, w := range [][2]string{{"client", "secret"}, {"access", "token"}, {"db", "password"}, {"api", "key"},
		{"secret", "key"}, {"auth", "token"}, {"private", "key"}, {"signing", "secret"}} {
		t := func(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
		out = append(out, w[0]+t(w[1]), t(w[0])+t(w[1]), w[0]+"-"+w[1], w[0]+"_"+w[1], strings.ToUpper(w[0]+"_"+w[1]))
	}
	return out
}()

func shapes() []shape {
	s := func(set string, n int, f func(v string) string) shape { return shape{set, n, f} }
	var out []shape
	for _, name := range secretNames {
		out = append(out,
			s(sampleAlnum, 20, func(v string) string { return name + "=" + v }),
			s(sampleAlnum, 16, func(v string) string { return name + `: "` + v + `"` }),
			s(sampleAlnum, 24, func(v string) string { return name + ": " + v }))
	}
	pem := func(kind string) func(string) string {
		return func(v string) string {
			return "-----BEGIN " + kind + "-----\n" + v + "\n-----END " + kind + "-----\n"
		}
	}
	return append(out,
		s(samplePass, 14, func(v string) string { return "password: " + v }),
		s(sampleAlnum, 32, func(v string) string { return "the api secret is " + v }),
		s(sampleAlnum, 32, func(v string) string { return "Authorization: Bearer " + v }),
		s(sampleAlnum, 24, func(v string) string { return "X-Api-Key: " + v }),
		s(sampleAlnum, 16, func(v string) string { return "mytool --password " + v }),
		s(sampleAlnum, 16, func(v string) string { return "curl -u admin:" + v + " https://api.example.com" }),
		s(sampleAlnum, 16, func(v string) string { return "mysql -u root -p" + v + " app" }),
		s(sampleAlnum, 16, func(v string) string { return "sshpass -p " + v + " ssh host" }),
		s(sampleAlnum, 16, func(v string) string { return "https://deploy:" + v + "@git.example.com/repo.git" }),
		s(sampleAlnum, 16, func(v string) string { return "app:" + v + "@db.example.com:5432" }),
		s(sampleB64, 40, func(v string) string { return "aws_secret_access_key = " + v }),
		s(sampleB64, 86, func(v string) string { return "DefaultEndpointsProtocol=https;AccountKey=" + v + "==" }),
		s(sampleAlnum, 43, func(v string) string { return "https://a.blob.core.windows.net/c?sv=2022-11-02&sig=" + v }),
		s(sampleAlnum, 24, func(v string) string { return "https://hooks.slack.com/services/T0AAAA/B0BBBB/" + v }),
		s(sampleAlnum, 68, func(v string) string { return "https://discord.com/api/webhooks/123456789012345678/" + v }),
		s(sampleAlnum, 24, func(v string) string { return "VAULT_TOKEN: s." + v }),
		s(sampleAlnum, 43, func(v string) string { return "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + v }),
		s(sampleAlnum, 16, func(v string) string {
			return `{"auths": {"r.example.com": {"auth": "` + base64.StdEncoding.EncodeToString([]byte("deploy:"+v)) + `"}}}`
		}),
		s(sampleAlnum, 36, func(v string) string { return "echo " + base64.StdEncoding.EncodeToString([]byte("ghp_"+v)) }),
		s(sampleB64, 64, func(v string) string {
			return `"private_key": "` + strings.ReplaceAll(pem("PRIVATE KEY")(v), "\n", `\n`) + `"`
		}),
		s(sampleB64, 64, pem("RSA PRIVATE KEY")),
		s(sampleB64, 64, pem("EC PRIVATE KEY")),
		s(sampleB64, 64, pem("OPENSSH PRIVATE KEY")),
		s(sampleB64, 64, pem("ENCRYPTED PRIVATE KEY")),
		s(sampleB64, 64, pem("PGP PRIVATE KEY BLOCK")),
	)
}

// shapeSamples draws each shape's values.
func shapeSamples() []string {
	var out []string
	for k, sh := range shapes() {
		for i := range 8 {
			rng := rand.New(rand.NewPCG(uint64(k), uint64(i)))
			v := []byte(sh.set[i*7%len(sh.set) : i*7%len(sh.set)+1])
			for len(v) < sh.n {
				v = append(v, sh.set[rng.IntN(len(sh.set))])
			}
			v[len(v)/2] = '7' // a digit, which some shapes ask for
			out = append(out, sh.text(string(v)))
		}
	}
	return out
}
