package redact

import (
	"fmt"
	"regexp"
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
