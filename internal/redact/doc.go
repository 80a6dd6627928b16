// Package redact finds secrets in text and replaces each with a visible
// marker, [REDACTED:<kind>], before a handoff, a ledger or a transcript
// excerpt is written to a repository. It keeps what makes the text useful:
// file paths, commands, task names, git SHAs, UUIDs, import paths and the
// non-secret parts of a match (the user and host of a URL, the name of a
// variable), so the marker reads in place of the value only.
//
// The rules are hand-written rather than taken from gitleaks' rule set used
// as a library. Measured on a probe program (go1.26, linux/amd64): importing
// github.com/zricethezav/gitleaks/v8 v8.30.1 adds 69 modules (viper, wazero,
// archive readers), makes a 12.8 MB binary and its DetectString ran at
// 4.3 MB/s on 1 MB of transcript-like text; its findings are not shaped for
// redaction in place (no per-rule kind names we could keep stable, no partial
// spans such as the password of a URL). The rules here cover the providers
// an agent session meets (cloud, forge, chat, payment and model API keys,
// PEM private keys, JWTs, URL passwords, secret-named assignments and
// high-entropy values next to secret words) and add no dependency.
// BenchmarkRedact (10 MB of recorded transcripts and handoffs) runs at about
// 100 MB/s (97-105 over runs) on the shared 2-core test machine. Recall on the fake
// secrets of testdata/secrets is 205/205 (41 secrets in 5 contexts each) and
// is tested at 100%. TestStdlibFalsePositives scans the Go standard
// library's source (go1.26, 90.4 MB): 46 findings, 0.51 per MB, all but one
// credentials that its tests hold on purpose.
//
// Speed comes from a prefilter: each rule names keywords (a token prefix
// such as "ghp_", or a word such as "password"); one pass over the text
// finds every keyword (a table of first byte pairs), a cheap check of the
// bytes after a secret word drops most hits, and a rule's regular expression
// runs only on a small window around each remaining hit. Go's regexp is
// linear in its input, so Redact is linear in the text.
package redact
