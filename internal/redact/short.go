package redact

import (
	"crypto/sha256"
	"encoding/hex"
)

// For text that is not file contents: a stderr line, a systemMessage, a
// name taken from a payload.

// Contains reports whether the built-in rules find a secret in s.
func Contains(s string) bool { return std().Contains(s) }

// String is s with every secret the built-in rules find replaced by its
// marker.
func String(s string) string { return std().String(s) }

// Contains reports whether r finds a secret in s.
func (r *Redactor) Contains(s string) bool { return len(r.find(s)) > 0 }

// String is s with every secret r finds replaced by its marker.
func (r *Redactor) String(s string) string {
	out, _ := r.Redact(s)
	return out
}

// SafeName returns s when it may name a local file (a session id naming a
// state file): a UUID, or a short plain name that holds no secret and does
// not look like one. Anything else is replaced by a stable digest of it,
// "h" and 32 hex digits, so the same input names the same file and the
// name never carries a credential to disk.
func SafeName(s string) string {
	if isUUID(s) {
		return s
	}
	if plainName(s) && !Contains(s) && !genericValue(s, "token "+s, 1) {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return "h" + hex.EncodeToString(sum[:16])
}

// isUUID reports whether s is a UUID: 8-4-4-4-12 hex digits. (A loop,
// not a regular expression: a session start checks its session's id, and
// compiling the pattern cost it more than the check.)
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// plainName: 1-128 letters, digits, '.', '_' and '-', not starting with '.'
// or '-'.
func plainName(s string) bool {
	if s == "" || len(s) > 128 || s[0] == '.' || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i]) {
			return false
		}
	}
	return true
}
