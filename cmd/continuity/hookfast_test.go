package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestHookArgs(t *testing.T) {
	for _, c := range []struct {
		args  []string
		agent string
		notes int
		ok    bool
	}{
		{nil, "", 0, true},
		{[]string{"--agent", "codex"}, "codex", 0, true},
		{[]string{"--agent=gemini"}, "gemini", 0, true},
		{[]string{"--agent", "codex", "--verbose", "extra"}, "codex", 2, true},
		{[]string{"--agent"}, "", 1, true},
		{[]string{"--agent", "copilot", "--event", "sessionStart"}, "copilot", 0, true},
		{[]string{"--help"}, "", 0, false},
		{[]string{"--agent", "codex", "-h"}, "", 0, false},
	} {
		agent, _, notes, ok := hookArgs(c.args)
		if agent != c.agent || len(notes) != c.notes || ok != c.ok {
			t.Errorf("hookArgs(%q) = %q, %q, %v; want %q, %d notes, %v", c.args, agent, notes, ok, c.agent, c.notes, c.ok)
		}
	}
}

// TestHookNeverFailsOnItsCommandLine: whatever the arguments, a hook exits 0
// (Codex keeps a turn going when its Stop hook exits 2).
func TestHookNeverFailsOnItsCommandLine(t *testing.T) {
	for _, args := range [][]string{
		{"hook", "--agent", "nosuch"},
		{"hook", "--unknown-flag"},
		{"hook", "extra", "args"},
		{"hook", "--agent"},
	} {
		var out, errw bytes.Buffer
		code := run(args, strings.NewReader(`{"hook_event_name":"Stop","session_id":"x"}`), &out, &errw)
		if code != 0 || out.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out.String(), errw.String())
		}
	}
	var out, errw bytes.Buffer
	if code := run([]string{"hook", "--help"}, strings.NewReader(""), &out, &errw); code != 0 || !strings.Contains(out.String(), "hook entry point") {
		t.Errorf("hook --help: exit %d, %q", code, out.String())
	}
}
