package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/continuity-md/continuity/handoff"

	"github.com/continuity-md/continuity/internal/agent/claude"
	"github.com/continuity-md/continuity/internal/testkit"
)

// The hardening test feeds the real binary bad input — payloads, transcript
// paths, working directories, names and ledgers — and checks that every run
// ends in time with the promised exit code, stdout shape and one clear
// stderr line, and that nothing outside continuity's own directories
// changed.

// hEnv is one case's world: everything lives under root.
type hEnv struct {
	bin        string
	root       string // the case's own directory: repo, home, tmp, outside
	repo       string // a git repository with the active ledger x
	home       string // $HOME
	tmp        string // $TMPDIR
	outside    string // files outside the repository
	claudeDir  string // Claude Code's directory of repo's transcripts, under home
	transcript string // a recorded transcript in claudeDir, paths rewritten to repo
	ledger     string // repo's thoughts/ledgers/CONTINUITY_x.md
}

// allowed are the directories (relative to root) the hooks and the CLI may
// write.
var allowed = []string{"repo/thoughts/ledgers", "repo/thoughts/shared/handoffs", "repo/.git/continuity"}

// noLedgerChange is allowed without the ledger directory, for cases where
// the ledger must stay untouched.
var noLedgerChange = []string{"repo/thoughts/shared/handoffs", "repo/.git/continuity"}

type hCase struct {
	name   string
	args   []string // default: hook
	dir    func(e *hEnv) string
	stdin  func(e *hEnv) []byte
	setup  func(t *testing.T, e *hEnv)
	env    []string // $ROOT is the case's directory
	code   int
	limit  time.Duration // default 10 s
	heavy  bool          // a long test: skipped unless CONTINUITY_LONG=1
	json   bool          // stdout is exactly one JSON object (else empty)
	stderr string        // regexp the whole stderr must match; it has at most one line
	may    []string
	check  func(t *testing.T, e *hEnv, stdout []byte)
}

// payload is a PreCompact payload for e's repository with the recorded
// transcript; kv overrides fields (a nil value removes one).
func payload(e *hEnv, kv ...any) []byte {
	m := map[string]any{
		"session_id": "hard-0001", "transcript_path": e.transcript, "cwd": e.repo,
		"hook_event_name": "PreCompact", "trigger": "manual", "custom_instructions": nil,
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(m, kv[i].(string))
		} else {
			m[kv[i].(string)] = kv[i+1]
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

func raw(s string) func(*hEnv) []byte { return func(*hEnv) []byte { return []byte(s) } }

func pl(kv ...any) func(*hEnv) []byte { return func(e *hEnv) []byte { return payload(e, kv...) } }

// plWith sets the transcript path to what path(e) returns.
func plWith(path func(e *hEnv) string, kv ...any) func(*hEnv) []byte {
	return func(e *hEnv) []byte { return payload(e, append([]any{"transcript_path", path(e)}, kv...)...) }
}

// handoffs returns the paths of the handoffs written for ledger x.
func handoffs(t *testing.T, e *hEnv) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(e.repo, "thoughts", "shared", "handoffs", "*", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// wantHandoff checks exactly one handoff was written, for ledger x, under a
// proper name, and returns its bytes.
func wantHandoff(t *testing.T, e *hEnv) []byte {
	t.Helper()
	hs := handoffs(t, e)
	if len(hs) != 1 {
		t.Fatalf("want 1 handoff, got %v", hs)
	}
	rel, _ := filepath.Rel(e.repo, hs[0])
	if !regexp.MustCompile(`^thoughts/shared/handoffs/x/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ_pre-compact_[a-z0-9-]{1,8}\.md$`).MatchString(filepath.ToSlash(rel)) {
		t.Errorf("handoff at %s", rel)
	}
	b, err := os.ReadFile(hs[0])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func noHandoff(t *testing.T, e *hEnv, _ []byte) {
	t.Helper()
	if hs := handoffs(t, e); len(hs) != 0 {
		t.Errorf("want no handoff, got %v", hs)
	}
}

func TestHardening(t *testing.T) {
	bin := buildBinary(t)
	tpl := transcriptTemplate(t)
	const ledgerDirRE = `thoughts/ledgers/CONTINUITY_x\.md`
	cases := []hCase{
		// Payloads.
		{name: "payload/empty", stdin: raw(""), stderr: `^continuity hook: empty payload; nothing done$`, check: noHandoff},
		{name: "payload/blank", stdin: raw(" \n\t\n"), stderr: `^continuity hook: empty payload; nothing done$`, check: noHandoff},
		{name: "payload/not-json", stdin: raw("hello, hook"), stderr: `^continuity hook: payload is not a JSON object: .*; nothing done$`},
		{name: "payload/array", stdin: raw(`[{"hook_event_name":"PreCompact"}]`), stderr: `^continuity hook: payload is not a JSON object: .*array.*; nothing done$`},
		{name: "payload/null", stdin: raw("null"), stderr: `^continuity hook: payload is not a JSON object: null; nothing done$`},
		{name: "payload/number", stdin: raw("42"), stderr: `^continuity hook: payload is not a JSON object: .*number.*; nothing done$`},
		{name: "payload/two-objects", stdin: raw(`{} {}`), stderr: `^continuity hook: payload is not a JSON object: .*; nothing done$`},
		{name: "payload/truncated", stdin: func(e *hEnv) []byte { b := payload(e); return b[:len(b)/2] },
			stderr: `^continuity hook: payload is not a JSON object: unexpected end of JSON input; nothing done$`, check: noHandoff},
		{name: "payload/wrong-types", stdin: raw(`{"hook_event_name":7,"cwd":["/"],"session_id":{"a":1},"transcript_path":true}`),
			stderr: `^$`, check: noHandoff},
		{name: "payload/wrong-type-cwd", stdin: func(e *hEnv) []byte { return payload(e, "cwd", 12, "session_id", 3.5) },
			dir: func(e *hEnv) string { return e.outside }, stderr: `^$`, check: noHandoff},
		{name: "payload/missing-fields", stdin: raw(`{"hook_event_name":"PreCompact"}`), stderr: `^$`,
			check: func(t *testing.T, e *hEnv, _ []byte) { wantHandoff(t, e) }},
		{name: "payload/no-event", stdin: pl("hook_event_name", nil), stderr: `^$`, check: noHandoff},
		{name: "payload/unknown-event", stdin: pl("hook_event_name", "Notification"), stderr: `^$`, check: noHandoff},
		{name: "payload/unknown-event-debug", stdin: pl("hook_event_name", "UserPromptSubmit"), env: []string{"CONTINUITY_DEBUG=1"},
			stderr: `^continuity hook: event "UserPromptSubmit" is not one continuity handles$`, check: noHandoff},
		{name: "payload/invalid-utf8", stdin: func(e *hEnv) []byte {
			return []byte(`{"hook_event_name":"PreCompact","cwd":"` + e.repo + `","session_id":"` + "\xff\xfe/../..\xc3" + `","trigger":"` + "\xffmanual" + `","transcript_path":"` + e.transcript + `"}`)
		}, stderr: `^$`, check: func(t *testing.T, e *hEnv, _ []byte) {
			h := wantHandoff(t, e)
			if !bytes.Contains(h, []byte("\uFFFD")) || !utf8Valid(h) {
				t.Errorf("handoff has no U+FFFD or is not valid UTF-8")
			}
		}},
		{name: "payload/nul-bytes", stdin: func(e *hEnv) []byte {
			return payload(e, "session_id", "ab\x00cd", "trigger", "man\x00ual", "custom_instructions", "\x00\x00")
		}, stderr: `^$`, check: func(t *testing.T, e *hEnv, _ []byte) {
			if h := wantHandoff(t, e); bytes.IndexByte(h, 0) >= 0 {
				t.Errorf("NUL in the handoff")
			}
		}},
		{name: "payload/raw-nul", stdin: func(e *hEnv) []byte { return append(payload(e), 0, 0) },
			stderr: `^continuity hook: payload is not a JSON object: .*; nothing done$`, check: noHandoff},
		{name: "payload/30MB", heavy: true, stdin: func(e *hEnv) []byte {
			return payload(e, "compact_summary", strings.Repeat("x", 30<<20))
		}, stderr: `^continuity hook: payload larger than 4 MiB; nothing done$`, check: noHandoff},
		{name: "payload/deeply-nested", stdin: func(e *hEnv) []byte {
			b := payload(e)
			deep := strings.Repeat(`{"a":[`, 200000) + strings.Repeat(`]}`, 200000)
			return append(append(b[:len(b)-1], `,"extra":`...), deep+"}"...)
		}, stderr: `^continuity hook: payload is not a JSON object: .*depth.*; nothing done$`, check: noHandoff},
		{name: "payload/front-matter-injection", stdin: pl("trigger", "manual\n---\nsession: evil\n---\n# x", "session_id", "a\nb: c"),
			stderr: `^$`, check: func(t *testing.T, e *hEnv, _ []byte) {
				h, err := handoff.Parse(wantHandoff(t, e))
				if err != nil {
					t.Fatal(err)
				}
				if h.Meta.Stream != "x" {
					t.Errorf("session %q, want x", h.Meta.Stream)
				}
			}},

		// Transcript paths.
		{name: "transcript/missing", stdin: plWith(func(e *hEnv) string { return filepath.Join(e.claudeDir, "gone.jsonl") }),
			stderr: `^continuity hook: PreCompact: wrote \S+, but: transcript not read \(.*no such file or directory\)$`,
			check:  func(t *testing.T, e *hEnv, _ []byte) { wantHandoff(t, e) }},
		{name: "transcript/directory", stdin: plWith(func(e *hEnv) string { return e.claudeDir }),
			stderr: `^continuity hook: PreCompact: wrote \S+, but: transcript not read \(.*not a regular file\)$`},
		{name: "transcript/dev-zero", stdin: plWith(func(*hEnv) string { return "/dev/zero" }),
			stderr: `^continuity hook: PreCompact: wrote \S+, but: transcript not read \(/dev/zero: is a kernel or device file\)$`},
		{name: "transcript/fifo", stdin: plWith(func(e *hEnv) string { return filepath.Join(e.claudeDir, "fifo") }),
			setup: func(t *testing.T, e *hEnv) {
				if err := mkfifo(filepath.Join(e.claudeDir, "fifo")); err != nil {
					t.Skipf("mkfifo: %v", err)
				}
			},
			stderr: `^continuity hook: PreCompact: wrote \S+, but: transcript not read \(\S+/fifo: is a named pipe: not a regular file\)$`},
		{name: "transcript/unreadable", stdin: plWith(unreadableFile),
			setup: func(t *testing.T, e *hEnv) {
				if os.Geteuid() != 0 {
					if err := os.WriteFile(filepath.Join(e.claudeDir, "secret.jsonl"), tpl, 0o000); err != nil {
						t.Fatal(err)
					}
				} else if _, err := os.ReadFile(unreadableFile(e)); err == nil {
					t.Skip("running as root and no regular file here is unreadable to root")
				}
			},
			// As root, the file is a /proc file, refused before it is opened.
			stderr: `^continuity hook: PreCompact: wrote \S+, but: transcript not read \(.*(permission denied|is a kernel or device file)\)$`},
		{name: "transcript/truncated-last-line", stdin: pl(),
			setup: func(t *testing.T, e *hEnv) {
				b := mustRead(t, e.transcript)
				b = bytes.TrimSuffix(b, []byte("\n"))
				cut := bytes.LastIndexByte(b, '\n') + 40
				writeFile(t, e.transcript, b[:cut], 0o644)
			},
			stderr: `^$`, check: func(t *testing.T, e *hEnv, _ []byte) {
				if h := wantHandoff(t, e); !bytes.Contains(h, []byte("## Files touched")) {
					t.Errorf("the lines before the cut were not used:\n%s", h)
				}
			}},
		{name: "transcript/garbage-lines", stdin: pl(),
			setup: func(t *testing.T, e *hEnv) {
				var b bytes.Buffer
				for i, line := range bytes.SplitAfter(mustRead(t, e.transcript), []byte("\n")) {
					b.Write(line)
					fmt.Fprintf(&b, "garbage %d \x00\xff {\"type\":\"user\",\"message\":\n[1,2]\n\"str\"\n{\"type\":\"assistant\",\"message\":7}\n", i)
				}
				writeFile(t, e.transcript, b.Bytes(), 0o644)
			},
			stderr: `^$`, check: func(t *testing.T, e *hEnv, _ []byte) {
				if h := wantHandoff(t, e); !bytes.Contains(h, []byte("## Files touched")) {
					t.Errorf("the good lines were not used:\n%s", h)
				}
			}},
		// Reading a gigabyte of zeros takes 0.3 s on an idle machine, but
		// several seconds on this shared one under load: a wider bound.
		{name: "transcript/1GB-sparse", limit: 30 * time.Second, heavy: true, stdin: plWith(func(e *hEnv) string { return filepath.Join(e.claudeDir, "sparse.jsonl") }),
			setup: func(t *testing.T, e *hEnv) {
				f, err := os.Create(filepath.Join(e.claudeDir, "sparse.jsonl"))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if err := f.Truncate(1 << 30); err != nil {
					t.Skipf("no sparse file here: %v", err)
				}
			},
			// A gigabyte of zeros holds no record: said, and the handoff written without it.
			stderr: `^continuity hook: PreCompact: wrote \S+, but: transcript not read \(not a transcript: no record recognised \(1 lines, 1073741824 bytes read\)\)$`,
			check:  func(t *testing.T, e *hEnv, _ []byte) { wantHandoff(t, e) }},
		// A symlink in the agent's directory pointing out, and a transcript
		// outside it: refused before they are opened, the handoff written
		// from git and the ledger, the reason one line.
		{name: "transcript/symlink-etc-passwd", stdin: plWith(func(e *hEnv) string { return filepath.Join(e.claudeDir, "passwd.jsonl") }),
			setup: func(t *testing.T, e *hEnv) {
				if err := os.Symlink("/etc/passwd", filepath.Join(e.claudeDir, "passwd.jsonl")); err != nil {
					t.Fatal(err)
				}
			},
			stderr: `^continuity hook: PreCompact: wrote \S+, but: transcript not read \(\S+passwd.jsonl: lies outside the agent's own session directory\)$`, check: func(t *testing.T, e *hEnv, _ []byte) {
				if h := wantHandoff(t, e); bytes.Contains(h, []byte("root:")) || bytes.Contains(h, []byte("/bin/")) {
					t.Errorf("/etc/passwd leaked into the handoff:\n%s", h)
				}
			}},
		{name: "transcript/outside", stdin: plWith(func(e *hEnv) string { return filepath.Join(e.outside, "t.jsonl") }),
			setup: func(t *testing.T, e *hEnv) {
				writeFile(t, filepath.Join(e.outside, "t.jsonl"), mustRead(t, e.transcript), 0o644)
			},
			stderr: `^continuity hook: PreCompact: wrote \S+, but: transcript not read \(\S+/outside/t.jsonl: lies outside the agent's own session directory\)$`,
			check: func(t *testing.T, e *hEnv, _ []byte) {
				if h := wantHandoff(t, e); bytes.Contains(h, []byte("## Files touched")) {
					t.Errorf("the refused transcript's facts reached the handoff:\n%s", h)
				}
			}},
		{name: "transcript/symlink-dir-out", stdin: plWith(func(e *hEnv) string { return filepath.Join(e.claudeDir, "sub", "t.jsonl") }),
			setup: func(t *testing.T, e *hEnv) {
				writeFile(t, filepath.Join(e.outside, "t.jsonl"), mustRead(t, e.transcript), 0o644)
				if err := os.Symlink(e.outside, filepath.Join(e.claudeDir, "sub")); err != nil {
					t.Fatal(err)
				}
			},
			stderr: `^continuity hook: PreCompact: wrote \S+, but: transcript not read \(\S+/sub/t.jsonl: lies outside the agent's own session directory\)$`},
		{name: "transcript/proc-self-fd-0", stdin: plWith(func(e *hEnv) string { return "/proc/self/fd/0" }),
			stderr: `^continuity hook: PreCompact: wrote \S+, but: transcript not read \(/proc/self/fd/0: is a kernel or device file\)$`},
		{name: "transcript/token-in-path", stdin: plWith(func(e *hEnv) string {
			return filepath.Join(e.outside, "ghp_"+strings.Repeat("Zx9Q", 9), "t.jsonl")
		}),
			stderr: `^continuity hook: PreCompact: wrote \S+, but: transcript not read \(\S+\[REDACTED[^ ]*/t.jsonl: no such file or directory\)$`},
		{name: "transcript/token-in-path-existing", stdin: plWith(func(e *hEnv) string {
			return filepath.Join(e.outside, "ghp_"+strings.Repeat("Zx9Q", 9), "t.jsonl")
		}),
			setup: func(t *testing.T, e *hEnv) {
				writeFile(t, filepath.Join(e.outside, "ghp_"+strings.Repeat("Zx9Q", 9), "t.jsonl"), mustRead(t, e.transcript), 0o644)
			},
			stderr: `^continuity hook: PreCompact: wrote \S+, but: transcript not read \(\S+\[REDACTED[^ ]*/t.jsonl: lies outside the agent's own session directory\)$`},

		{name: "env-file/fifo", stdin: pl("hook_event_name", "SessionStart", "source", "startup"), json: true,
			env: []string{"CLAUDE_ENV_FILE=$ROOT/outside/env-fifo"},
			setup: func(t *testing.T, e *hEnv) {
				if err := mkfifo(filepath.Join(e.outside, "env-fifo")); err != nil {
					t.Skipf("mkfifo: %v", err)
				}
			},
			stderr: `^continuity hook: CLAUDE_ENV_FILE \S+/env-fifo: not a regular file$`},

		// Working directories.
		{name: "cwd/missing", stdin: pl("cwd", "/nonexistent/continuity/x"),
			stderr: `^continuity hook: PreCompact: project directory /nonexistent/continuity/x: .*no such file or directory; nothing done$`, check: noHandoff},
		{name: "cwd/file", stdin: func(e *hEnv) []byte { return payload(e, "cwd", e.ledger) },
			stderr: `^continuity hook: PreCompact: project directory \S+: not a directory; nothing done$`, check: noHandoff},
		{name: "cwd/relative", stdin: pl("cwd", "repo"), dir: func(e *hEnv) string { return e.root },
			stderr: `^continuity hook: PreCompact: cwd "repo" is not an absolute path; nothing done$`, check: noHandoff},
		{name: "cwd/not-opted-in", stdin: func(e *hEnv) []byte { return payload(e, "cwd", e.outside) }, env: []string{"XDG_STATE_HOME="},
			stderr: `^$`, check: noHandoff},

		// Session ids and names.
		{name: "name/session-id-dotdot", stdin: pl("session_id", "../../etc"), stderr: `^$`,
			check: func(t *testing.T, e *hEnv, _ []byte) { wantHandoff(t, e) }},
		{name: "name/session-id-absolute", stdin: pl("session_id", "/etc/passwd"), stderr: `^$`,
			check: func(t *testing.T, e *hEnv, _ []byte) { wantHandoff(t, e) }},
		{name: "name/session-id-10000", stdin: pl("session_id", strings.Repeat("A/", 5000)), stderr: `^$`,
			check: func(t *testing.T, e *hEnv, _ []byte) { wantHandoff(t, e) }},
		{name: "name/session-id-nul", stdin: pl("session_id", "\x00../\x00"), stderr: `^$`,
			check: func(t *testing.T, e *hEnv, _ []byte) { wantHandoff(t, e) }},
		{name: "name/env-ledger-dotdot-hook", stdin: pl(), env: []string{"CONTINUITY_LEDGER=../x"},
			stderr: `^continuity hook: PreCompact: CONTINUITY_LEDGER: invalid ledger name "\.\./x": .*$`, check: noHandoff},
		{name: "name/env-ledger-dotdot-start", stdin: pl("hook_event_name", "SessionStart", "source", "startup"), env: []string{"CONTINUITY_LEDGER=../x"},
			stderr: `^continuity hook: SessionStart: CONTINUITY_LEDGER: invalid ledger name "\.\./x": .*$`},
		{name: "name/env-ledger-dotdot-cli", args: []string{"next", "item"}, env: []string{"CONTINUITY_LEDGER=../x"}, code: 1,
			stderr: `^continuity: CONTINUITY_LEDGER: invalid ledger name "\.\./x": .*$`},
		{name: "name/new-dotdot", args: []string{"new", "../../etc"}, code: 2, stderr: `^continuity: invalid ledger name "\.\./\.\./etc": .*$`},
		{name: "name/new-absolute", args: []string{"new", "/tmp/x"}, code: 2, stderr: `^continuity: invalid ledger name "/tmp/x": .*$`},
		{name: "name/new-10000", args: []string{"new", strings.Repeat("a", 10000)}, code: 2, stderr: `^continuity: invalid ledger name "a{40}…\(10000 characters\)": .*$`},
		{name: "name/use-dotdot", args: []string{"use", "../ledgers/CONTINUITY_x"}, code: 2, stderr: `^continuity: invalid ledger name .*$`},
		{name: "name/next-ledger-flag", args: []string{"next", "--ledger", "../../../etc/passwd", "x"}, code: 1, stderr: `^continuity: invalid ledger name .*$`},

		// Ledgers: the hook keeps going (exit 0), a CLI edit fails (exit 1);
		// the ledger is never touched.
		{name: "ledger/binary-hook", stdin: pl(), setup: binaryLedger, may: noLedgerChange,
			stderr: `^continuity hook: PreCompact: wrote \S+, but: ` + ledgerDirRE + `.*$`,
			check:  func(t *testing.T, e *hEnv, _ []byte) { wantHandoff(t, e) }},
		{name: "ledger/binary-start", stdin: pl("hook_event_name", "SessionStart", "source", "startup"), setup: binaryLedger, may: noLedgerChange,
			json: true, stderr: `^continuity hook: SessionStart: ` + ledgerDirRE + `.*$`},
		{name: "ledger/binary-cli", args: []string{"next", "item"}, setup: binaryLedger, may: noLedgerChange, code: 1,
			stderr: `^continuity: ` + ledgerDirRE + `.*$`},
		{name: "ledger/huge-hook", stdin: pl(), setup: hugeLedger, may: noLedgerChange,
			stderr: `^continuity hook: PreCompact: wrote \S+, but: read ledger ` + ledgerDirRE + `: .*file too large$`,
			check:  func(t *testing.T, e *hEnv, _ []byte) { wantHandoff(t, e) }},
		{name: "ledger/huge-start", stdin: pl("hook_event_name", "SessionStart", "source", "startup"), setup: hugeLedger, may: noLedgerChange,
			json: true, stderr: `^continuity hook: SessionStart: read ledger ` + ledgerDirRE + `: .*file too large$`},
		{name: "ledger/huge-cli", args: []string{"next", "item"}, setup: hugeLedger, may: noLedgerChange, code: 1,
			stderr: `^continuity: write \S+: .*file too large$`},
		{name: "ledger/symlink-outside-hook", stdin: pl(), setup: symlinkLedger, may: noLedgerChange,
			stderr: `^continuity hook: PreCompact: wrote \S+, but: read ledger ` + ledgerDirRE + `: .*resolves outside the project.*$`,
			check:  func(t *testing.T, e *hEnv, _ []byte) { wantHandoff(t, e) }},
		{name: "ledger/symlink-outside-start", stdin: pl("hook_event_name", "SessionStart", "source", "startup"), setup: symlinkLedger, may: noLedgerChange,
			json: true, stderr: `^continuity hook: SessionStart: read ledger ` + ledgerDirRE + `: .*resolves outside the project.*$`,
			check: func(t *testing.T, e *hEnv, stdout []byte) {
				if bytes.Contains(stdout, []byte("outside-secret")) {
					t.Errorf("the symlink's target was injected: %s", stdout)
				}
			}},
		{name: "ledger/symlink-outside-cli", args: []string{"next", "item"}, setup: symlinkLedger, may: noLedgerChange, code: 1,
			stderr: `^continuity: write \S+: .*resolves outside the project.*$`},
		{name: "ledger/read-only-dir-hook", stdin: pl(), setup: readOnlyLedgerDir, may: noLedgerChange,
			stderr: `^continuity hook: PreCompact: wrote \S+, but: ledger files not updated: .*(read-only file system|permission denied)$`,
			check:  func(t *testing.T, e *hEnv, _ []byte) { wantHandoff(t, e) }},
		{name: "ledger/read-only-dir-cli", args: []string{"next", "item"}, setup: readOnlyLedgerDir, may: noLedgerChange, code: 1,
			stderr: `^continuity: write \S+: .*(read-only file system|permission denied)$`},
		{name: "ledger/full-disk-hook", stdin: pl(), setup: fullDisk, may: []string{"repo/.git/continuity"},
			stderr: `^continuity hook: PreCompact: .*no space left on device$`},
		{name: "ledger/full-disk-cli", args: []string{"next", "item"}, setup: fullDisk, may: []string{"repo/.git/continuity"}, code: 1,
			stderr: `^continuity: write \S+: .*no space left on device$`},
	}
	var slowest time.Duration
	var slowName string
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.heavy && testkit.Short() {
				t.Skip("a heavy case: a long test (" + testkit.LongEnv + "=1)")
			}
			e := newHEnv(t, bin, tpl)
			if c.setup != nil {
				c.setup(t, e)
			}
			before := snapshot(t, e.root)
			args := c.args
			if args == nil {
				args = []string{"hook"}
			}
			dir := e.repo
			if c.dir != nil {
				dir = c.dir(e)
			}
			var stdin []byte
			if c.stdin != nil {
				stdin = c.stdin(e)
			}
			limit := c.limit
			if limit == 0 {
				limit = 10 * time.Second
			}
			var env []string
			for _, kv := range c.env {
				env = append(env, strings.ReplaceAll(kv, "$ROOT", e.root))
			}
			stdout, stderr, code, took := runBounded(t, e, dir, args, stdin, env, limit)
			if took > slowest {
				slowest, slowName = took, c.name
			}
			if code != c.code {
				t.Errorf("exit code %d, want %d", code, c.code)
			}
			checkStdout(t, stdout, c.json)
			errText := strings.TrimSuffix(string(stderr), "\n")
			if c.code == 2 {
				// A usage error adds the one hint line every usage error has.
				errText = usageHint.ReplaceAllString(errText, "")
			}
			if strings.Count(errText, "\n") > 0 {
				t.Errorf("stderr has more than one line:\n%s", stderr)
			}
			if !regexp.MustCompile(c.stderr).MatchString(errText) {
				t.Errorf("stderr %q does not match %s", errText, c.stderr)
			}
			may := c.may
			if may == nil {
				may = allowed
			}
			compareSnapshots(t, before, snapshot(t, e.root), may)
			for _, h := range handoffs(t, e) {
				if _, err := handoff.Parse(mustRead(t, h)); err != nil {
					t.Errorf("handoff %s does not parse: %v", h, err)
				}
			}
			if c.check != nil && !t.Failed() {
				c.check(t, e, stdout)
			}
		})
	}
	t.Logf("%d cases; slowest %s took %v", len(cases), slowName, slowest.Round(time.Millisecond))
}

// transcriptTemplate is the demo's recorded transcript, paths not yet rewritten.
func transcriptTemplate(t *testing.T) []byte {
	t.Helper()
	return mustRead(t, filepath.Join("..", "..", "internal", "core", "demo_transcript.jsonl"))
}

// newHEnv makes a case's world: a git repository with one commit and the
// active ledger x, a home, a TMPDIR, and a directory outside the repository
// holding the recorded transcript.
func newHEnv(t *testing.T, bin string, tpl []byte) *hEnv {
	t.Helper()
	return newHEnvAt(t, bin, tpl, t.TempDir())
}

// newHEnvAt is newHEnv in the directory root.
func newHEnvAt(t *testing.T, bin string, tpl []byte, root string) *hEnv {
	t.Helper()
	e := &hEnv{bin: bin, root: root, repo: filepath.Join(root, "repo"), home: filepath.Join(root, "home"),
		tmp: filepath.Join(root, "tmp"), outside: filepath.Join(root, "outside")}
	for _, d := range []string{e.repo, e.home, e.tmp, e.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The only place a hook reads a transcript from: the agent's own.
	e.claudeDir = claude.Host{}.TranscriptDir(func(k string) string {
		return map[string]string{"CLAUDE_CONFIG_DIR": filepath.Join(e.home, "claude")}[k]
	}, e.repo)
	if err := os.MkdirAll(e.claudeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	e.transcript = filepath.Join(e.claudeDir, "transcript.jsonl")
	writeFile(t, e.transcript, bytes.ReplaceAll(tpl, []byte("/tmp/demo-rec/proj"), []byte(e.repo)), 0o644)
	writeFile(t, filepath.Join(e.repo, "src", "token.go"), []byte("package src\n"), 0o644)
	for _, a := range [][]string{
		{"git", "init", "-q", "-b", "main"},
		{"git", "add", "."},
		{"git", "commit", "-q", "-m", "start"},
		{bin, "new", "x", "--goal", "Harden the hooks"},
	} {
		cmd := exec.Command(a[0], a[1:]...)
		cmd.Dir, cmd.Env = e.repo, e.environ(nil)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(a, " "), err, out)
		}
	}
	e.ledger = filepath.Join(e.repo, "thoughts", "ledgers", "CONTINUITY_x.md")
	return e
}

// environ is a clean environment confined to the case's directory; extra
// entries override.
func (e *hEnv) environ(extra []string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + e.home, "TMPDIR=" + e.tmp,
		"XDG_STATE_HOME=" + filepath.Join(e.home, "state"), "XDG_CONFIG_HOME=" + filepath.Join(e.home, "config"),
		"CLAUDE_CONFIG_DIR=" + filepath.Join(e.home, "claude"), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Kim", "GIT_AUTHOR_EMAIL=kim@example.com",
		"GIT_COMMITTER_NAME=Kim", "GIT_COMMITTER_EMAIL=kim@example.com", "CONTINUITY_NOW=2026-11-22T14:05:09Z",
	}
	for _, kv := range extra {
		k, _, _ := strings.Cut(kv, "=")
		env = slicesDeleteKey(env, k)
		env = append(env, kv)
	}
	return env
}

func slicesDeleteKey(env []string, k string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, k+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// runBounded runs the binary with a deadline; a hang fails the test.
func runBounded(t *testing.T, e *hEnv, dir string, args []string, stdin []byte, env []string, limit time.Duration) (stdout, stderr []byte, code int, took time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.bin, args...)
	cmd.Dir, cmd.Env = dir, e.environ(env)
	cmd.Stdin = bytes.NewReader(stdin)
	var o, x bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &x
	start := time.Now()
	err := cmd.Run()
	took = time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("still running after %v: killed\nstderr: %s", took.Round(time.Millisecond), x.Bytes())
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		code = ee.ExitCode()
	default:
		t.Fatalf("run: %v\nstderr: %s", err, x.Bytes())
	}
	return o.Bytes(), x.Bytes(), code, took
}

// checkStdout checks stdout is empty, or exactly one JSON object.
func checkStdout(t *testing.T, stdout []byte, wantJSON bool) {
	t.Helper()
	if !wantJSON {
		if len(stdout) != 0 {
			t.Errorf("stdout is not empty: %q", stdout)
		}
		return
	}
	dec := json.NewDecoder(bytes.NewReader(stdout))
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		t.Errorf("stdout is not a JSON object (%v): %q", err, stdout)
		return
	}
	if dec.More() || len(bytes.TrimSpace(stdout[dec.InputOffset():])) != 0 {
		t.Errorf("stdout holds more than one JSON object: %q", stdout)
	}
}

// fileState is what a snapshot keeps of one path.
type fileState struct {
	mode fs.FileMode
	sum  [32]byte // content (regular files) or link target (symlinks)
	size int64
}

// snapshot records every path under root: mode, and content (large files:
// size and modification time, so a sparse gigabyte is not read twice).
func snapshot(t *testing.T, root string) map[string]fileState {
	t.Helper()
	snap := map[string]fileState{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st := fileState{mode: fi.Mode(), size: fi.Size()}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			l, err := os.Readlink(path)
			if err != nil {
				return err
			}
			st.sum = sha256.Sum256([]byte(l))
		case fi.Mode().IsRegular() && fi.Size() > 64<<20:
			st.sum = sha256.Sum256([]byte(fi.ModTime().String()))
		case fi.Mode().IsRegular() && fi.Mode().Perm()&0o444 != 0:
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			st.sum = sha256.Sum256(b)
		}
		rel, _ := filepath.Rel(root, path)
		snap[filepath.ToSlash(rel)] = st
		return nil
	})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return snap
}

// compareSnapshots fails for every path, outside the directories in may,
// that appeared, disappeared or changed.
func compareSnapshots(t *testing.T, before, after map[string]fileState, may []string) {
	t.Helper()
	inMay := func(p string) bool {
		for _, d := range may {
			if p == d || strings.HasPrefix(p, d+"/") {
				return true
			}
		}
		return false
	}
	// A parent of an allowed directory may be created (as a directory).
	parentOfMay := func(p string, st fileState) bool {
		for _, d := range may {
			if st.mode.IsDir() && strings.HasPrefix(d, p+"/") {
				return true
			}
		}
		return false
	}
	var bad []string
	for p, b := range before {
		a, ok := after[p]
		switch {
		case inMay(p):
		case !ok:
			bad = append(bad, "removed "+p)
		case a != b:
			bad = append(bad, fmt.Sprintf("changed %s (%v -> %v)", p, b.mode, a.mode))
		}
	}
	for p, st := range after {
		if _, ok := before[p]; !ok && !inMay(p) && !parentOfMay(p, st) {
			bad = append(bad, "created "+p)
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, b []byte, perm fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, perm); err != nil {
		t.Fatal(err)
	}
}

func utf8Valid(b []byte) bool { return strings.ToValidUTF8(string(b), "") == string(b) }

// unreadableFile is a regular file the hook cannot open: mode 000 for a
// normal user; root reads those anyway, so as root a write-only sysctl file
// (regular, mode 0200, refused even to root) stands in.
func unreadableFile(e *hEnv) string {
	if os.Geteuid() == 0 {
		return "/proc/sys/vm/drop_caches"
	}
	return filepath.Join(e.claudeDir, "secret.jsonl")
}

func binaryLedger(t *testing.T, e *hEnv) {
	b := make([]byte, 4096)
	for i := range b {
		b[i] = byte(i*7919 + i/13)
	}
	writeFile(t, e.ledger, append([]byte("---\ngoal: \x00\xff\n"), b...), 0o644)
}

func hugeLedger(t *testing.T, e *hEnv) {
	b := mustRead(t, e.ledger)
	writeFile(t, e.ledger, append(b, bytes.Repeat([]byte("A note line that makes the ledger huge.\n"), 20<<20/40)...), 0o644)
}

func symlinkLedger(t *testing.T, e *hEnv) {
	target := filepath.Join(e.outside, "CONTINUITY_x.md")
	writeFile(t, target, bytes.Replace(mustRead(t, e.ledger), []byte("Harden the hooks"), []byte("outside-secret"), 1), 0o644)
	if err := os.Remove(e.ledger); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, e.ledger); err != nil {
		t.Fatal(err)
	}
}

// readOnlyLedgerDir makes the ledger directory read-only: mode 0555, and
// for root (whom modes do not stop) a read-only bind mount.
func readOnlyLedgerDir(t *testing.T, e *hEnv) {
	dir := filepath.Dir(e.ledger)
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
		return
	}
	if out, err := exec.Command("mount", "--bind", dir, dir).CombinedOutput(); err != nil {
		t.Skipf("bind mount: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	if out, err := exec.Command("mount", "-o", "remount,ro,bind", dir).CombinedOutput(); err != nil {
		t.Skipf("read-only remount: %v %s", err, out)
	}
}

// fullDisk puts thoughts/ (ledgers and handoffs) on a 64 KiB tmpfs and
// fills it.
func fullDisk(t *testing.T, e *hEnv) {
	thoughts := filepath.Join(e.repo, "thoughts")
	saved := mustRead(t, e.ledger)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", thoughts).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", thoughts).Run() })
	writeFile(t, e.ledger, saved, 0o644)
	if err := os.MkdirAll(filepath.Join(thoughts, "shared", "handoffs", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(thoughts, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill: %v", err)
			}
			break
		}
	}
}

// TestHardeningHandoffCollisions writes many handoffs for one agent session
// in the same second, in a repository whose path holds a '~' (the
// character that marks a taken name): every one must land, whole, in the
// handoff directory.
func TestHardeningHandoffCollisions(t *testing.T) {
	bin := buildBinary(t)
	e := newHEnvAt(t, bin, transcriptTemplate(t), filepath.Join(t.TempDir(), "home~dev"))
	const n = 15
	for i := range n {
		// Each with new work (a command): a handoff of the same work
		// would take the previous one's place, not add one.
		f, err := os.OpenFile(e.transcript, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"tool_use\",\"id\":\"b-%d\",\"name\":\"Bash\",\"input\":{\"command\":\"make step-%d\"}}]},\"uuid\":\"a-%d\"}\n", i, i, i)
		fmt.Fprintf(f, "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"b-%d\",\"type\":\"tool_result\",\"content\":\"ok\"}]},\"uuid\":\"r-%d\"}\n", i, i)
		f.Close()
		stdout, stderr, code, _ := runBounded(t, e, e.repo, []string{"hook"}, payload(e), nil, 10*time.Second)
		if code != 0 || len(stdout) != 0 || len(stderr) != 0 {
			t.Fatalf("run %d: exit %d, stdout %q, stderr %q", i, code, stdout, stderr)
		}
	}
	hs := handoffs(t, e)
	if len(hs) != n {
		t.Fatalf("%d handoffs, want %d: %v", len(hs), n, hs)
	}
	latest, err := handoff.Latest(filepath.Join(e.repo, "thoughts", "shared", "handoffs", "x"))
	if err != nil || !strings.HasSuffix(latest, fmt.Sprintf("~%d.md", n)) {
		t.Errorf("latest handoff %s (%v), want the one named ~%d", latest, err, n)
	}
}

// usageHint is the line a usage error ends with: the help of the command
// that was called.
var usageHint = regexp.MustCompile(`\nRun 'continuity( [a-z-]+)* --help' for usage\.$`)
