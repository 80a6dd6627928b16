package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// runIn runs the command line in a fresh directory with its own state and
// returns the exit code, stdout and stderr.
func runIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var out, errw bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errw)
	return code, out.String(), errw.String()
}

// firstHourDir is a directory with ledgers auth-refactor and billing, and
// its own user state.
func firstHourDir(t *testing.T) string {
	t.Helper()
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("XDG_CONFIG_HOME", state+"/config")
	t.Setenv("HOME", state)
	dir := t.TempDir()
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	for _, name := range []string{"billing", "auth-refactor"} {
		if code, _, errw := runIn(t, dir, "new", name, "--goal", "g"); code != 0 {
			t.Fatalf("new %s: %s", name, errw)
		}
	}
	return dir
}

// TestNotFoundExitsAndSuggests: a stream that does not exist is a failure
// (exit 1) for every command that takes one, and a near miss is named.
func TestNotFoundExitsAndSuggests(t *testing.T) {
	dir := firstHourDir(t)
	for _, args := range [][]string{{"show", "auth-refactr"}, {"thin", "auth-refactr"}, {"use", "auth-refactr"},
		{"resume", "auth-refactr"}, {"log", "--stream", "auth-refactr"}, {"now", "-l", "auth-refactr", "x"}} {
		code, _, errw := runIn(t, dir, args...)
		if code != 1 || !strings.Contains(errw, "did you mean auth-refactor?") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errw)
		}
	}
	if code, _, errw := runIn(t, dir, "thin", "nosuch"); code != 1 || !strings.Contains(errw, "no work stream nosuch") || strings.Contains(errw, "did you mean") {
		t.Errorf("thin nosuch: exit %d, stderr %q", code, errw)
	}
}

// TestUsageErrorNamesItsHelp: a usage error points at the help of the
// command that was called.
func TestUsageErrorNamesItsHelp(t *testing.T) {
	dir := firstHourDir(t)
	for _, c := range []struct {
		args []string
		help string
	}{
		{[]string{"show", "a", "b"}, "continuity show --help"},
		{[]string{"log", "--since", "soon"}, "continuity log --help"},
		{[]string{"list", "--nosuchflag"}, "continuity list --help"},
		{[]string{"completion", "tcsh"}, "continuity completion --help"},
		{[]string{"nosuchcommand"}, "continuity --help"},
	} {
		code, _, errw := runIn(t, dir, c.args...)
		if code != 2 || !strings.HasSuffix(errw, "Run '"+c.help+"' for usage.\n") {
			t.Errorf("%q: exit %d, stderr %q", c.args, code, errw)
		}
	}
}

// TestCompletion: shell completion offers the repository's streams where
// a command takes one, and the agents' names for --agent.
func TestCompletion(t *testing.T) {
	dir := firstHourDir(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "show", ""}, "auth-refactor\nbilling\n"},
		{[]string{"__complete", "use", "bi"}, "billing\n"},
		{[]string{"__complete", "log", "--stream", "a"}, "auth-refactor\n"},
		{[]string{"__complete", "search", "x", "--session", ""}, "auth-refactor\nbilling\n"},
		{[]string{"__complete", "init", "--agent", ""}, strings.Join(hostNameList(), "\n") + "\n"},
		{[]string{"__complete", "log", "--agent", "g"}, "gemini\n"},
		{[]string{"__complete", "show", "billing", ""}, ""},
	} {
		_, out, _ := runIn(t, dir, c.args...)
		got, _, _ := strings.Cut(out, ":")
		if got != c.want {
			t.Errorf("%q: %q, want %q", c.args, got, c.want)
		}
	}
}
