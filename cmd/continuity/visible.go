package main

import (
	"fmt"
	"github.com/continuity-md/continuity/internal/inject"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// visible returns s with every character a terminal acts on, or that
// hides text, made visible, as git shows them: C0 controls in caret
// notation (ESC as ^[, BEL as ^G, a carriage return not before a line
// feed as ^M, DEL as ^?), C1 controls and invisible characters as <U+XXXX>,
// invalid bytes as \xXX. Line feeds and tabs stay; so do the styles in
// keep (continuity's own colours on a terminal). In JSON (inJSON), where
// they can only be inside strings, they are written as \u escapes
// instead, which decode to the same text.
func visible(s string, inJSON bool, keep []string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if k := keptAt(s[i:], keep); k > 0 {
			b.WriteString(s[i : i+k])
			i += k
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !shown(r, s[i+n:]):
			b.WriteString(s[i : i+n])
		case inJSON:
			for _, u := range utf16Units(r) {
				fmt.Fprintf(&b, `\u%04x`, u)
			}
		case r < 0x20:
			b.WriteString("^" + string(rune(r+0x40)))
		case r == 0x7f:
			b.WriteString("^?")
		default:
			fmt.Fprintf(&b, "<U+%04X>", r)
		}
		i += n
	}
	return b.String()
}

// shown reports whether r, followed by rest, must be made visible.
func shown(r rune, rest string) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r == '\r':
		return !strings.HasPrefix(rest, "\n")
	}
	return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || inject.Invisible(r)
}

// clean reports quickly that s has nothing to make visible.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f {
			return false
		}
	}
	return true
}

func keptAt(s string, keep []string) int {
	if len(s) == 0 || s[0] != 0x1b {
		return 0
	}
	for _, k := range keep {
		if strings.HasPrefix(s, k) {
			return len(k)
		}
	}
	return 0
}

func utf16Units(r rune) []uint16 {
	if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
		return []uint16{uint16(r1), uint16(r2)}
	}
	return []uint16{uint16(r)}
}
