package transcript

import (
	"path/filepath"
	"regexp"
	"slices"
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
// (split at pipes, ;, && and ||, outside quotes: a pattern "a|b" is one
// word) is one that reads (cat, sed -n, rg, ls, git status, …), whatever
// runs before it (cd X &&, VAR=value, env), and nothing is redirected
// into a file. sed and awk count only without -i; find only without
// -delete or -exec.
func LookOnly(cmd string) bool {
	cmds, writes := shellLine(cmd)
	if writes {
		return false
	}
	for _, s := range cmds {
		f := s.command()
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
// (its words from the start, quotes read).
var checkShapes = sync.OnceValue(func() []*regexp.Regexp {
	const script = `[\w:.-]*(test|build|lint|typecheck|check|tsc|compile|types|e2e|vet|ci)[\w:.-]*\b`
	const npx = `(npx|bunx|pnpx|pnpm (exec|dlx)|yarn (exec|dlx)|npm exec)( -\S+)* (--\s+)?`
	const tools = `(tsc|vue-tsc|eslint|jest|vitest|mocha|ava|prettier (--check|-c)|vite build|next (build|lint)|playwright test|cypress run|biome (check|lint|ci)|svelte-check|astro check|turbo (run )?` + script + `|nx (run|test|build|lint|affected))`
	var out []*regexp.Regexp
	for _, s := range []string{
		`^go (test|build|vet)\b`, `^(golangci-lint|staticcheck|gofmt -l|gotestsum|govulncheck)\b`,
		// npm, pnpm, yarn and bun scripts, in a workspace or not:
		// pnpm --filter web build, bun --filter '*' test, npm run test:unit.
		`^(npm|pnpm|yarn|bun)( (--(filter|workspace|prefix|cwd|dir)|-[FCw]) \S+| -[-\w]+(=\S+)?)*( run| workspace \S+( run)?)? ` + script,
		`^` + npx + tools, `^` + tools,
		`^(python[0-9.]* -m )?(pytest|mypy|ruff|flake8|pylint|black --check|unittest|pyright|tox|nox)\b`,
		`^(uv|poetry|pipenv|hatch|pdm) run (python[0-9.]* -m )?(pytest|mypy|ruff|pyright|tox)\b`,
		`^cargo (test|build|check|clippy|nextest|fmt --check)\b`,
		`^make( -\S+)* (test|check|build|lint|all)\b`, `^make$`,
		`^(mise|rtx) (run|r|tasks run) ` + script, `^(just|task) ` + script,
		`^(\./)?(gradlew|gradle) .*\b(test|build|check)\b`, `^mvn .*\b(test|verify|package|compile)\b`,
		`^(dotnet) (test|build)\b`, `^(swift) (test|build)\b`, `^(bundle exec )?(rspec|rake test|rubocop)\b`,
		`^(deno) (test|check|lint)\b`, `^(ctest|tox|nox|phpunit|mix test|zig build)\b`,
	} {
		out = append(out, regexp.MustCompile(s))
	}
	return out
})

// checkOf is the check a command runs, as its key, or "" when it runs
// none: the parts of the command (split at pipes, && ; and ||, a leading
// cd, env, VAR=value or a tool manager's "exec … --" passed over) that
// are a test, build, lint or typecheck of a common toolchain, or match
// extra (a project's own patterns), joined by " && ". The same check run
// again (with another env prefix, piped elsewhere, from another cd) has
// the same key.
func checkOf(cmd string, extra []*regexp.Regexp) string {
	var keys []string
	cmds, _ := shellLine(cmd)
	for _, part := range cmds {
		words, raw := checkWords(part)
		if len(words) == 0 {
			continue
		}
		line := strings.Join(words, " ")
		matches := slices.ContainsFunc(checkShapes(), func(re *regexp.Regexp) bool { return re.MatchString(line) }) ||
			slices.ContainsFunc(extra, func(re *regexp.Regexp) bool { return re.MatchString(line) || re.MatchString(raw) })
		if matches && !slices.Contains(keys, raw) {
			keys = append(keys, raw)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	return CommandLine(strings.Join(keys, " && "))
}

// checkWords are a part's command words past a tool manager's wrapper
// (mise exec …, fnm exec …, asdf exec: what follows "--"), and its raw
// text from there, without redirections of its output.
func checkWords(part simple) ([]string, string) {
	words, raw := part.command(), part.rawCommand()
	if len(words) > 2 && (words[1] == "exec" || words[1] == "x") {
		switch filepath.Base(words[0]) {
		case "mise", "rtx", "fnm", "asdf", "volta", "devbox", "nix":
			if i := slices.Index(words, "--"); i >= 0 && i+1 < len(words) {
				words = words[i+1:]
				if j := strings.Index(raw, " -- "); j >= 0 {
					raw = raw[j+4:]
				}
			}
		}
	}
	raw = strings.Join(strings.Fields(harmlessRedirects.Replace(raw)), " ")
	return words, raw
}

// pipedAway reports whether a command's exit status is not its check's:
// its output goes through a pipe into another command (tail, grep, tee…)
// and the shell was not told to fail with it (set -o pipefail).
func pipedAway(cmd string) bool {
	if strings.Contains(cmd, "pipefail") {
		return false
	}
	cmds, _ := shellLine(cmd)
	return slices.ContainsFunc(cmds, func(s simple) bool { return s.piped })
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

// summaryOutcome is how a run went in the words of its own runner, read
// from its output whatever the exit status (a run piped into tail, a
// script's command): handoff.Failed when any runner's summary or marker
// says something failed, handoff.Passed when one says it passed and none
// failed, handoff.Unknown when no runner speaks. It knows go test (ok,
// FAIL, panic), pytest (== 2 passed in 0.1s ==, 3 passed in 0.2s), cargo
// (test result: ok., Finished, could not compile), jest (Tests: 49
// passed), vitest (Tests  1 failed | 3 passed), bun (28 pass, 0 fail),
// mocha (3 passing, 1 failing), playwright (4 passed (2.1s)), tsc (error
// TS2345, Found 2 errors), eslint (✖ 3 problems), vite (✓ built in 1s),
// package managers (ELIFECYCLE, npm ERR!), make (make: *** … Error),
// compilers' and linters' file:line: diagnostics, and the linters' own
// all-clear (0 issues., All checks passed!, Success: no issues found). An
// empty output is a pass: checks are silent when they pass (go build,
// go vet, gofmt -l, tsc), and a run filtered for failures (| grep FAIL)
// found none.
func summaryOutcome(out string) string {
	if failedOutput(out) {
		return handoff.Failed
	}
	passed, said := false, false
	for line := range strings.Lines(out) {
		l := strings.TrimSpace(line)
		if l == "" || l == "(Bash completed with no output)" || l == "(PowerShell completed with no output)" || l == "(no output)" {
			continue
		}
		said = true
		if diagnostic().MatchString(l) {
			return handoff.Failed
		}
		switch {
		case strings.HasPrefix(l, "panic:"), strings.HasPrefix(l, "test result: FAILED"),
			strings.HasPrefix(l, "error: could not compile"), strings.HasPrefix(l, "error[E"),
			strings.Contains(l, "ELIFECYCLE") && strings.Contains(l, "failed"), strings.HasPrefix(l, "npm ERR!"), strings.HasPrefix(l, "npm error"),
			strings.HasPrefix(l, "make: *** "), strings.HasPrefix(l, "error during build"),
			strings.HasPrefix(l, "✖ ") && strings.Contains(l, "problem"),
			tscError().MatchString(l):
			return handoff.Failed
		}
		if m := countLine().FindStringSubmatch(l); m != nil {
			// "Tests: 1 failed, 48 passed", "3 passed in 0.1s", "0 fail".
			for _, c := range countPart().FindAllStringSubmatch(l, -1) {
				switch c[2] {
				case "failed", "fail", "failing", "error", "errors", "broken":
					if c[1] != "0" {
						return handoff.Failed
					}
				case "passed", "pass", "passing", "ok":
					if c[1] != "0" {
						passed = true
					}
				}
			}
			continue
		}
		switch {
		case strings.HasPrefix(l, "ok  \t"), strings.HasPrefix(l, "ok \t"), strings.HasPrefix(l, "ok\t"),
			strings.HasPrefix(l, "test result: ok."), strings.HasPrefix(l, "Finished ") && strings.Contains(l, "target"),
			strings.HasPrefix(l, "✓ built in"), strings.HasPrefix(l, "Found 0 errors"), l == "0 issues.",
			l == "All checks passed!", strings.HasPrefix(l, "Success: no issues found"):
			passed = true
		}
	}
	if passed || !said {
		return handoff.Passed
	}
	return handoff.Unknown
}

var (
	// countLine is a runner's summary line of counts: pytest's, jest's,
	// vitest's, bun's, mocha's, playwright's, the plain "N passed, N
	// failed": counts of passed/failed words, perhaps after a title
	// ("Tests:", "Test Files") and between = rules, perhaps with a time.
	countLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(=+ )?((Tests?|Test Files|Test Suites|Suites|Specs|Ran)[: ]\s*)?\d+ (passed|failed|pass|fail|passing|failing|skipped|errors?|deselected|xfailed|xpassed|todo|broken|flaky|pending)\b([\s,|;]+\d+ \w+)*( in [\d.]+m?s)?(\s*\(.*\))?( =+)?$`)
	})
	countPart = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(\d+) (passed|failed|pass|fail|passing|failing|errors?|broken)\b`)
	})
	// diagnostic is a compiler's or linter's line about a file: go's
	// "./x.go:3:9: undefined: y", rustc's "--> src/main.rs:3:5" is read
	// through cargo's own lines.
	diagnostic = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\.{0,2}/?[\w./-]+\.go:\d+:\d+: `)
	})
	// tscError is TypeScript's diagnostic line, or its closing count.
	tscError = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(\(\d+,\d+\): error TS\d+:|^error TS\d+:|^Found [1-9]\d* errors?\b)`)
	})
)

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
	cmds, _ := shellLine(cmd)
	for _, part := range cmds {
		f := part.command()
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
			strings.HasPrefix(l, "exit status ") || strings.HasPrefix(l, "make: *** ") ||
			strings.HasPrefix(l, "ok  \t") || strings.HasPrefix(l, "?   \t"):
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

// PatchFiles are the files a patch in the "*** Begin Patch" form (Codex's
// apply_patch, Copilot's) adds, updates, deletes or moves.
func PatchFiles(text string) []string {
	var files []string
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		for _, marker := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if path, ok := strings.CutPrefix(line, marker); ok {
				files = append(files, strings.TrimSpace(path))
			}
		}
	}
	return files
}
