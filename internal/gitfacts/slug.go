package gitfacts

import "strings"

// maxSlug is the longest slug Slug returns.
const maxSlug = 64

// Slug turns a branch name into a ledger slug: lowercase ASCII letters,
// digits and single dashes, no leading or trailing dash, at most 64
// characters ("feature/Auth Refactor" → "feature-auth-refactor"). Any other
// character, including non-ASCII letters, separates words. It returns "" when
// nothing is left.
func Slug(branch string) string {
	var b strings.Builder
	dash := false
	for _, c := range branch {
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
			fallthrough
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(c)
		default:
			dash = true
		}
	}
	s := b.String()
	if len(s) > maxSlug {
		s = strings.TrimRight(s[:maxSlug], "-")
	}
	return s
}
