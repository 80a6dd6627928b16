package transcript

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/continuity-md/continuity/handoff"
)

// CommandLine is a command as it ran, on one line: its first non-empty
// line, never rewritten (runs of spaces kept), with a mark saying how many
// lines were left out when more followed, at most MaxLineRunes long.
func CommandLine(cmd string) string {
	cmd = strings.TrimSpace(cmd)
	first, rest, more := strings.Cut(cmd, "\n")
	first = strings.TrimRight(first, " \t\r")
	if rest = strings.TrimSpace(rest); more && rest != "" {
		n := strings.Count(rest, "\n") + 1
		first += " … (+" + strconv.Itoa(n) + " " + plural(n, "line") + ")"
	}
	return handoff.Cut(first, MaxLineRunes)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// lookCommands only look at files or around; a command made of nothing
// else (and writing no file) is left out of a handoff's commands.
var lookCommands = map[string]bool{
	"ls": true, "cat": true, "pwd": true, "echo": true, "head": true, "tail": true, "wc": true,
	"which": true, "whoami": true, "date": true, "tree": true, "file": true, "stat": true, "du": true,
	"df": true, "type": true, "env": true, "printenv": true, "true": true, "cd": true, "less": true,
	"grep": true, "egrep": true, "rg": true, "ag": true, "find": true, "fd": true, "sleep": true,
	"clear": true, "nl": true, "sort": true, "uniq": true, "cut": true, "diff": true, "realpath": true,
	"dirname": true, "basename": true, "jq": true, "bat": true, "more": true, "sed": true, "awk": true,
	"xxd": true, "od": true, "hexdump": true, "column": true, "tr": true, "readlink": true,
}

// lookGit are git's subcommands that only look.
var lookGit = map[string]bool{
	"status": true, "diff": true, "log": true, "show": true, "blame": true, "ls-files": true,
	"rev-parse": true, "grep": true, "branch": false, "remote": false,
}

var harmlessRedirects = strings.NewReplacer("2>&1", " ", "2>/dev/null", " ", ">/dev/null", " ", "> /dev/null", " ", "&>/dev/null", " ")

// LookOnly reports whether cmd only looks at files: every command of it
// (split at pipes, ;, && and ||) is one that reads (cat, sed -n, rg, ls,
// git status, …) and nothing is redirected into a file. sed and awk count
// only without -i; find only without -delete or -exec.
func LookOnly(cmd string) bool {
	cmd = harmlessRedirects.Replace(cmd)
	if strings.Contains(cmd, ">") {
		return false // writes a file
	}
	segments := strings.FieldsFunc(cmd, func(r rune) bool { return r == '|' || r == '&' || r == ';' || r == '\n' || r == '(' || r == ')' })
	if len(segments) == 0 {
		return true
	}
	for _, seg := range segments {
		f := strings.Fields(seg)
		for len(f) > 0 && strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "-") {
			f = f[1:] // VAR=value before the command
		}
		if len(f) == 0 {
			continue
		}
		name := filepath.Base(f[0])
		switch {
		case name == "git":
			if len(f) < 2 || !lookGit[gitSub(f[1:])] {
				return false
			}
		case !lookCommands[name]:
			return false
		case (name == "sed" || name == "awk" || name == "perl") && hasArg(f, "-i"):
			return false
		case name == "find" && (hasArg(f, "-delete") || hasArg(f, "-exec") || hasArg(f, "-execdir")):
			return false
		}
	}
	return true
}

// gitSub is git's subcommand, past its global options (-C dir, --no-pager…).
func gitSub(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-C" || a == "-c" {
			i++
			continue
		}
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

func hasArg(f []string, prefix string) bool {
	for _, a := range f[1:] {
		if strings.HasPrefix(a, prefix) {
			return true
		}
	}
	return false
}

// checkShapes are the commands of common toolchains that test, build,
// lint or typecheck, as regular expressions over one command of a line
// (its words from the start).
var checkShapes = sync.OnceValue(func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, s := range []string{
		`^go (test|build|vet)\b`, `^(golangci-lint|staticcheck|gofmt -l)\b`,
		`^(npm|pnpm|yarn|bun)( run)? (test|build|lint|typecheck|check|tsc)\b`, `^npx (tsc|eslint|jest|vitest|mocha|prettier --check)\b`,
		`^(tsc|eslint|jest|vitest|mocha)\b`,
		`^(python[0-9.]* -m )?(pytest|mypy|ruff|flake8|pylint|black --check|unittest)\b`, `^(uv|poetry) run (pytest|mypy|ruff)\b`,
		`^cargo (test|build|check|clippy|nextest)\b`,
		`^make( -\S+)* (test|check|build|lint|all)\b`, `^make$`,
		`^(\./)?(gradlew|gradle) .*\b(test|build|check)\b`, `^mvn .*\b(test|verify|package|compile)\b`,
		`^(dotnet) (test|build)\b`, `^(swift) (test|build)\b`, `^(bundle exec )?(rspec|rake test|rubocop)\b`,
		`^(deno) (test|check|lint)\b`, `^(ctest|tox|nox|phpunit|mix test|zig build)\b`,
	} {
		out = append(out, regexp.MustCompile(s))
	}
	return out
})

// checkOf is the check a command runs, as its key (the command, one line),
// or "" when it runs none: a command whose parts (split at && ; and
// ||, a leading cd or env assignment passed over) include a test, build,
// lint or typecheck of a common toolchain, or one matching extra (a
// project's own patterns).
func checkOf(cmd string, extra []*regexp.Regexp) string {
	for _, part := range commandParts(cmd) {
		for _, re := range checkShapes() {
			if re.MatchString(part) {
				return CommandLine(cmd)
			}
		}
		for _, re := range extra {
			if re.MatchString(part) {
				return CommandLine(cmd)
			}
		}
	}
	return ""
}

// commandParts are the commands of a line, split at && || and ;, each
// without leading VAR=value words, "time" or "timeout N".
func commandParts(cmd string) []string {
	var out []string
	for _, line := range strings.Split(cmd, "\n") {
		for _, seg := range splitParts(line) {
			f := strings.Fields(seg)
			for len(f) > 0 {
				switch {
				case strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "-"):
					f = f[1:]
				case f[0] == "time" || f[0] == "env" || f[0] == "command":
					f = f[1:]
				case f[0] == "timeout" && len(f) > 1:
					f = f[2:]
				default:
					goto done
				}
			}
		done:
			if len(f) > 0 {
				out = append(out, strings.Join(f, " "))
			}
		}
	}
	return out
}

// splitParts splits a line at && || and ;.
func splitParts(line string) []string {
	var out []string
	start := 0
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == ';':
			out = append(out, line[start:i])
			start = i + 1
		case i+1 < len(line) && (line[i] == '&' && line[i+1] == '&' || line[i] == '|' && line[i+1] == '|'):
			out = append(out, line[start:i])
			start = i + 2
			i++
		}
	}
	return append(out, line[start:])
}

// pipedAway reports whether a command's exit status is not its check's:
// its output goes through a pipe into another command (tail, grep, tee…)
// and the shell was not told to fail with it (set -o pipefail).
func pipedAway(cmd string) bool {
	if strings.Contains(cmd, "pipefail") {
		return false
	}
	s := strings.ReplaceAll(cmd, "||", "")
	return strings.Contains(s, "|")
}

// maxFailing bounds the failing names kept for one check.
const maxFailing = 10

// failingNames are the names of failing tests an output gives: go test's
// "--- FAIL: TestX", pytest's "FAILED path::name", cargo's "test x ...
// FAILED", jest's "✕ name".
func failingNames(out string) []string {
	var names []string
	add := func(n string) {
		n = strings.TrimSpace(n)
		if n == "" || len(names) >= maxFailing {
			return
		}
		for _, x := range names {
			if x == n {
				return
			}
		}
		names = append(names, handoff.Cut(n, 120))
	}
	for line := range strings.SplitSeq(out, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(l, "--- FAIL: "):
			name, _, _ := strings.Cut(strings.TrimPrefix(l, "--- FAIL: "), " (")
			add(name)
		case strings.HasPrefix(l, "FAILED "):
			name, _, _ := strings.Cut(strings.TrimPrefix(l, "FAILED "), " - ")
			add(name)
		case strings.HasPrefix(l, "test ") && strings.HasSuffix(l, " ... FAILED"):
			add(strings.TrimSuffix(strings.TrimPrefix(l, "test "), " ... FAILED"))
		case strings.HasPrefix(l, "✕ "):
			add(strings.TrimPrefix(l, "✕ "))
		}
	}
	return names
}

// failedOutput reports whether an output says a test failed, whatever the
// exit status (a run piped into tail still prints "FAIL").
func failedOutput(out string) bool {
	for line := range strings.SplitSeq(out, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "--- FAIL: ") || strings.HasPrefix(l, "FAIL\t") || l == "FAIL" ||
			strings.HasPrefix(l, "FAILED ") || strings.HasSuffix(l, " ... FAILED") {
			return true
		}
	}
	return false
}

// passedOutput reports whether an output shows a test run that passed in
// the words of its own tool, whatever the exit status (a run piped into
// tail): go test's "ok" lines, pytest's "N passed" summary, cargo's "test
// result: ok.", with no failure anywhere.
func passedOutput(out string) bool {
	if failedOutput(out) {
		return false
	}
	passed := false
	for line := range strings.SplitSeq(out, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(l, "panic:"), strings.HasPrefix(l, "test result: FAILED"):
			return false
		case pytestSummary().MatchString(l):
			if strings.Contains(l, " failed") || strings.Contains(l, " error") {
				return false
			}
			passed = true
		case strings.HasPrefix(l, "ok  \t"), strings.HasPrefix(l, "ok \t"), strings.HasPrefix(l, "ok\t"),
			strings.HasPrefix(l, "test result: ok."):
			passed = true
		}
	}
	return passed
}

// testsRun is how many tests an output says ran, in its tool's words:
// go test -v's top-level "--- PASS/FAIL/SKIP:" lines, pytest's summary
// (passed and failed), cargo's "test result:" lines (passed and failed,
// summed over its test binaries), jest's "Tests: … N total", vitest's
// "Tests  N passed (N)", mocha's "N passing" and "N failing"; 0 when it
// does not say.
func testsRun(out string) int {
	goTests, n := 0, 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "--- PASS: ") || strings.HasPrefix(line, "--- FAIL: ") || strings.HasPrefix(line, "--- SKIP: ") {
			goTests++
			continue
		}
		l := strings.TrimSpace(line)
		var counts []string
		if pytestLine().MatchString(l) {
			counts = pytestCounts().FindAllString(l, -1)
		} else if m := testCounts().FindStringSubmatch(l); m != nil {
			counts = m[1:]
		}
		for _, c := range counts {
			if v, err := strconv.Atoi(strings.Fields(c + " x")[0]); err == nil {
				n += v
			}
		}
	}
	return max(goTests, n)
}

// pytestLine is pytest's last line, pytestCounts its counts of tests run.
var (
	pytestLine   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^=+ .*\b\d+ (?:passed|failed)\b.* in [\d.]+s.*=+$`) })
	pytestCounts = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b\d+ (?:passed|failed)\b`) })
)

// testCounts finds the counts of the other runners' summary lines (see
// testsRun): a match's groups are summed.
var testCounts = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^test result: \w+\. (\d+) passed; (\d+) failed;` + // cargo
		`|^Tests:\s+.*?(\d+) total` + // jest
		`|^Tests\s+.*\((\d+)\)$` + // vitest
		`|^(\d+) (?:passing|failing)\b`) // mocha
})

// pytestSummary is pytest's last line: "==== 3 passed in 0.12s ====".
var pytestSummary = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^=+ .*\b\d+ passed\b.* in [\d.]+s.*=+$`)
})

// commitLine is git commit's first line of output: "[branch hash] subject"
// ("[main (root-commit) 1a2b3c4] subject").
var commitLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\[[^\]\s]+(?: \([a-z -]+\))? ([0-9a-f]{7,40})\] (.+)$`)
})

// commitsIn are the commits a git commit's output reports.
func commitsIn(out string) []handoff.Commit {
	var cs []handoff.Commit
	for _, m := range commitLine().FindAllStringSubmatch(out, 5) {
		cs = append(cs, handoff.Commit{Hash: m[1], Subject: strings.TrimSpace(m[2])})
	}
	return cs
}

// makesCommits reports whether a command may commit (git commit, a merge,
// a cherry-pick, a revert, an amend).
func makesCommits(cmd string) bool {
	for _, part := range commandParts(cmd) {
		f := strings.Fields(part)
		if len(f) >= 2 && filepath.Base(f[0]) == "git" {
			switch gitSub(f[1:]) {
			case "commit", "merge", "cherry-pick", "revert", "pull", "rebase":
				return true
			}
		}
	}
	return false
}

// errorText is the line of a failed call's output that says why: for a
// command, the first that names a failing test or a panic, else the last
// informative one (where a command says why it stopped; the first may be
// a warning of the shell's setup); for another tool, its first line. Blank
// lines, a shell's "Exit code N", "# package"
// headers, bare FAIL summaries and a tool's <tool_use_error> tags are
// passed over.
func errorText(out string, command bool) string {
	out = strings.ReplaceAll(out, "<tool_use_error>", "")
	out = strings.ReplaceAll(out, "</tool_use_error>", "")
	last := ""
	for l := range strings.SplitSeq(out, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "Output:"))
		switch {
		case l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "Exit code ") || strings.HasPrefix(l, "Exit Code:") ||
			strings.HasPrefix(l, "Process Group PGID:") || l == "FAIL" || strings.HasPrefix(l, "FAIL\t") ||
			strings.HasPrefix(l, "exit status ") || strings.HasPrefix(l, "make: *** "):
			continue
		case strings.HasPrefix(l, "--- FAIL: ") || strings.HasPrefix(l, "FAILED ") || strings.HasPrefix(l, "panic: "):
			return l
		}
		if !command {
			return l
		}
		last = l
	}
	return last
}

// errorLine is the one line reported for a failed call: the command (or
// the tool and its file), the exit status, and the first informative line
// of what it said.
func errorLine(c call, exit *int, out string) string {
	var b strings.Builder
	switch {
	case c.Command != "":
		b.WriteString("`" + handoff.Cut(CommandLine(c.Command), 80) + "`")
	case c.Tool != "":
		b.WriteString(c.Tool)
		if len(c.Files) > 0 {
			b.WriteString(" " + c.Files[0])
		}
	default:
		b.WriteString("tool call")
	}
	if exit != nil && *exit != 0 {
		b.WriteString(": exit " + strconv.Itoa(*exit))
	}
	msg := errorText(out, c.Command != "")
	if msg == "" && (exit == nil || *exit == 0) {
		msg = "(no message)"
	}
	if msg != "" {
		b.WriteString(": " + msg)
	}
	return handoff.Cut(b.String(), MaxLineRunes)
}
