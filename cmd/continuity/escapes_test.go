package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/continuity-md/continuity/internal/inject"
	"github.com/continuity-md/continuity/internal/testkit"
)

// hostile is text a committed file may hold to act on a terminal or hide
// from its reader: OSC 52 (clipboard), a title, screen clears, a hidden
// hyperlink, a CSI written as C1, a bell, a backspace, a lone carriage
// return, bidi overrides, zero-width and Unicode tag characters.
var hostile = []string{
	"\x1b]52;c;cm0gLXJmIH4K\x07", "\x1b]0;pwned\x07", "\x1b[2J\x1b[3J\x1b[H", "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",
	"\u009b31m", "\x07", "x\x08y", "over\rwrite", "\u202eevil\u202c", "zero\u200bwidth\u2060join", "tag\U000E0041\U000E0042",
}

// actsOnTerminal reports the first character of s that a terminal acts on
// or that hides text, or "".
func actsOnTerminal(s string) string {
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return "invalid byte"
			}
		case r == '\n' || r == '\t':
		case r == '\r' && strings.HasPrefix(s[i:], "\r\n"):
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0, inject.Invisible(r):
			return fmt.Sprintf("%U", r)
		}
	}
	return ""
}

// TestTerminalEscapesVisible: show, list, search, resume and context print
// text from committed files with every control, bidi, zero-width and tag
// character made visible; with --json, escaped, and the JSON still holds
// the file's text.
func TestTerminalEscapesVisible(t *testing.T) {
	r := testkit.New(t, true)
	text := strings.Join(hostile, " ")
	r.Write("thoughts/ledgers/CONTINUITY_auth.md", "---\nsession: auth\ngoal: \"Ship "+yamlEscape(text)+"\"\nnow: \"needle "+yamlEscape(text)+"\"\n---\n# Notes\nneedle "+text+"\n")
	r.Write("thoughts/shared/handoffs/auth/2026-11-22T14-05-09Z_pre-compact_930cbd59.md",
		"---\nsession: auth\ncreated: 2026-11-22T14:05:09Z\nevent: pre-compact\nauthor: \"Kim "+yamlEscape(text)+"\"\n---\n# Handoff\n\n## Summary\n\nneedle "+text+"\n")
	exe := continuityProcess(t)
	for _, args := range [][]string{{"show", "auth"}, {"list"}, {"search", "needle"}, {"resume", "auth"}, {"context"},
		{"show", "auth", "--json"}, {"list", "--json"}, {"search", "needle", "--json"}} {
		cmd := exec.Command(exe, args...)
		cmd.Dir = r.Dir
		cmd.Env = append(os.Environ(), "CONTINUITY_NOW=2026-11-22T15:00:00Z")
		for k, v := range r.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("%q: %v\n%s", args, err, stderr.String())
			continue
		}
		if c := actsOnTerminal(stdout.String() + stderr.String()); c != "" {
			t.Errorf("%q prints %s raw:\n%q", args, c, stdout.String())
		}
		if args[len(args)-1] == "--json" {
			if !json.Valid(stdout.Bytes()) || !strings.Contains(stdout.String(), `\u001b]52;c;`) {
				t.Errorf("%q: not JSON holding the escaped text:\n%s", args, stdout.String())
			}
		} else if !strings.Contains(stdout.String(), "]52;c;cm0gLXJmIH4K") {
			// Shown as ^[]52;c;… by the terminal seam, or, in injected
			// context, with its controls already removed.
			t.Errorf("%q: the OSC 52 text not shown:\n%q", args, stdout.String())
		}
		if len(args) == 2 && args[0] == "show" && !strings.Contains(stdout.String(), "^[]52;c;") {
			t.Errorf("%q: ESC not shown as ^[:\n%q", args, stdout.String())
		}
	}
}

// yamlEscape writes s as the body of a YAML double-quoted string, every
// control and invisible character escaped.
func yamlEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		case r < 0x20 || r >= 0x7f && r < 0xa0 || inject.Invisible(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
