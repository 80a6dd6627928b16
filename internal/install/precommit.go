package install

import (
	"fmt"
	"path/filepath"
	"strings"
)

// The pre-commit hook block, recognised by its markers so that installing
// twice changes nothing and removing takes exactly it away.
const (
	PreCommitBegin = "# >>> continuity scan >>>"
	PreCommitEnd   = "# <<< continuity scan <<<"
)

// preCommitShebang starts a hook AddPreCommit creates.
const preCommitShebang = "#!/bin/sh\n# Created by continuity init; continuity uninstall removes it when nothing else is here.\n"

// preCommitBlock is the block AddPreCommit puts in a pre-commit hook: it
// runs prog (the program that runs continuity, as the shell reads it)
// "scan --staged" and refuses the commit when that fails; without prog on
// PATH it says so and lets the commit through.
func preCommitBlock(prog string) string {
	return PreCommitBegin + "\n" +
		"# Added by `continuity init --pre-commit`; `continuity uninstall` removes it.\n" +
		"# Refuses a commit whose staged ledgers or handoffs hold a secret.\n" +
		"if command -v " + firstWord(prog) + " >/dev/null 2>&1; then\n" +
		"\t" + prog + " scan --staged || exit 1\n" +
		"else\n" +
		"\techo 'continuity: pre-commit: " + strings.ReplaceAll(firstWord(prog), "'", "") + " not found; ledgers and handoffs not scanned for secrets' >&2\n" +
		"fi\n" +
		PreCommitEnd + "\n"
}

// firstWord is the program of a command line as the shell reads it (a
// quoted path stays quoted).
func firstWord(cmdline string) string {
	if strings.HasPrefix(cmdline, "'") {
		if i := strings.Index(cmdline[1:], "' "); i >= 0 {
			return cmdline[:i+2]
		}
		return cmdline
	}
	if f := strings.Fields(cmdline); len(f) > 0 {
		return f[0]
	}
	return cmdline
}

// PreCommitOutcome says what AddPreCommit did.
type PreCommitOutcome int

// What AddPreCommit did.
const (
	PreCommitUnchanged PreCommitOutcome = iota // the same block was already there
	PreCommitCreated                           // there was no hook: a new one
	PreCommitUpdated                           // the block was there, for another program: replaced in place
	PreCommitAppended                          // someone else's shell hook: the block appended
	PreCommitRefused                           // a hook continuity cannot safely extend: left alone
)

// findBlock returns where the marked block lies in s: from its begin marker
// to the end of its end marker's line. ok is false when there is none; a
// begin marker without an end marker is an error (the hook was edited by
// hand, and nothing can tell where the block ends).
func findBlock(s string) (start, end int, ok bool, err error) {
	start = strings.Index(s, PreCommitBegin)
	if start < 0 {
		return 0, 0, false, nil
	}
	j := strings.Index(s[start:], PreCommitEnd)
	if j < 0 {
		return 0, 0, false, fmt.Errorf("%q without %q: fix the hook by hand", PreCommitBegin, PreCommitEnd)
	}
	end = start + j + len(PreCommitEnd)
	if end < len(s) && s[end] == '\n' {
		end++
	}
	return start, end, true, nil
}

// AddPreCommit returns the pre-commit hook hook (its bytes; empty when there
// is none) with the block for prog: a new hook when there is none, the block
// updated in place when already there, appended to someone else's shell
// hook after a blank line. A hook it cannot safely extend (not sh or bash,
// or one that may exit before the block) is returned unchanged with
// PreCommitRefused. The caller makes the file executable.
func AddPreCommit(hook []byte, prog string) ([]byte, PreCommitOutcome, error) {
	block := preCommitBlock(prog)
	s := string(hook)
	if len(hook) == 0 {
		return []byte(preCommitShebang + block), PreCommitCreated, nil
	}
	start, end, ok, err := findBlock(s)
	switch {
	case err != nil:
		return nil, 0, err
	case ok && s[start:end] == block:
		return hook, PreCommitUnchanged, nil
	case ok:
		return []byte(s[:start] + block + s[end:]), PreCommitUpdated, nil
	case !isExtensibleShellHook(s):
		return hook, PreCommitRefused, nil
	}
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return []byte(s + "\n" + block), PreCommitAppended, nil
}

// RemovePreCommit returns hook without the block AddPreCommit added (and the
// blank line it put before an appended block). empty is true when nothing
// but the "#!/bin/sh" line AddPreCommit wrote with the block is left: the
// caller removes the file. A hook without the block is returned unchanged.
func RemovePreCommit(hook []byte) (out []byte, changed, empty bool, err error) {
	s := string(hook)
	start, end, ok, err := findBlock(s)
	if err != nil || !ok {
		return hook, false, false, err
	}
	if strings.HasSuffix(s[:start], "\n\n") {
		start--
	}
	rest := s[:start] + s[end:]
	return []byte(rest), true, strings.TrimSpace(rest) == strings.TrimSpace(preCommitShebang), nil
}

// preCommitStatus reports whether hook holds continuity's block and, when
// it does, the block as written ("" when there is none).
func preCommitStatus(hook []byte) (block string, err error) {
	s := string(hook)
	start, end, ok, err := findBlock(s)
	if err != nil || !ok {
		return "", err
	}
	return s[start:end], nil
}

// isExtensibleShellHook reports a sh or bash script that does not end the
// process before a block appended to it could run.
func isExtensibleShellHook(s string) bool {
	first, _, _ := strings.Cut(s, "\n")
	if !strings.HasPrefix(first, "#!") {
		return false
	}
	f := strings.Fields(strings.TrimPrefix(first, "#!"))
	if len(f) == 0 {
		return false
	}
	interp := filepath.Base(f[0])
	if interp == "env" && len(f) > 1 {
		interp = f[1]
	}
	if interp != "sh" && interp != "bash" && interp != "dash" && interp != "zsh" {
		return false
	}
	for _, line := range strings.Split(s, "\n") {
		// exec anywhere, even in a branch (pre-commit's generated hook
		// execs in every branch); exit only at the top level, since
		// "if …; then exit 1; fi" only ends a failing commit.
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "exec ") || line == "exit" || strings.HasPrefix(line, "exit ") {
			return false
		}
	}
	return true
}

// PreCommitPath is the pre-commit hook git runs for the repository at root:
// in core.hooksPath when set, else in the git directory's hooks.
func PreCommitPath(git Git, root string) (string, error) {
	out, err := git("rev-parse", "--git-path", "hooks")
	if err != nil {
		return "", err
	}
	dir := strings.TrimSpace(string(out))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	return filepath.Join(dir, "pre-commit"), nil
}
