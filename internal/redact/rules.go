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

// builtin lists the rules in priority order: where two matches overlap,
// the earlier rule's wins. Provider tokens come first (their kind is the
// most precise), then the shapes that carry a credential (headers, flags,
// URLs, assignments), then what only looks random.
var builtin = func() []*rule {
	var out []*rule
	out = append(out, keyRules...)
	out = append(out, tokenRules()...)
	out = append(out, shapeRules...)
	return out
}()

var keyRules = []*rule{
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
}

// cliValue is the value of a command-line option: quoted (with spaces) or
// bare up to a shell metacharacter.
var cliValue = `(?:'([^'\n]+)'|"(` + dqBody(0) + `)"|(` + bareValue(cliBare) + `)|\\"(` + dqBody(1) + `)\\"|\\{3}"(` + dqBody(2) + `)\\{3}")`

// cliBare is the characters a bare option value cannot start with (and
// that end it): whitespace, quotes, a backslash, shell metacharacters.
const cliBare = `\s'"\\;|&<>()` + "`"

// envBare is cliBare for an assignment's value: brackets and separators
// of code and data end it too.
const envBare = `\s"'\\,;()\[\]{}<>` + "`"

// bs is n backslashes as a pattern.
func bs(n int) string { return strings.Repeat(`\\`, n) }

// dqBody is the body of a double-quoted value written at escape level n
// (0: as is; 1: inside a JSON or YAML string; 2: a JSON string inside
// another), whose own escapes (\" and \\) are part of it: the quote that
// opens and closes it is written with 2^n-1 backslashes, a backslash of
// the value's with 2^n. A line break (an escaped one too) ends it.
func dqBody(n int) string {
	k := 1 << n
	return `(?:[^"\\\n]|` + bs(k) + `(?:` + bs(k) + `|` + bs(k-1) + `"|[^"\\\n]))+`
}

// sqBody is the body of a single-quoted value: a backslash goes with the
// character after it (\" in a YAML or JSON string, \t in a password);
// an escaped line break ends it.
const sqBody = `(?:[^'\\\n]|\\+[^'\\\nnr])+`

// bareValue is an unquoted value: it runs to whitespace, to one of the
// characters in stop, or to an escaped line break, and holds any other
// escape (\t, \\, \") or a quote with more of the value after it
// (p@ss"w0rd).
func bareValue(stop string) string {
	return `[^` + stop + `](?:[^` + stop + `]|\\+[^\s"'\\nr]|\\*["'][^` + stop + `])*`
}

var shapeRules = []*rule{
	{
		// Legacy Vault tokens (s. + 24) are too short to take without the
		// word vault before them: VAULT_TOKEN=, X-Vault-Token:, vault login.
		kind:     "vault-token",
		keywords: []string{"vault"},
		re:       lazy(`(?i:vault)[A-Za-z0-9_ -]{0,24}?` + q + `(?:[ \t]*[:=][ \t]*|[ \t]+)` + q + `(s\.[A-Za-z0-9]{24})(?:[^A-Za-z0-9]|$)`),
		groups:   []int{1}, fwd: 80,
		valid: func(s, _ string, _ int) bool { return hasDigit(s) && hasUpper(s) && hasLower(s[2:]) },
	},
	{
		kind:     "aws-secret-key",
		keywords: []string{"aws_secret", "awssecret", "secret_access_key", "secretaccesskey"},
		re:       lazy(`(?i:aws_?secret(?:_?access)?_?key|secret_?access_?key)` + q + `[\s\\:=>"']{1,12}([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
		groups:   []int{1}, back: 8, fwd: 80,
	},
	{
		kind:     "azure-storage-key",
		keywords: []string{"accountkey", "sharedaccesskey"},
		re:       lazy(`(?i:AccountKey|SharedAccessKey)` + q + `[\s\\:="']{1,8}([A-Za-z0-9+/]{40,100}={0,2})`),
		groups:   []int{1}, fwd: 120,
	},
	{
		// A shared access signature's signature: the query parameter sig=
		// of an Azure SAS URL or connection string (its & escaped in HTML or
		// in a JSON string, \u0026, too).
		kind:     "azure-sas",
		keywords: []string{"sig="},
		re:       lazy(`(?:[?&;]|&amp;|\\u0026)sig=([A-Za-z0-9%+/=]{16,})`),
		groups:   []int{1}, back: 6, fwd: 200,
	},
	{
		kind:     "slack-webhook",
		keywords: []string{"hooks.slack.com/"},
		re:       lazy(`hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/_-]{20,})`),
		groups:   []int{1}, fwd: 200,
	},
	{
		kind:     "discord-webhook",
		keywords: []string{"/api/webhooks/"},
		re:       lazy(`discord(?:app)?\.com/api/webhooks/[0-9]{10,20}/([A-Za-z0-9_-]{40,})`),
		groups:   []int{1}, back: 16, fwd: 200,
	},
	{
		kind:     "jwt",
		keywords: []string{"eyj"},
		re:       lazy(`(?:^|\\[nrt]|[^A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)`),
		groups:   []int{1}, back: 2, fwd: 8 << 10,
	},
	{
		// A docker config's "auth": base64 of user:password.
		kind:     "docker-auth",
		keywords: []string{`"auth"`, `auth\"`},
		re:       lazy(`"auth` + `\\?"[ \t]*:[ \t]*\\?"([A-Za-z0-9+/]{8,}={0,2})\\?"`),
		groups:   []int{1}, back: 2, fwd: 400,
		valid: func(s, _ string, _ int) bool { d, ok := decode64(s); return ok && userPass(d) },
	},
	{
		// Authorization: <scheme> <credentials>, in a header, a curl -H, a
		// JSON or YAML map of headers.
		kind:     "http-auth",
		keywords: []string{"authorization"},
		re: lazy(`(?i:authorization)` + q + `[ \t]*[:=][ \t]*` + q +
			`(?:(?i:basic|bearer|token|bot|apikey|api-key|ssws|key|jwt|oauth|digest|hmac|signature|sharedaccesssignature)[ \t]+)?` +
			`([A-Za-z0-9._~+/=:,-]{8,})`),
		groups: []int{1}, back: 2, fwd: 600,
	},
	{
		// Other headers that carry a credential: X-Api-Key, X-Auth-Token,
		// PRIVATE-TOKEN, X-Vault-Token, Ocp-Apim-Subscription-Key.
		kind:     "http-auth",
		keywords: []string{"api-key", "apikey", "auth-token", "access-token", "api-token", "private-token", "subscription-key", "functions-key", "vault-token", "-token:", "x-token"},
		re: lazy(`(?i)(?:^|\\[nrt]|[^A-Za-z0-9_-])((?:[a-z0-9]+-)*(?:api-?key|auth-token|access-token|api-token|private-token|subscription-key|functions-key|vault-token|token))` +
			q + `[ \t]*:[ \t]*` + q + `([A-Za-z0-9._~+/=-]{8,})`),
		groups: []int{2}, back: 40, fwd: 600,
	},
	{
		// --password X, --password=X, --token X, --api-key X.
		kind:     "cli-secret",
		keywords: []string{"--pass", "--token", "--api-key", "--apikey", "--api-token", "--access-token", "--auth-token", "--client-secret", "--secret-key", "--secret-access-key", "--private-token", "--bot-token"},
		re: lazy(`(?:^|\\[nrt]|[\s'"])--(?:password|passwd|pass|token|api-key|apikey|api-token|access-token|auth-token|client-secret|secret-key|secret-access-key|private-token|bot-token)(?:=|[ \t]+)` +
			cliValue),
		groups: []int{1, 2, 3, 4, 5}, back: 3, fwd: 600,
	},
	{
		// curl -u user:password, --user, --proxy-user: the password goes.
		kind:     "cli-secret",
		keywords: []string{"curl"},
		re: lazy(`(?:^|\\[nrt]|[^A-Za-z0-9_-])curl(?:[ \t][^\n;|&]*?)?[ \t](?:-u|--user|--proxy-user|-U)(?:=|[ \t]*)(?:'|\\?")?` +
			`[^\s:'"\\]{0,64}:(` + bareValue(`\s'"\\`) + `)`),
		groups: []int{1}, back: 2, fwd: 600,
		valid: optionValue,
	},
	{
		// mysql -pSECRET, -p'two words': only the attached form carries a
		// password (-p alone prompts, -P is the port).
		kind:     "cli-secret",
		keywords: []string{"mysql", "mariadb"},
		re:       lazy(`(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb|mariadb-dump)\b[^\n;|&]*?[ \t]-p` + `(?:'([^'\n]+)'|"([^"\\\n]+)"|([^\s'"\\;|&<>()-][^\s'"\\;|&<>()]*))`),
		groups:   []int{1, 2, 3}, fwd: 600,
		valid: optionValue,
	},
	{
		// sshpass -p SECRET, redis-cli -a SECRET, docker login -p SECRET.
		kind:     "cli-secret",
		keywords: []string{"sshpass", "redis-cli", "docker login", "podman login", "nerdctl login", "registry login"},
		re: lazy(`(?:sshpass(?:[ \t]+-[A-Za-oq-z]\S*)*[ \t]+-p[ \t]*|redis-cli\b[^\n;|&]*?[ \t]-a[ \t]+|(?:docker|podman|nerdctl|helm registry)[ \t]+login\b[^\n;|&]*?[ \t]-p[ \t]+)` +
			cliValue),
		groups: []int{1, 2, 3, 4, 5}, back: 24, fwd: 600,
		valid: optionValue,
	},
	{
		// scheme://user:password@host: only the password goes, whatever
		// its characters (#, @, %, : included); it ends at the last @ that
		// a host follows.
		kind:     "url-password",
		keywords: []string{"://"},
		re: lazy(`[A-Za-z][A-Za-z0-9+.-]{0,20}://[^\s:/?#@'"\\` + "`" + `]{0,64}:([^\s/'"\\` + "`" + `]{1,256})@` +
			`(?:[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*|\[[0-9A-Fa-f:.]+\])(?:[:/?#\s'"\\,;)>\]` + "`" + `]|$)`),
		groups: []int{1}, back: 24, fwd: 300,
		near: nearScheme,
	},
	{
		// user:password@host without a scheme (a proxy setting, a Go
		// MySQL DSN user:pw@tcp(host)), where the host is unambiguous: a
		// dotted name, localhost, an IPv4 address, tcp( or unix(.
		kind:     "url-password",
		keywords: []string{"@"},
		re: lazy(`(?:^|\\[nrt]|[\s'"=(,;<>\[{` + "`" + `])([^\s:/@'"\\` + "`" + `]{1,64}):([^\s/'"\\` + "`" + `]{1,128})@` +
			`(?:(?:tcp|unix)\(|(?:(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}|localhost|[0-9]{1,3}(?:\.[0-9]{1,3}){3})(?:[:/?\s'"\\,;)` + "`" + `]|$))`),
		groups: []int{2}, back: 200, fwd: 80,
		near:  nearUserinfo,
		valid: schemelessUserinfo,
	},
	{
		// NAME=value, NAME: value, "name": "value", export NAME='value',
		// where NAME ends in a secret word.
		kind:     "env-secret",
		keywords: []string{"password", "passwd", "passphrase", "secret", "token", "key", "credential", "_pwd", "-pwd", ".pwd", "pass", "auth", "sig"},
		closed:   func(group int) bool { return group != 4 },
		re: lazy(`(?i)` + lb + `((?:[A-Za-z0-9]+[_.-])*(?:[A-Za-z0-9]*(?:password|passwd|passphrase|secret|token|credentials?)|[A-Za-z0-9]+[_.-](?:key|pwd|pass|auth|sig)|(?:api|secret|access|private|signing|encryption|master|auth)key|pass|auth|sig))` +
			q + `[ \t]?(?::=|=>|=|:)[ \t]*` +
			`(?:"(` + dqBody(0) + `)(?:"|$)|'(` + sqBody + `)(?:'|$)|(` + bareValue(envBare) + `)(?:[\s"'\\,;)\]}` + "`" + `]|$)|` +
			`\\"(` + dqBody(1) + `)(?:\\"|$)|\\{3}"(` + dqBody(2) + `)(?:\\{3}"|$)|\\+"([^"\\\n]+)(?:\\+"|$))`),
		groups: []int{2, 3, 4, 5, 6, 7}, back: 64, fwd: 260,
	},
	{
		// base64 that decodes to a token or to user:password.
		kind: "base64-secret",
		scan: base64Secrets,
	},
	{
		// A high-entropy value right after a secret word.
		kind:     "generic-secret",
		keywords: []string{"secret", "password", "passwd", "token", "api_key", "apikey", "key", "credential", "bearer"},
		re: lazy(`[A-Za-z0-9_]{0,24}(?i:secret|password|passwd|token|api_?key|key|credentials?|bearer)[A-Za-z0-9_.-]{0,24}` + q +
			`(?:[ \t]*(?::=|=>|->|=|:)[ \t]*|[ \t]+(?:(?i:is|was)[ \t]*:?[ \t]+)?)` + q + `([A-Za-z0-9+/_.=~][A-Za-z0-9+/_.=~-]{19,})(?:[^A-Za-z0-9+/_.=~(-]|$)`),
		groups: []int{1}, back: 24, fwd: 600,
	},
}

func init() {
	// The value checks refer to the rules' kinds; set them here to keep the
	// table above readable.
	for _, ru := range builtin {
		switch ru.kind {
		case "env-secret":
			ru.literal = true // envValue spares placeholders but in NAME=value
			ru.starts = nameStarts
			ru.valid = envValue
			ru.near = nearAssignment
			ru.tail = envTail
		case "generic-secret":
			ru.starts = wordStart
			ru.valid = genericValue
			ru.near = nearValue
			ru.tail = func(int) *byteSet { return genericTail }
		case "http-auth":
			ru.valid = headerValue
			ru.tail = func(int) *byteSet { return headerTail }
		case "cli-secret":
			ru.literal = ru.valid != nil // the options that take nothing but a password
			if ru.valid == nil {
				ru.valid = credentialValue
			}
			ru.tail = cliTail
		case "jwt":
			ru.tail = func(int) *byteSet { return tokenTail(0) }
		}
	}
}

// byteSet is a set of bytes: the characters a value cut at its window's
// end continues with.
type byteSet [256]bool

func setOf(in func(c byte) bool) *byteSet {
	var s byteSet
	for i := range s {
		s[i] = in(byte(i))
	}
	return &s
}

var (
	tokenSet    = setOf(func(c byte) bool { return isNameByte(c) && c != '.' })
	genericTail = setOf(func(c byte) bool { return isValueByte(c) })
	headerTail  = setOf(func(c byte) bool { return isValueByte(c) || c == ':' || c == ',' })
	dqTail      = setOf(func(c byte) bool { return c != '"' && c != '\\' && c != '\n' })
	sqTail      = setOf(func(c byte) bool { return c != '\'' && c != '\\' && c != '\n' })
	bareTail    = setOf(func(c byte) bool { return c > ' ' && !strings.ContainsRune("\"'\\,;()[]{}<>`", rune(c)) })
	cliBareTail = setOf(func(c byte) bool { return c > ' ' && !strings.ContainsRune("'\"\\;|&<>()`", rune(c)) })
)

func tokenTail(int) *byteSet { return tokenSet }

func envTail(group int) *byteSet {
	switch group {
	case 3:
		return sqTail
	case 4:
		return bareTail
	}
	return dqTail
}

func cliTail(group int) *byteSet {
	switch group {
	case 1:
		return sqTail
	case 2, 4, 5:
		return dqTail
	}
	return cliBareTail
}

var (
	numberRE = lazy(`^-?(?:0[xX][0-9a-fA-F]+|[0-9]{1,3})$`)
	constRE  = lazy(`^_*[A-Z][A-Z0-9_]*$`)
	camelRE  = lazy(`[a-z][A-Z]|^[A-Z][a-z]`)
	hexRE    = lazy(`^[0-9a-fA-F]+$`)
	// charEscRE: a value that is nothing but escaped characters
	// ("\u3299\ufe0f", an emoji's) is a character, not a password.
	charEscRE = lazy(`^(?:\\+(?:u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}))+$`)
	dottedRE  = lazy(`^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+$`)
)

// isPlaceholder reports a value that stands for a secret without being one:
// a variable reference, a template, a redaction marker, a masked value.
func isPlaceholder(v string) bool {
	if isReference(v) {
		return true
	}
	switch strings.ToLower(v) {
	case "password", "passwd", "pass", "secret", "token", "changeme", "change-me", "redacted", "hidden", "masked",
		"example", "dummy", "placeholder", "your-token", "your_token":
		return true
	}
	return false
}

// isReference reports a value that cannot be a literal secret: a variable
// reference, a template, a redaction marker, a masked value, a null. Where
// the context says the value is a password (an option that takes one, a
// NAME=value line), only these are spared: there "secret" or "changeme"
// may well be the password itself.
func isReference(v string) bool {
	if v == "" {
		return true
	}
	switch v[0] {
	case '$', '<', '{', '*', '@':
		return true
	}
	if len(v) > 1 && v[0] == '%' && v[len(v)-1] == '%' { // %VAR% on Windows
		return true
	}
	if strings.HasPrefix(v, "[REDACTED") || strings.Contains(v, "${") || strings.Contains(v, "{{") {
		return true
	}
	if strings.Trim(v, v[:1]) == "" { // one character repeated: xxxx, ****
		return true
	}
	switch strings.ToLower(v) {
	case "null", "none", "nil", "true", "false", "undefined":
		return true
	}
	return false
}

// envValue decides whether the value of a secret-named assignment is a
// literal worth redacting rather than code, a constant or a reference.
// group is the submatch that held it: 2 and 3 are quoted, 4 is bare.
func envValue(v, whole string, group int) bool {
	name, sep := assignedName(whole)
	lname := strings.ToLower(name)
	// NAME=value with an upper-case name is a shell or dotenv assignment:
	// configuration, so a plain passphrase is a secret too, even "secret".
	envStyle := sep == "=" && constRE.MatchString(strings.TrimLeft(name, "0123456789_")) && !strings.HasSuffix(whole, "= ")
	if !envStyle && isPlaceholder(v) || dottedRE.MatchString(v) || isPath(v) || numberRE.MatchString(v) || charEscRE.MatchString(v) {
		return false
	}
	quoted := group != 4
	if strings.ContainsAny(v, " \t") {
		// A quoted value with spaces is a passphrase under a password's
		// name; under other names it is prose (token: "not found").
		return quoted && passwordName(lname) && len(v) <= 256 && !strings.HasSuffix(v, ".")
	}
	if len(v) < 4 {
		return false
	}
	if group == 4 && camelRE.MatchString(name) {
		// A bare value after a camelCase name is code (Password: pw,
		// PrivateKey: testKey), not configuration, unless a generator
		// drew it (clientSecret: Ab3dEf6hIj9kLm2n).
		return randomLooking(v) && !strings.Contains(lname, "public") && !idKeyName(lname)
	}
	if strings.HasSuffix(lname, "key") {
		// Many *_KEY names hold ids, paths or public keys (SORT_KEY,
		// PUBLIC_KEY, SSH_KEY=~/.ssh/id_ed25519): only a random-looking
		// value is taken for a secret, or anything under a name that says
		// it is a credential (API_KEY, SECRET_KEY, ACCESS_KEY), a UUID too.
		if strings.Contains(lname, "public") || idKeyName(lname) {
			return false
		}
		if credentialKeyName(lname) && (isUUID(v) || envStyle || quoted && hasDigit(v) && !wordy(v) || randomLooking(v)) {
			return true
		}
		if hexRE.MatchString(v) && (len(v) == 40 || len(v) == 64) {
			return false // a git object name or a checksum: cache_key = <sha>
		}
		return !isUUID(v) && len(v) >= 16 && hasDigit(v) && !wordy(v) && Entropy(v) >= 3
	}
	if envStyle {
		return true
	}
	if group == 4 && passwordName(lname) && !isIdent(v) && !camelRE.MatchString(v) {
		// password: rosebud-castle (YAML, INI): a bare value that is not
		// an identifier is the password itself.
		return true
	}
	if group == 4 && strings.ContainsAny(v, "*") {
		// A bare value with an operator in it is an expression or a
		// grammar rule (token = 1*tchar), not a token: tokens are drawn
		// from letters, digits and -._~+/=.
		return false
	}
	// Words without a digit are a name or a type (token: string,
	// "X-Fake-Connection-Token"), not a credential.
	return hasDigit(v) || !wordy(v) && !constRE.MatchString(v)
}

// idKeyName reports a *key name that says its value identifies or
// verifies something rather than unlocking it: a blob's, a cache's or a
// row's key, a signature's verifier key (public by design).
func idKeyName(lname string) bool {
	n := strings.NewReplacer("_", "", "-", "", ".", "").Replace(lname)
	n = strings.TrimSuffix(n, "key")
	for _, w := range []string{"blob", "cache", "sort", "partition", "primary", "foreign", "idempotency", "dedup", "dedupe",
		"routing", "shard", "lookup", "row", "object", "verifier", "verification", "pub",
		"bucket", "idx", "natural", "schema", "sequence"} {
		if strings.HasSuffix(n, w) {
			return true
		}
	}
	return n == "v" // note.Verifier's vkey
}

// assignedName returns the name an assignment's whole match assigns to
// (the run of name characters before the separator) and the separator.
func assignedName(whole string) (name, sep string) {
	name = whole
	if i := strings.IndexAny(name, ":="); i >= 0 {
		name, sep = name[:i], name[i:i+1]
	}
	name = strings.TrimRight(name, "\\\"' \t")
	i := len(name)
	for i > 0 && isNameByte(name[i-1]) {
		i--
	}
	if i >= 1 && i < len(name) && name[i-1] == '\\' && strings.IndexByte("nrt", name[i]) >= 0 {
		i++ // \nNAME: the n is the escape's
	}
	return name[i:], sep
}

// passwordName reports a name that says its value is a password.
func passwordName(lname string) bool {
	for _, w := range []string{"password", "passwd", "passphrase", "pwd", "pass"} {
		if strings.HasSuffix(lname, w) {
			return true
		}
	}
	return false
}

// credentialKeyName reports a *key name that says its value is a
// credential (and not an id such as SORT_KEY or idempotency_key).
func credentialKeyName(lname string) bool {
	n := strings.NewReplacer("_", "", "-", "", ".", "").Replace(lname)
	for _, w := range []string{"apikey", "secretkey", "accesskey", "privatekey", "authkey", "masterkey", "signingkey", "encryptionkey", "licensekey", "clientkey", "servicekey", "adminkey"} {
		if strings.HasSuffix(n, w) {
			return true
		}
	}
	return false
}

// credentialValue: a header's or a flag's value is a credential unless it
// is a reference, a placeholder or a plain word.
func credentialValue(v, _ string, _ int) bool {
	if isPlaceholder(v) || strings.HasPrefix(v, "-") || isPath(v) || strings.HasPrefix(v, "/") || dottedRE.MatchString(v) {
		return false
	}
	if strings.ContainsAny(v, " \t") {
		return len(v) <= 256 // a quoted passphrase
	}
	if len(v) < 3 || constRE.MatchString(v) {
		return false // --token TOKEN, a name in a usage line
	}
	return hasDigit(v) || !wordy(v) || len(v) >= 6 && !isIdent(v) || len(v) >= 6 && !proseWord[strings.ToLower(v)]
}

// proseWord lists words that follow a flag's name in prose about the flag
// ("pass --token instead"), not as its value.
var proseWord = map[string]bool{
	"option": true, "options": true, "argument": true, "arguments": true, "parameter": true, "instead": true,
	"should": true, "value": true, "values": true, "environment": true, "variable": true, "required": true,
	"string": true, "option's": true, "before": true, "unless": true, "cannot": true, "prompt": true,
	"prompts": true, "stdin": true, "file": true, "flag": true, "flags": true, "which": true, "where": true,
}

// optionValue is the value of an option that takes nothing but a password
// (curl -u's, mysql -p's, sshpass -p's): anything that is not a reference
// or a placeholder, however plain.
func optionValue(v, _ string, _ int) bool {
	return len(v) >= 3 && v[0] != '-'
}

// headerValue is credentialValue, and the credentials of HTTP Basic must
// decode to user:password.
func headerValue(v, whole string, group int) bool {
	if !credentialValue(v, whole, group) {
		return false
	}
	if i := strings.LastIndexAny(whole[:len(whole)-len(v)], " \t"); i > 0 && strings.EqualFold(strings.TrimSpace(lastWord(whole[:i+1])), "basic") {
		d, ok := decode64(v)
		user, pass, colon := strings.Cut(d, ":")
		return ok && colon && user != "" && pass != "" && printable(d)
	}
	return true
}

// lastWord is the last space-separated word of s.
func lastWord(s string) string {
	s = strings.TrimRight(s, " \t")
	return s[strings.LastIndexAny(s, " \t:\"'")+1:]
}

// isIdent reports a lower-case or snake_case word: a variable, not a
// credential.
func isIdent(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('a' <= c && c <= 'z' || c == '_') {
			return false
		}
	}
	return true
}

// wordy reports whether at least half of v is made of words (three or more
// lowercase letters, or a capital and two or more, a quarter of them
// vowels), as identifiers and prose are and random tokens seldom are: on
// random base62 tokens of 20-49 characters it says yes to 1.4%.
func wordy(v string) bool {
	return wordBytes(v)*2 >= len(v)
}

// randomLooking reports a value a generator drew rather than a person
// wrote: 16 or more characters with a digit, words covering less than
// three quarters of it (wordy's half is for prose; a short random value
// often holds a word or two by chance: UQj77Qq3xkexbWwpuinU).
func randomLooking(v string) bool {
	return len(v) >= 16 && hasDigit(v) && (wordBytes(v)+runBytes(v))*4 < 3*len(v) && Entropy(v) >= 3 && !isPath(v) && !dottedRE.MatchString(v)
}

// runBytes counts the bytes of v in runs of two or more digits or capitals
// (an acronym's capitals end before a capital that starts a word): 2048
// and RSA in testRSA2048PrivateKey.
func runBytes(v string) int {
	n := 0
	for i := 0; i < len(v); {
		j := i
		for j < len(v) && isDigitByte(v[j]) == isDigitByte(v[i]) && (isDigitByte(v[i]) || 'A' <= v[j] && v[j] <= 'Z') {
			j++
		}
		if j < len(v) && j-i > 1 && !isDigitByte(v[i]) && 'a' <= v[j] && v[j] <= 'z' {
			j-- // the capital starts the next word
		}
		if j-i >= 2 {
			n += j - i
		}
		i = max(j, i+1)
	}
	return n
}

func isDigitByte(c byte) bool { return '0' <= c && c <= '9' }

// wordBytes counts the bytes of v inside words, as wordy sees them.
func wordBytes(v string) int {
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
	return in
}

// genericValue decides whether a value after a secret word looks random
// enough to be a credential.
func genericValue(v, whole string, _ int) bool {
	name, _, _ := strings.Cut(whole, v)
	lname := strings.ToLower(name)
	if strings.Contains(lname, "public") {
		return false
	}
	if len(v) < MinGenericLen || !hasDigit(v) || wordy(v) || isUUID(v) || isPath(v) || dottedRE.MatchString(v) {
		return false
	}
	if hexRE.MatchString(v) && (len(v) == 40 || len(v) == 64) {
		// Git object names and checksums, unless the word before says
		// secret: "the webhook secret is <64 hex>".
		return strings.Contains(lname, "secret") || strings.Contains(lname, "password") || strings.Contains(lname, "token") || strings.Contains(lname, "credential")
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

// nameStarts gives where an assignment whose name holds the keyword at h
// may begin: at the character before the name (the pattern's left
// boundary) or at a '.' or '-' inside it, left to right, as a search would
// try them. The name runs back over name characters, at most 64.
func nameStarts(s string, h, _, from int) []int {
	lo := max(h-64, from, 0)
	p := h
	for p > lo && isNameByte(s[p-1]) {
		p--
	}
	var out []int
	if p == 0 && from == 0 {
		out = append(out, 0)
	} else if p > 0 && p-1 >= from {
		out = append(out, p-1)
	}
	for q := p; q < h; q++ {
		if s[q] == '.' || s[q] == '-' {
			out = append(out, q)
		}
	}
	return out
}

// wordStart gives where a secret word's name begins: up to 24 word
// characters before it.
func wordStart(s string, h, _, from int) []int {
	p := h
	for p > max(h-24, from) && (isNameByte(s[p-1]) && s[p-1] != '.' && s[p-1] != '-') {
		p--
	}
	return []int{p}
}

// nearAssignment: a secret-named assignment's name ends at the keyword
// (DB_PASSWORD=, "token":, credentials:), so what follows is at most an s,
// a closing quote (escaped or not) and a space, then ':' or '='.
func nearAssignment(s string, end int) bool {
	i := end
	if i < len(s) && fold[s[i]] == 's' {
		i++
	}
	for i < len(s) && s[i] == '\\' {
		i++
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	if i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i < len(s) && (s[i] == ':' || s[i] == '=')
}

// nearScheme: a URL's userinfo ends at an '@' before the first '/', space
// or quote after "://".
func nearScheme(s string, end int) bool {
	for i := end; i < len(s) && i < end+330; i++ {
		switch s[i] {
		case '@':
			return true
		case '/', ' ', '\t', '\n', '"', '\'', '\\', '`':
			return false
		}
	}
	return false
}

// nearUserinfo: an @ with a ':' before it in the same run of non-space
// characters (user:password@host).
func nearUserinfo(s string, end int) bool {
	for i := end - 2; i >= 0 && i >= end-200; i-- {
		switch s[i] {
		case ':':
			return true
		case ' ', '\t', '\n', '"', '\'', '/', '@':
			return false
		}
	}
	return false
}

// schemelessUserinfo rejects user:password@host forms that are something
// else: mailto:a@b, sip:alice@host.
func schemelessUserinfo(_, whole string, _ int) bool {
	user := strings.TrimLeft(whole, " \t'\"=(,;<>[{`")
	if strings.HasPrefix(user, "\\") && len(user) >= 2 {
		user = user[2:]
	}
	user, _, _ = strings.Cut(user, ":")
	switch strings.ToLower(user) {
	case "email", "mail", "mailto", "sip", "sips", "tel", "xmpp", "data", "urn", "cid", "mid", "news", "im", "pres", "javascript", "http", "https", "git", "ssh":
		return false
	}
	return true
}

// nearValue: after a secret word come at most 24 more name characters, a
// separator and a value of at least MinGenericLen characters.
func nearValue(s string, end int) bool {
	i, n := end, len(s)
	for k := 0; i < n && k < 24 && isNameByte(s[i]); k++ {
		i++
	}
	// The whole name, hyphens and dots included: a blob-key or a
	// verifier key names no secret however random its value.
	p := end
	for p > 0 && p > end-64 && isNameByte(s[p-1]) {
		p--
	}
	if name := strings.ToLower(s[p:i]); strings.HasSuffix(name, "key") && idKeyName(name) {
		return false
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
	for _, w := range []string{"is", "was"} {
		if hasFoldPrefix(s[i:], w) && i+len(w) < n && strings.IndexByte(" \t:", s[i+len(w)]) >= 0 {
			for i += len(w); i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == ':'); i++ {
			}
			break
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
