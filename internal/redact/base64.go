package redact

import (
	"encoding/base64"
	"strings"
)

// Base64 runs shorter than this are not decoded: 16 characters are 12
// bytes, the shortest user:password worth the name.
const (
	minBase64 = 12
	maxBase64 = 8 << 10
)

// base64Secrets finds runs of base64 that decode to printable text holding
// a secret (a token the other rules know) or shaped like user:password (an
// HTTP Basic credential, a docker config's auth). Each run is decoded once
// and its text searched once, without this rule: linear in s.
func base64Secrets(r *Redactor, s string, ru *rule, prio int, cands []candidate) []candidate {
	for i := 0; i < len(s); {
		if !isBase64Byte(s[i]) {
			i++
			continue
		}
		start := i
		if start > 0 && s[start-1] == '\\' {
			start++ // the letter of an escape such as \n before the run
		}
		for i < len(s) && isBase64Byte(s[i]) {
			i++
		}
		end := i
		for i < len(s) && i-end < 2 && s[i] == '=' {
			i++
		}
		run := s[start:i]
		if len(run) < minBase64 || len(run) > maxBase64 || start > 0 && isNameByte(s[start-1]) && s[start-1] != '-' && s[start-1] != '.' {
			continue
		}
		dec, ok := decode64(run)
		if !ok || !printable(dec) {
			continue
		}
		if userPass(dec) || len(r.findOnce(dec, true)) > 0 {
			cands = append(cands, candidate{Finding: Finding{Kind: ru.kind, Start: start, End: i}, prio: prio, ru: ru, from: start})
		}
	}
	return cands
}

func isBase64Byte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
}

// decode64 decodes standard or URL-safe base64, padded or not. It first
// decodes a short prefix: most runs (identifiers, paths, hashes) decode to
// bytes that are not text, and are dropped there.
func decode64(s string) (string, bool) {
	enc := base64.StdEncoding
	if strings.ContainsAny(s, "-_") {
		if strings.ContainsAny(s, "+/") {
			return "", false
		}
		enc = base64.URLEncoding
	}
	body := strings.TrimRight(s, "=")
	if len(body)%4 == 1 {
		return "", false
	}
	raw := enc.WithPadding(base64.NoPadding)
	if len(body) > 8 {
		head, err := raw.DecodeString(body[:8])
		if err != nil || !printable(string(head)) {
			return "", false
		}
	}
	b, err := raw.DecodeString(body)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// printable reports text: printable ASCII, tabs and line breaks.
func printable(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < ' ' || c > '~') && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

// userPass reports user:password: a name, one colon, then at least four
// characters, no spaces.
func userPass(s string) bool {
	user, pass, ok := strings.Cut(s, ":")
	if !ok || user == "" || len(user) > 128 || len(pass) < 4 || pass[0] == '/' || len(pass) > 256 || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	return !isPlaceholder(pass) && strings.Trim(user, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._@+-") == ""
}
