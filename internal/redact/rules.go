package redact

import (
	"math"
	"strings"
)

// Shared pieces of the patterns. Text in transcripts is often a JSON string,
// so a line break may be the two characters `\n` and a quote may be `\"`.
const (
	// lb is a left boundary: start of window, an escaped line break or tab, or
	// a character that cannot continue a token.
	lb = `(?:^|\\[nrt]|[^A-Za-z0-9_])`
	// q is an optional, possibly escaped, quote.
	q = `(?:\\*["'])?`
)

// MinEntropy is the Shannon entropy, in bits per character, a value next to
// a secret word must reach (with at least MinGenericLen characters and a
// digit) to be redacted as a generic-secret.
const MinEntropy = 3.5

// MinGenericLen is the shortest value the generic-secret rule redacts.
const MinGenericLen = 20

var builtin = []*rule{
	{
		kind:     "gcp-service-account-key",
		keywords: []string{"private_key"},
		re:       lazy(`private_key` + q + `\s*[:=]\s*` + q + `(-----BEGIN[A-Z ]*PRIVATE KEY-----[\s\S]*?-----END[A-Z ]*PRIVATE KEY-----)`),
		groups:   []int{1}, fwd: 16 << 10, multiline: true,
	},
	{
		kind:     "private-key",
		keywords: []string{"-----begin"},
		re:       lazy(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`),
		fwd:      16 << 10, multiline: true,
	},
	{
		// A key cut short (a truncated tool output): the header and the
		// base64 lines that follow it.
		kind:     "private-key",
		keywords: []string{"-----begin"},
		re:       lazy(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:(?:\s|\\[rn])+(?:[A-Za-z0-9+/=]{16,}|[A-Za-z0-9+/=]+$|[A-Za-z-]+: [^\n\\]*))*`),
		fwd:      16 << 10, multiline: true,
	},
	{
		kind:     "aws-access-key",
		keywords: []string{"akia", "asia", "abia", "acca"},
		re:       lazy(lb + `((?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})(?:[^A-Za-z0-9]|$)`),
		groups:   []int{1}, back: 2, fwd: 20,
	},
	{
		kind:     "aws-secret-key",
		keywords: []string{"aws_secret", "awssecret", "secret_access_key", "secretaccesskey"},
		re:       lazy(`(?i:aws_?secret(?:_?access)?_?key|secret_?access_?key)` + q + `[\s\\:=>"']{1,12}([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
		groups:   []int{1}, back: 8, fwd: 80,
	},
	{
		kind:     "gcp-api-key",
		keywords: []string{"aiza"},
		re:       lazy(`(AIza[0-9A-Za-z_-]{35})(?:[^0-9A-Za-z_-]|$)`),
		groups:   []int{1}, fwd: 40,
	},
	{
		kind:     "azure-storage-key",
		keywords: []string{"accountkey"},
		re:       lazy(`(?i:AccountKey)` + q + `[\s\\:="']{1,8}([A-Za-z0-9+/]{40,100}={0,2})`),
		groups:   []int{1}, fwd: 120,
	},
	{
		kind:     "github-fine-grained-token",
		keywords: []string{"github_pat_"},
		re:       lazy(`github_pat_[A-Za-z0-9_]{36,255}`),
		fwd:      260,
	},
	{
		kind:     "github-token",
		keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
		re:       lazy(`gh[pousr]_[A-Za-z0-9]{36,255}`),
		fwd:      260,
	},
	{
		kind:     "gitlab-token",
		keywords: []string{"glpat-", "gldt-", "glrt-", "glptt-", "glsoat-", "glcbt-"},
		re:       lazy(`(?:glpat|gldt|glrt|glptt|glsoat|glcbt)-[A-Za-z0-9_-]{20,}`),
		fwd:      260,
	},
	{
		kind:     "slack-webhook",
		keywords: []string{"hooks.slack.com/"},
		re:       lazy(`hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/_-]{20,})`),
		groups:   []int{1}, fwd: 200,
	},
	{
		kind:     "slack-token",
		keywords: []string{"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxo-", "xoxs-", "xapp-"},
		re:       lazy(`(?:xox[abposr]|xapp)-[0-9A-Za-z-]{10,}`),
		fwd:      260,
	},
	{
		kind:     "stripe-key",
		keywords: []string{"sk_live_", "rk_live_", "sk_test_", "rk_test_"},
		re:       lazy(`(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}`),
		fwd:      260,
	},
	{
		kind:     "anthropic-key",
		keywords: []string{"sk-ant-"},
		re:       lazy(`sk-ant-[A-Za-z0-9_-]{20,}`),
		fwd:      260,
	},
	{
		kind:     "openai-key",
		keywords: []string{"sk-"},
		re:       lazy(`(?:^|\\[nrt]|[^A-Za-z0-9_-])(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,})`),
		groups:   []int{1}, back: 2, fwd: 260,
		valid: func(s, _ string, _ int) bool { return hasDigit(s) && hasUpper(s) && hasLower(s[3:]) },
	},
	{
		kind:     "jwt",
		keywords: []string{"eyj"},
		re:       lazy(`(?:^|\\[nrt]|[^A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)`),
		groups:   []int{1}, back: 2, fwd: 8 << 10,
	},
	{
		// scheme://user:password@host: only the password goes.
		kind:     "url-password",
		keywords: []string{"://"},
		re:       lazy(`[A-Za-z][A-Za-z0-9+.-]{0,20}://[^\s:/?#@'"\\` + "`" + `]{1,64}:([^\s/?#@'"\\` + "`" + `]{1,128})@[A-Za-z0-9.\[\]-]`),
		groups:   []int{1}, back: 24, fwd: 200,
	},
	{
		// NAME=value, NAME: value, "name": "value", export NAME='value',
		// where NAME ends in a secret word.
		kind:     "env-secret",
		keywords: []string{"password", "passwd", "passphrase", "secret", "token", "key", "credential", "_pwd", "_pass"},
		re: lazy(`(?i)` + lb + `((?:[A-Za-z0-9]+[_.-])*(?:[A-Za-z0-9]*(?:password|passwd|passphrase|secret|token|credentials?)|[A-Za-z0-9]+[_.-](?:key|pwd|pass)|(?:api|secret|access|private|signing|encryption|master)key))` +
			q + `[ \t]?(?::=|=>|=|:)[ \t]*` +
			`(?:\\*"([^"\\\n]{1,200})\\*"|'([^'\\\n]{1,200})'|([^\s"'\\,;()\[\]{}<>` + "`" + `]{1,200})(?:[\s"'\\,;)\]}` + "`" + `]|$))`),
		groups: []int{2, 3, 4}, back: 64, fwd: 260,
	},
	{
		// A high-entropy value right after a secret word.
		kind:     "generic-secret",
		keywords: []string{"secret", "password", "passwd", "token", "api_key", "apikey", "key", "credential", "bearer"},
		re: lazy(`[A-Za-z0-9_]{0,24}(?i:secret|password|passwd|token|api_?key|key|credentials?|bearer)[A-Za-z0-9_.-]{0,24}` + q +
			`(?:[ \t]*(?::=|=>|->|=|:)[ \t]*|[ \t]+(?:is[ \t]+)?)` + q + `([A-Za-z0-9+/_.=~][A-Za-z0-9+/_.=~-]{19,})(?:[^A-Za-z0-9+/_.=~(-]|$)`),
		groups: []int{1}, back: 24, fwd: 600,
	},
}

func init() {
	// The value checks refer to the rules' kinds; set them here to keep the
	// table above readable.
	for _, ru := range builtin {
		switch ru.kind {
		case "env-secret":
			ru.valid = envValue
			ru.near = nearAssignment
		case "generic-secret":
			ru.valid = genericValue
			ru.near = nearValue
		}
	}
}

var (
	uuidRE   = lazy(`^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`)
	numberRE = lazy(`^-?(?:0[xX][0-9a-fA-F]+|[0-9]{1,3})$`)
	constRE  = lazy(`^[A-Z][A-Z_]+$`)
	camelRE  = lazy(`[a-z][A-Z]|^[A-Z][a-z]`)
	hexRE    = lazy(`^[0-9a-fA-F]+$`)
	dottedRE = lazy(`^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+$`)
)

// isPlaceholder reports a value that stands for a secret without being one:
// a variable reference, a template, a redaction marker, a masked value.
func isPlaceholder(v string) bool {
	if v == "" {
		return true
	}
	switch v[0] {
	case '$', '<', '%', '{', '*', '@':
		return true
	}
	if strings.HasPrefix(v, "[REDACTED") || strings.Contains(v, "${") || strings.Contains(v, "{{") {
		return true
	}
	if strings.Trim(v, v[:1]) == "" { // one character repeated: xxxx, ****
		return true
	}
	switch strings.ToLower(v) {
	case "password", "passwd", "pass", "secret", "token", "changeme", "change-me", "redacted", "hidden", "masked",
		"null", "none", "nil", "true", "false", "undefined", "example", "dummy", "placeholder", "your-token", "your_token":
		return true
	}
	return false
}

// envValue decides whether the value of a secret-named assignment is a
// literal worth redacting rather than code, a constant or a reference.
// group is the submatch that held it: 4 is a bare (unquoted) value.
func envValue(v, whole string, group int) bool {
	name := whole
	if i := strings.IndexAny(name, ":="); i >= 0 {
		name = name[:i]
	}
	if len(name) >= 2 && name[0] == '\\' {
		name = name[2:] // an escaped line break or tab before the name
	}
	name = strings.Trim(name, "\\\"' \t")
	if i := strings.LastIndexAny(name, " \t(.,;[{"); i >= 0 {
		name = name[i+1:]
	}
	lname := strings.ToLower(name)
	if len(v) < 4 || strings.ContainsAny(v, " \t") || dottedRE.MatchString(v) || isPath(v) || numberRE.MatchString(v) {
		return false
	}
	if group == 4 && camelRE.MatchString(name) {
		// A bare value after a camelCase name is code (Password: pw,
		// PrivateKey: testKey), not configuration.
		return false
	}
	if strings.HasSuffix(lname, "key") {
		// Many *_KEY names hold ids, paths or public keys (SORT_KEY,
		// PUBLIC_KEY, SSH_KEY=~/.ssh/id_ed25519): only a random-looking
		// value is taken for a secret.
		return !strings.Contains(lname, "public") && !uuidRE.MatchString(v) && len(v) >= 16 && hasDigit(v) && !wordy(v) && Entropy(v) >= 3
	}
	// Words without a digit are a name or a type (token: string,
	// "X-Fake-Connection-Token"), not a credential.
	return hasDigit(v) || !wordy(v) && !constRE.MatchString(v)
}

// wordy reports whether at least half of v is made of words (three or more
// lowercase letters, or a capital and two or more, a quarter of them
// vowels), as identifiers and prose are and random tokens seldom are: on
// random base62 tokens of 20-49 characters it says yes to 1.4%.
func wordy(v string) bool {
	in := 0
	for i := 0; i < len(v); {
		j, need := i, 3
		if 'A' <= v[j] && v[j] <= 'Z' {
			j, need = j+1, 2
		}
		k := j
		for k < len(v) && 'a' <= v[k] && v[k] <= 'z' {
			k++
		}
		if k-j >= need && vowels(v[i:k])*4 >= k-i {
			in += k - i
			i = k
			continue
		}
		i++
	}
	return in*2 >= len(v)
}

// genericValue decides whether a value after a secret word looks random
// enough to be a credential.
func genericValue(v, whole string, _ int) bool {
	if name, _, _ := strings.Cut(whole, v); strings.Contains(strings.ToLower(name), "public") {
		return false
	}
	if len(v) < MinGenericLen || !hasDigit(v) || wordy(v) || uuidRE.MatchString(v) || isPath(v) || dottedRE.MatchString(v) {
		return false
	}
	if hexRE.MatchString(v) && (len(v) == 40 || len(v) == 64) { // git object names, checksums
		return false
	}
	return Entropy(v) >= MinEntropy
}

// Entropy is the Shannon entropy of s in bits per byte.
func Entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var n [256]int
	for i := 0; i < len(s); i++ {
		n[s[i]]++
	}
	h := 0.0
	total := float64(len(s))
	for _, c := range n {
		if c > 0 {
			p := float64(c) / total
			h -= p * math.Log2(p)
		}
	}
	return h
}

// nearAssignment: a secret-named assignment's name ends at the keyword
// (DB_PASSWORD=, "token":), so a quote, a space or the separator follows.
func nearAssignment(s string, end int) bool {
	if end >= len(s) {
		return false
	}
	switch s[end] {
	case '"', '\\', '\'', ' ', '\t', ':', '=':
		return true
	}
	return false
}

// nearValue: after a secret word come at most 24 more name characters, a
// separator and a value of at least MinGenericLen characters.
func nearValue(s string, end int) bool {
	i, n := end, len(s)
	for k := 0; i < n && k < 24 && isNameByte(s[i]); k++ {
		i++
	}
	sep := false
	for ; i < n; i++ {
		switch s[i] {
		case '\\', '"', '\'', ' ', '\t', ':', '=', '>':
			sep = true
			continue
		case '-':
			if i+1 < n && s[i+1] == '>' {
				continue
			}
		}
		break
	}
	if !sep {
		return false
	}
	if i+2 < n && fold[s[i]] == 'i' && fold[s[i+1]] == 's' && (s[i+2] == ' ' || s[i+2] == '\t') {
		for i += 2; i < n && (s[i] == ' ' || s[i] == '\t'); i++ {
		}
	}
	v := i
	for i < n && i-v < MinGenericLen && isValueByte(s[i]) {
		i++
	}
	return i-v >= MinGenericLen
}

func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-' || 'A' <= c && c <= 'Z'
}

func isValueByte(c byte) bool {
	return isNameByte(c) || c == '+' || c == '/' || c == '=' || c == '~'
}

// isPath reports a file path, a URL path or an import path: ~/ or ./
// first, or segments that are mostly words or file names.
func isPath(v string) bool {
	if strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") {
		return true
	}
	if !strings.Contains(v, "/") || strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.@/-") != "" {
		return false
	}
	n, named := 0, 0
	for _, seg := range strings.Split(v, "/") {
		if seg == "" {
			continue
		}
		n++
		if len(seg) <= 3 || strings.Contains(seg, ".") || wordy(seg) {
			named++
		}
	}
	return n > 0 && named*2 >= n+1
}

func vowels(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] | 0x20 {
		case 'a', 'e', 'i', 'o', 'u', 'y':
			n++
		}
	}
	return n
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }
func hasUpper(s string) bool { return strings.ContainsAny(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") }
func hasLower(s string) bool { return strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz") }
