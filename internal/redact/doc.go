// Package redact finds secrets in text and replaces each with a visible
// marker, [REDACTED:<kind>], before a handoff, a ledger or a transcript
// excerpt is written to a repository. It keeps what makes the text useful:
// file paths, commands, task names, git SHAs, UUIDs, import paths and the
// non-secret parts of a match (the user and host of a URL, the name of a
// variable, the flag before a password), so the marker reads in place of
// the value only. Contains, String and SafeName serve text that is not a
// file's contents: a stderr line, a systemMessage, a session id that names
// a local state file.
//
// The rules defend by class, not by case:
//   - provider tokens, recognised by their prefix: one table (providers.go),
//     each entry with the source of its format;
//   - where a credential sits whatever it looks like: HTTP headers
//     (Authorization with any scheme, X-Api-Key and the like), command-line
//     flags (curl -u, mysql -p, sshpass -p, --password, --token), URL
//     userinfo with any characters (# @ % : included, with or without a
//     scheme where the host is unambiguous), and assignments whose name says
//     secret (NAME=value, "name": "value", name: value), where a plain
//     passphrase, a quoted one with spaces or a UUID under *_API_KEY is
//     taken whole;
//   - prose ("the secret is <64 hex>") and what only looks random next to a
//     secret word;
//   - base64 that decodes to any of the above or to user:password.
//
// A value has no length limit: a match that reaches the end of the window
// it was searched in is followed to the end of its value in the text.
//
// The rules are hand-written rather than gitleaks' rule set used as a
// library. Measured on a probe program (go1.26, linux/amd64): importing
// github.com/zricethezav/gitleaks/v8 v8.30.1 adds 69 modules (viper, wazero,
// archive readers), makes a 12.8 MB binary and its DetectString ran at
// 4.3 MB/s on 1 MB of transcript-like text; its findings are not shaped for
// redaction in place (no partial spans such as the password of a URL). Its
// knowledge of formats is taken instead: the prefixes and lengths in the
// token table were checked against config/gitleaks.toml (MIT), and the
// formats it knows that the table had missed were added (GitLab's newer
// prefixes, Slack configuration tokens, Vault, npm, PyPI, SendGrid, Shopify,
// Hugging Face, DigitalOcean, Grafana, Doppler and some thirty more). Its
// generic and per-vendor "word near a value" rules were not taken: an
// assignment, a header or a flag covers those values here whatever the
// vendor.
//
// Cost is linear in the text and in the number of findings. Each rule names
// keywords (a token prefix such as "ghp_", or a word such as "password");
// one pass over the text finds every keyword (a table of first byte pairs);
// a cheap check of the bytes after a hit drops most; a rule's pattern runs
// on the window around each remaining hit (windows merged so no byte is
// searched twice by one rule), or, for rules that open with a name of any
// length, anchored at the few places the name may begin. Rules claim spans
// in priority order by merging sorted lists. Go's regexp is linear in its
// input. BenchmarkRedactDense (internal/redact) shows the same throughput at
// 100 KB, 1 MB and 4 MB of text that is nearly all secrets.
//
// Recall on the fake secrets of testdata/secrets is tested at 100% (118
// secrets in 5 contexts: 590/590). TestStdlibFalsePositives scans the Go
// standard library's source (go1.26, 90.4 MB): 60 findings (0.66 per MB),
// all credentials its tests hold on purpose but one ABNF rule and a random
// multipart blob key (see stdlib_test.go).
package redact
