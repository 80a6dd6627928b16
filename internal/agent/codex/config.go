package codex

import (
	"strconv"
	"strings"
)

// config is what continuity reads of Codex's config.toml: the trust level
// of each project, and whether any hook has been trusted.
type config struct {
	projects    map[string]string // project path → trust_level
	hookTrusted bool              // some [hooks.state.…] entry holds a trusted hash
}

// readConfig reads the parts of a config.toml continuity needs. It is a
// small reader, not a TOML parser: it follows tables ([a."b"]), dotted
// keys (a."b".c = …) and one-line inline tables ({ c = "…" }) to string
// values, skips multi-line strings and arrays it does not need, and reads
// what it cannot understand as nothing (never an error: a config Codex
// itself refuses trusts nothing either).
func readConfig(src []byte) config {
	c := config{projects: map[string]string{}}
	var table []string
	var closing string // the delimiter that ends the multi-line string being skipped
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if closing != "" {
			if strings.Contains(line, closing) {
				closing = ""
			}
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		if line[0] == '[' {
			inner := strings.TrimPrefix(line[1:], "[")
			if key, rest, ok := parseKey(inner); ok && strings.HasPrefix(strings.TrimSpace(rest), "]") {
				table = key
			} else {
				table = nil
			}
			continue
		}
		key, rest, ok := parseKey(line)
		rest = strings.TrimSpace(rest)
		if !ok || !strings.HasPrefix(rest, "=") {
			continue
		}
		value := strings.TrimSpace(rest[1:])
		for _, d := range []string{`"""`, `'''`} {
			if strings.HasPrefix(value, d) && !strings.Contains(value[3:], d) {
				closing = d
			}
		}
		c.set(append(append([]string(nil), table...), key...), value)
	}
	return c
}

// set records a value at a full key path, following inline tables.
func (c *config) set(path []string, value string) {
	if strings.HasPrefix(value, "{") {
		rest := value[1:]
		for {
			key, after, ok := parseKey(rest)
			after = strings.TrimSpace(after)
			if !ok || !strings.HasPrefix(after, "=") {
				return
			}
			v := strings.TrimSpace(after[1:])
			if strings.HasPrefix(v, "{") {
				c.set(append(append([]string(nil), path...), key...), v)
				return // the rest of a nested table is not worth following
			}
			s, tail, ok := parseString(v)
			if !ok {
				return
			}
			c.setString(append(append([]string(nil), path...), key...), s)
			tail = strings.TrimSpace(tail)
			if !strings.HasPrefix(tail, ",") {
				return
			}
			rest = tail[1:]
		}
	}
	if s, _, ok := parseString(value); ok {
		c.setString(path, s)
	}
}

func (c *config) setString(path []string, s string) {
	n := len(path)
	switch {
	case n == 3 && path[0] == "projects" && path[2] == "trust_level":
		c.projects[path[1]] = s
	case n >= 3 && path[0] == "hooks" && path[1] == "state" &&
		(path[n-1] == "trusted_hash" || path[n-1] == "trusted_content_hash") && s != "":
		c.hookTrusted = true
	}
}

// parseKey reads a dotted key (bare, "basic" or 'literal' parts) at the
// start of s and returns its parts and what follows.
func parseKey(s string) ([]string, string, bool) {
	var parts []string
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return nil, "", false
		}
		var part string
		switch s[0] {
		case '"', '\'':
			var ok bool
			if part, s, ok = parseString(s); !ok {
				return nil, "", false
			}
		default:
			i := 0
			for i < len(s) && (s[i] == '_' || s[i] == '-' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9') {
				i++
			}
			if i == 0 {
				return nil, "", false
			}
			part, s = s[:i], s[i:]
		}
		parts = append(parts, part)
		s = strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(s, ".") {
			return parts, s, true
		}
		s = s[1:]
	}
}

// parseString reads a one-line TOML string ("basic" with escapes, or
// 'literal') at the start of s and returns its value and what follows.
func parseString(s string) (string, string, bool) {
	if s == "" {
		return "", "", false
	}
	switch s[0] {
	case '\'':
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", "", false
		}
		return s[1 : 1+end], s[2+end:], true
	case '"':
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '"':
				return b.String(), s[i+1:], true
			case '\\':
				if i+1 >= len(s) {
					return "", "", false
				}
				i++
				switch e := s[i]; e {
				case 'b':
					b.WriteByte('\b')
				case 't':
					b.WriteByte('\t')
				case 'n':
					b.WriteByte('\n')
				case 'f':
					b.WriteByte('\f')
				case 'r':
					b.WriteByte('\r')
				case '"', '\\':
					b.WriteByte(e)
				case 'u', 'U':
					n := 4
					if e == 'U' {
						n = 8
					}
					if i+n >= len(s) {
						return "", "", false
					}
					r, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
					if err != nil {
						return "", "", false
					}
					b.WriteRune(rune(r))
					i += n
				default:
					return "", "", false
				}
			default:
				b.WriteByte(s[i])
			}
		}
	}
	return "", "", false
}
