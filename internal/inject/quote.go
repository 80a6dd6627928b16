package inject

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text from the repository's files (a ledger, a teammate's handoff) reaches
// the model as quoted data: between two fence lines named by a nonce the
// text cannot close or imitate (a hash of the quoted text itself: text
// that held its own hash cannot be written), with every line of quoted
// prose indented, a line that imitates continuity's own marked, and the
// characters that hide text from a reader removed.

// Invisible reports a character that changes how the text around it reads
// without being seen: bidi controls, zero-width characters, Unicode tags,
// interlinear annotations.
func Invisible(r rune) bool {
	switch {
	case r == 0x00ad, r == 0x061c, r == 0x180e, r == 0xfeff:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2069:
		return true
	case r >= 0xfff9 && r <= 0xfffb, r >= 0xe0000 && r <= 0xe007f:
		return true
	}
	return false
}

// clean removes from s the invisible characters and the controls other
// than line breaks and tabs (a carriage return before a line feed goes
// too), and invalid bytes; what a reader sees as a line break (a lone
// carriage return, a vertical tab or form feed, NEL, Unicode's line and
// paragraph separators) becomes one, so each line is checked as a line.
func clean(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				continue
			}
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			continue
		case r == '\r' || r == '\v' || r == '\f' || r == 0x85 || r == 0x2028 || r == 0x2029:
			b.WriteByte('\n')
			continue
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || Invisible(r):
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isClean reports quickly that clean has nothing to remove.
func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f {
			return false
		}
	}
	return true
}

// ownLine reports a line that reads like one of continuity's own: its
// header or a fence, after any space (no-break and ideographic ones
// included), invisible character or list and quote mark, in any case.
func ownLine(line string) bool {
	l := strings.TrimLeftFunc(line, func(r rune) bool {
		return unicode.IsSpace(r) || Invisible(r) || strings.ContainsRune(">-*#+|", r)
	})
	return strings.HasPrefix(l, fenceMark) || len(l) >= len("continuity:") && strings.EqualFold(l[:len("continuity:")], "continuity:")
}

// quoteProse cleans a block of prose from a file: one line stays as it
// is; several are each indented, so none starts where continuity's own
// lines do; a line that imitates continuity's is marked as quoted.
func quoteProse(s string) string {
	s = strings.TrimSpace(clean(s))
	if !strings.Contains(s, "\n") {
		return markOwn(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = "  " + markOwn(l)
	}
	return strings.Join(lines, "\n")
}

// quoteLine cleans one line of a file's text (a list item, an author).
func quoteLine(s string) string { return markOwn(oneLine(clean(s))) }

func markOwn(line string) string {
	if ownLine(line) {
		return "(quoted) " + line
	}
	return line
}

// fenceMark opens the fence lines.
const fenceMark = "«"

// nonce names the fence around quoted: a hash of it.
func nonce(quoted string) string {
	sum := sha256.Sum256([]byte(quoted))
	return hex.EncodeToString(sum[:6])
}
