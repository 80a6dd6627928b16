package redact

import (
	"strings"
	"testing"
)

// TestEscapedValues: a secret's value may hold a backslash or a quote,
// escaped or not, and the line may itself be escaped (a JSON or YAML
// string): the whole value goes, the text around it stays.
func TestEscapedValues(t *testing.T) {
	for _, c := range []struct{ in, secret string }{
		{`DB_PASSWORD=hun\ter2xy`, `hun\ter2xy`},
		{`DB_PASSWORD='hun\ter2xy'`, `hun\ter2xy`},
		{`./deploy --password "p\w0rd long" --env prod`, `p\w0rd long`},
		{`client_secret: "a\"bcdefgh"`, `a\"bcdefgh`},
		{`now: "run it with password: 'a \"b\" c'"`, `a \"b\" c`},
		{`curl -u admin:p@ss"w0rd https://ci.acme.dev/`, `p@ss"w0rd`},
		{`{"cmd": "export DB_PASSWORD=hun\\ter2xy && make"}`, `hun\\ter2xy`},
		{`{"cmd": "./deploy --password \"p\\w0rd long\" --env prod"}`, `p\\w0rd long`},
		{`{"text": "client_secret: \"a\\\"bcdefgh\"\nnext"}`, `a\\\"bcdefgh`},
	} {
		got, fs := Redact(c.in)
		if len(fs) != 1 || c.in[fs[0].Start:fs[0].End] != c.secret {
			t.Errorf("%s: findings %v (%q), want one over %q", c.in, fs, got, c.secret)
			continue
		}
		if strings.Contains(got, c.secret) {
			t.Errorf("%s: secret left in %q", c.in, got)
		}
	}
}
