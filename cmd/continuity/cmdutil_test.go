package main

import (
	"bytes"
	"errors"
	"testing"

	"github.com/spf13/cobra"
)

// TestArgChecks: each check is a usage error that names the command and
// what it takes.
func TestArgChecks(t *testing.T) {
	root := &cobra.Command{Use: "continuity"}
	now := &cobra.Command{Use: "now TEXT", Annotations: map[string]string{"args": "the text of the step"}}
	merge := &cobra.Command{Use: "merge-ledger BASE OURS THEIRS PATH"}
	list := &cobra.Command{Use: "list"}
	root.AddCommand(now, merge, list)
	for _, c := range []struct {
		check cobra.PositionalArgs
		cmd   *cobra.Command
		args  []string
		want  string
	}{
		{ExactArgs(1), now, nil, "now: needs the text of the step"},
		{ExactArgs(0), list, []string{"a", "b"}, `list: takes no arguments, got "a b"`},
		{ExactArgs(4), merge, []string{"a"}, "merge-ledger: takes 4 arguments (BASE OURS THEIRS PATH), got 1 (quote text that has spaces)"},
		{MinArgs(1), now, nil, "now: needs the text of the step"},
		{MaxArgs(1), list, []string{"a", "b"}, "list: takes at most no arguments, got 2 arguments"},
	} {
		err := c.check(c.cmd, c.args)
		var ue UsageError
		if !errors.As(err, &ue) || err.Error() != c.want {
			t.Errorf("%s %q: %v, want usage error %q", c.cmd.Name(), c.args, err, c.want)
		}
	}
	if err := ExactArgs(1)(now, []string{"x"}); err != nil {
		t.Errorf("one argument: %v", err)
	}
}

func TestStrictCompletion(t *testing.T) {
	root := &cobra.Command{Use: "continuity"}
	root.AddCommand(&cobra.Command{Use: "x", Run: func(*cobra.Command, []string) {}})
	root.InitDefaultCompletionCmd()
	StrictCompletion(root)
	for args, want := range map[string]string{"": "completion needs a shell: bash, fish, powershell or zsh", "tcsh": `completion: unknown shell "tcsh": use bash, fish, powershell or zsh`} {
		argv := []string{"completion"}
		if args != "" {
			argv = append(argv, args)
		}
		root.SetArgs(argv)
		root.SetOut(&bytes.Buffer{})
		err := root.Execute()
		var ue UsageError
		if !errors.As(err, &ue) || err.Error() != want {
			t.Errorf("completion %q: %v, want %q", args, err, want)
		}
	}
}

func TestWordsAndJSON(t *testing.T) {
	if Plural(1, "file") != "1 file" || Plural(3, "file") != "3 files" || Plural(0, "file") != "0 files" {
		t.Error("Plural")
	}
	if FirstLine(errors.New("a\nb")) != "a" {
		t.Error("FirstLine")
	}

	var b bytes.Buffer
	if err := WriteJSON(&b, map[string]string{"cmd": "a && b <c>"}); err != nil || b.String() != "{\n  \"cmd\": \"a && b <c>\"\n}\n" {
		t.Errorf("WriteJSON: %q", b.String())
	}
}
