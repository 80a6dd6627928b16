package redact

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// allowCanaries are secrets of the common shapes, each alone and in the
// text a rule would match around it. An allow entry exists to spare one
// known false positive; one that matches any of these would let real
// secrets through (".*", "ghp_", "TOKEN", "[a-z]"), and is refused: a
// repository's committed configuration must not be able to switch
// redaction off.
var allowCanaries = []string{
	"ghp_Vq7Lk2Xw9Zp3Rt8Mn4Bc6Yd1Fg5Hj0Ks2Ua9",
	"GITHUB_TOKEN=ghp_Vq7Lk2Xw9Zp3Rt8Mn4Bc6Yd1Fg5Hj0Ks2Ua9",
	"AKIAQ7XW2ZP9RT8MN4BC",
	"aws_secret_access_key = kQ8vZ2xL9mW3pR7tN4bC6yD1fG5hJ0sK2uA9eX3q",
	"sk-proj-Vq7Lk2Xw9Zp3Rt8Mn4Bc6Yd1Fg5Hj0Ks2Ua9Vq7Lk2Xw9",
	"xoxb-2741965520-7419655203-Vq7Lk2Xw9Zp3Rt8Mn4Bc6Yd1",
	"Qw7!vZ2x#L9m",
	"DB_PASSWORD=Qw7!vZ2x#L9m",
	"password: Qw7!vZ2x#L9m",
	"Authorization: Bearer Vq7Lk2Xw9Zp3Rt8Mn4Bc6Yd1",
	"https://deploy:Qw7vZ2xL9m@git.example.com/repo.git",
	"-----BEGIN RSA PRIVATE KEY-----",
}

// checkAllow refuses an allow entry that would spare real secrets.
func checkAllow(re *regexp.Regexp, entry string) error {
	for _, c := range secretSamples() {
		if re.MatchString(c) {
			return fmt.Errorf("redact allow %q: would let real secrets through (it matches %.12s…); name the one false positive instead", entry, c)
		}
	}
	return nil
}

// SplitAllow returns the allow entries that spare no sample secret, and
// an error for each one refused. A configuration keeps the first and
// reports the second: a refused entry costs only itself.
func SplitAllow(entries []string) (kept []string, refused []error) {
	for _, a := range entries {
		re, err := regexp.Compile(a)
		if err != nil {
			re = regexp.MustCompile(regexp.QuoteMeta(a))
		}
		if err := checkAllow(re, a); err != nil {
			refused = append(refused, err)
			continue
		}
		kept = append(kept, a)
	}
	return kept, refused
}

// maxFree is how many characters of a secret an allow entry may leave
// free and still spare it: a value with at most this many characters an
// entry does not fix is one the entry names (FAKE_EXAMPLE_12345 under
// `FAKE_EXAMPLE_[0-9]+`), not a class of secrets.
const maxFree = 6

// pins reports whether re fixes all but maxFree characters of secret:
// each character (at most 256 of them, spread over the secret) is changed
// to another of its class, and re must then match neither the changed
// secret nor the whole text around it (secret is at off in whole). A
// character that is not an ASCII letter or digit is left, as if fixed.
func pins(re *regexp.Regexp, secret, whole string, off int) bool {
	n := len(secret)
	inWhole := off >= 0 && off+n <= len(whole) && whole[off:off+n] == secret
	step := max(1, n/256)
	free := 0
	b := []byte(secret)
	for i := 0; i < n; i += step {
		c, ok := sameClass(secret[i])
		if !ok {
			continue
		}
		b[i] = c
		changed := string(b)
		b[i] = secret[i]
		if re.MatchString(changed) || inWhole && re.MatchString(whole[:off]+changed+whole[off+n:]) {
			if free++; free > maxFree {
				return false
			}
		}
	}
	return true
}

// sameClass returns another character of c's class: a digit for a digit,
// a hex letter for a hex letter, a letter for a letter of the same case.
func sameClass(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return '0' + (c-'0'+3)%10, true
	case 'a' <= c && c <= 'f':
		return 'a' + (c-'a'+3)%6, true
	case 'A' <= c && c <= 'F':
		return 'A' + (c-'A'+3)%6, true
	case 'g' <= c && c <= 'z':
		return 'g' + (c-'g'+7)%20, true
	case 'G' <= c && c <= 'Z':
		return 'G' + (c-'G'+7)%20, true
	}
	return 0, false
}

// allowKey is one line of Allowances before it is counted.
type allowKey struct {
	entry  int
	kind   string
	spared bool
}

// Allowance is what one allow entry did to the secrets of one kind in a
// Redactor's life: the values it spared (it names them), and those it
// matched but did not name, redacted anyway (Overruled).
type Allowance struct {
	Entry     string `json:"entry"`
	Kind      string `json:"kind"`
	Spared    int    `json:"spared"`
	Overruled int    `json:"overruled"`
}

// Allowances lists what the allow entries did so far, by entry and kind,
// for a program to say on every run what its configuration spared.
func (r *Redactor) Allowances() []Allowance {
	r.allowMu.Lock()
	defer r.allowMu.Unlock()
	at := map[[2]string]int{}
	var out []Allowance
	for k, n := range r.allowLog {
		key := [2]string{r.allow[k.entry].String(), k.kind}
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, Allowance{Entry: key[0], Kind: k.kind})
		}
		a := &out[i]
		if k.spared {
			a.Spared += n
		} else {
			a.Overruled += n
		}
	}
	slices.SortFunc(out, func(a, b Allowance) int { return strings.Compare(a.Entry+"\x00"+a.Kind, b.Entry+"\x00"+b.Kind) })
	return out
}
