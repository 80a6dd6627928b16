package install

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// fileCase is one archive under testdata/precommit or testdata/attributes.
type fileCase struct {
	name, path string
	ar         *txtar.Archive
}

func loadFileCases(t testing.TB, dir string) []fileCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no testdata in %s: %v", dir, err)
	}
	var cases []fileCase
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, fileCase{strings.TrimSuffix(filepath.Base(p), ".txtar"), p, ar})
	}
	return cases
}

// sectionOr is the archive's section name, or def when it has none.
func sectionOr(ar *txtar.Archive, name, def string) string {
	if b, ok := section(ar, name); ok {
		return strings.TrimSuffix(string(b), "\n")
	}
	return def
}

var outcomeNames = map[PreCommitOutcome]string{
	PreCommitUnchanged: "unchanged", PreCommitCreated: "created", PreCommitUpdated: "updated",
	PreCommitAppended: "appended", PreCommitRefused: "refused",
}

// TestPreCommitGolden: in (the "hook" section; none: no hook yet) → add →
// remove → status, for the program in "prog" (default continuity).
func TestPreCommitGolden(t *testing.T) {
	for _, c := range loadFileCases(t, "precommit") {
		t.Run(c.name, func(t *testing.T) {
			in, _ := section(c.ar, "hook")
			prog := sectionOr(c.ar, "prog", "continuity")
			got := map[string][]byte{}
			block, err := preCommitStatus(in)
			if err != nil {
				got["error"] = []byte(err.Error() + "\n")
				if out, _, aerr := AddPreCommit(in, prog); aerr == nil || out != nil {
					t.Errorf("AddPreCommit accepted what preCommitStatus refused: %q, %v", out, aerr)
				}
				if _, _, _, rerr := RemovePreCommit(in); rerr == nil {
					t.Errorf("RemovePreCommit accepted what preCommitStatus refused")
				}
				compareSections(t, c.path, c.ar, []string{"add", "outcome", "remove", "status", "error"}, got)
				return
			}
			got["status"] = []byte(fmt.Sprintf("installed: %v\n", block != ""))
			out, outcome, err := AddPreCommit(in, prog)
			if err != nil {
				t.Fatal(err)
			}
			got["add"], got["outcome"] = out, []byte(outcomeNames[outcome]+"\n")
			checkPreCommit(t, in, prog, out, outcome)
			removed, _, empty, err := RemovePreCommit(out)
			if err != nil {
				t.Fatal(err)
			}
			got["remove"] = []byte(fmt.Sprintf("empty: %v\n%s", empty, removed))
			compareSections(t, c.path, c.ar, []string{"add", "outcome", "remove", "status", "error"}, got)
		})
	}
}

// checkPreCommit checks what every successful AddPreCommit must give: once
// is twice, the block is there exactly once (unless refused), and removing
// gives back the input when the input had no block.
func checkPreCommit(t *testing.T, in []byte, prog string, out []byte, outcome PreCommitOutcome) {
	t.Helper()
	again, o2, err := AddPreCommit(out, prog)
	if err != nil || !bytes.Equal(again, out) || (outcome != PreCommitRefused && o2 != PreCommitUnchanged) {
		t.Errorf("AddPreCommit twice: %v %v\nonce:\n%s\ntwice:\n%s", o2, err, out, again)
	}
	if outcome == PreCommitRefused {
		if !bytes.Equal(out, in) {
			t.Errorf("a refused hook was changed:\n%s", out)
		}
		return
	}
	if n := strings.Count(string(out), PreCommitBegin); n != 1 {
		t.Errorf("the block is in the hook %d times", n)
	}
	if block, _ := preCommitStatus(out); block != preCommitBlock(prog) {
		t.Errorf("preCommitStatus after Add = %q", block)
	}
	if had, _ := preCommitStatus(in); had != "" {
		return
	}
	removed, changed, empty, err := RemovePreCommit(out)
	if err != nil || !changed {
		t.Fatalf("RemovePreCommit(Add): %v %v", changed, err)
	}
	if len(in) == 0 {
		if !empty {
			t.Errorf("removing from a hook Add created leaves %q, want it empty", removed)
		}
		return
	}
	want := in
	if in[len(in)-1] != '\n' {
		want = append(append([]byte(nil), in...), '\n') // Add ended the last line
	}
	if !bytes.Equal(removed, want) || empty {
		t.Errorf("RemovePreCommit(AddPreCommit(in)) = %q (empty %v), want %q", removed, empty, want)
	}
}

func TestRemovePreCommitWithoutBlock(t *testing.T) {
	for _, in := range []string{"", "#!/bin/sh\nmake lint\n", "#!/usr/bin/env python3\nprint(1)\n"} {
		out, changed, empty, err := RemovePreCommit([]byte(in))
		if err != nil || changed || empty || string(out) != in {
			t.Errorf("RemovePreCommit(%q) = %q, %v, %v, %v; want it unchanged", in, out, changed, empty, err)
		}
	}
}

// FuzzPreCommit: on any hook, AddPreCommit either refuses with an error or
// keeps its promises (see checkPreCommit).
func FuzzPreCommit(f *testing.F) {
	for _, c := range loadFileCases(f, "precommit") {
		in, _ := section(c.ar, "hook")
		f.Add(in, sectionOr(c.ar, "prog", "continuity"))
	}
	f.Fuzz(func(t *testing.T, in []byte, prog string) {
		if prog == "" || strings.Contains(prog, "\n") {
			return
		}
		out, outcome, err := AddPreCommit(in, prog)
		if err != nil {
			if _, serr := preCommitStatus(in); serr == nil {
				t.Fatalf("AddPreCommit refused (%v) what preCommitStatus read", err)
			}
			return
		}
		if strings.Contains(prog, PreCommitBegin) || strings.Contains(prog, PreCommitEnd) || bytes.Count(in, []byte(PreCommitBegin)) > 1 {
			return // a program or hook holding the markers themselves: nothing to promise
		}
		checkPreCommit(t, in, prog, out, outcome)
	})
}

// TestAttributesGolden: in → add (the line for "dir", default
// thoughts/ledgers) → remove → status.
func TestAttributesGolden(t *testing.T) {
	for _, c := range loadFileCases(t, "attributes") {
		t.Run(c.name, func(t *testing.T) {
			in, _ := section(c.ar, "in")
			line, ok := AttributesLine(sectionOr(c.ar, "dir", "thoughts/ledgers"))
			if !ok {
				t.Fatalf("no attributes line for %q", sectionOr(c.ar, "dir", ""))
			}
			got := map[string][]byte{}
			out, _ := AddAttributes(in, line)
			got["add"] = out
			checkAttributes(t, in, line, out)
			removed, _ := RemoveAttributes(out)
			got["remove"] = removed
			got["status"] = []byte(strings.Join(AttributesStatus(in), "\n") + "\n")
			compareSections(t, c.path, c.ar, []string{"add", "remove", "status"}, got)
		})
	}
}

// checkAttributes checks what every AddAttributes must give.
func checkAttributes(t *testing.T, in []byte, line string, out []byte) {
	t.Helper()
	if again, changed := AddAttributes(out, line); changed || !bytes.Equal(again, out) {
		t.Errorf("AddAttributes twice changed it:\nonce:\n%q\ntwice:\n%q", out, again)
	}
	if st := AttributesStatus(out); len(st) != 1 || st[0] != line {
		t.Errorf("AttributesStatus after Add = %q, want [%q]", st, line)
	}
	removed, _ := RemoveAttributes(out)
	if len(AttributesStatus(removed)) != 0 {
		t.Errorf("RemoveAttributes left a driver line: %q", removed)
	}
	if len(AttributesStatus(in)) == 0 {
		want := in
		if len(in) > 0 && in[len(in)-1] != '\n' {
			// Add ended the last line so the new one starts a line.
			want = append(append([]byte(nil), in...), out[len(in)])
			if out[len(in)] == '\r' {
				want = append(want, '\n')
			}
		}
		if !bytes.Equal(removed, want) {
			t.Errorf("RemoveAttributes(AddAttributes(in)) = %q, want %q", removed, want)
		}
	}
	if again, changed := RemoveAttributes(removed); changed || !bytes.Equal(again, removed) {
		t.Errorf("RemoveAttributes on a file without the line changed it: %q", again)
	}
}

func FuzzAttributes(f *testing.F) {
	for _, c := range loadFileCases(f, "attributes") {
		in, _ := section(c.ar, "in")
		f.Add(in, sectionOr(c.ar, "dir", "thoughts/ledgers"))
	}
	f.Fuzz(func(t *testing.T, in []byte, dir string) {
		line, ok := AttributesLine(dir)
		if !ok {
			return
		}
		out, _ := AddAttributes(in, line)
		checkAttributes(t, in, line, out)
	})
}

func TestAttributesLine(t *testing.T) {
	tests := map[string]string{
		"thoughts/ledgers":  "thoughts/ledgers/CONTINUITY_*.md merge=continuity-ledger",
		"thoughts/ledgers/": "thoughts/ledgers/CONTINUITY_*.md merge=continuity-ledger",
		".":                 "CONTINUITY_*.md merge=continuity-ledger",
		"/abs/ledgers":      "",
		"../elsewhere":      "",
		"my ledgers":        "",
		`C:\ledgers`:        "",
		"notes#1":           "",
	}
	for dir, want := range tests {
		got, ok := AttributesLine(dir)
		if got != want || ok != (want != "") {
			t.Errorf("AttributesLine(%q) = %q, %v; want %q", dir, got, ok, want)
		}
	}
}

func TestAgentAndStale(t *testing.T) {
	agents := map[string]string{
		"continuity hook":                                "",
		"continuity hook --agent claude":                 "claude",
		"/usr/bin/continuity hook --agent=codex":         "codex",
		"'/opt/my tools/continuity' hook --agent gemini": "gemini",
		"echo hook --agent claude":                       "",
		"continuity hook --agent":                        "",
	}
	for cmd, want := range agents {
		if got := Agent(cmd); got != want {
			t.Errorf("Agent(%q) = %q, want %q", cmd, got, want)
		}
	}
	st := map[string]string{
		"SessionStart": "continuity hook --agent claude",
		"PreCompact":   "continuity hook",
		"PostCompact":  "/x/continuity hook --agent codex",
		"SessionEnd":   "",
	}
	if got := Stale(st, testEvents, "claude"); strings.Join(got, ",") != "PreCompact,PostCompact" {
		t.Errorf("Stale = %q, want PreCompact and PostCompact", got)
	}
	if got := HookCommand("continuity", "claude"); Agent(got) != "claude" || !IsContinuityHook(got) {
		t.Errorf("HookCommand = %q, not a continuity hook for claude", got)
	}
}

func TestAddPreCommitNoFinalNewline(t *testing.T) {
	in := []byte("#!/bin/bash\nset -e\nnpm test --silent")
	out, outcome, err := AddPreCommit(in, "continuity")
	if err != nil || outcome != PreCommitAppended {
		t.Fatalf("AddPreCommit = %v, %v", outcome, err)
	}
	if want := string(in) + "\n\n" + preCommitBlock("continuity"); string(out) != want {
		t.Errorf("AddPreCommit =\n%q\nwant\n%q", out, want)
	}
	removed, _, _, _ := RemovePreCommit(out)
	if string(removed) != string(in)+"\n" {
		t.Errorf("RemovePreCommit = %q, want the hook with its line ended", removed)
	}
}
