package transcript

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/handoff"
)

func TestLookOnly(t *testing.T) {
	for cmd, look := range map[string]bool{
		"ls":                                  true,
		"cat go.mod | head -5":                true,
		"cd src && ls 2>&1":                   true,
		"sed -n '1,80p' internal/x.go":        true,
		"nl -ba main.go | sed -n 10,40p":      true,
		"rg -n 'func Div' .":                  true,
		"git status --short && git diff":      true,
		"git -C sub log --oneline -5":         true,
		"find . -name '*.go' | wc -l":         true,
		"FOO=1 ls":                            true,
		"pwd; whoami; date; wc -l x.go":       true,
		"grep -rn foo . >/dev/null":           true,
		"echo hi > out.txt":                   false,
		"sed -i 's/a/b/' x.go":                false,
		"find . -name '*.orig' -delete":       false,
		"go test ./...":                       false,
		"cd src && go build":                  false,
		"git commit -m x":                     false,
		"git status; git add -A":              false,
		"make\n":                              false,
		"npm run build; echo done":            false,
		"cat <<'EOF' > notes.md\nhello\nEOF":  false,
		"python3 -c 'print(1)' | head -1":     false,
		"rm -rf build && ls":                  false,
		"ls -la && cat README.md | grep x":    true,
		"(cd web && ls)":                      true,
		"/usr/bin/grep -c TODO main.go":       true,
		"awk -i inplace '{print}' x.txt":      false,
		"timeout 5 go test ./pkg/... | tail":  false,
		"git log --oneline | head -3 && true": true,
	} {
		if got := LookOnly(cmd); got != look {
			t.Errorf("LookOnly(%q) = %v, want %v", cmd, got, look)
		}
	}
}

func TestCommandLine(t *testing.T) {
	if got := CommandLine("  go run .\n  --flag\n"); got != "go run . … (+1 line)" {
		t.Errorf("CommandLine = %q", got)
	}
	if got := CommandLine("a  b\nc\nd"); got != "a  b … (+2 lines)" {
		t.Errorf("CommandLine = %q", got)
	}
	long := strings.Repeat("x", 300)
	if got := CommandLine(long); len([]rune(got)) != MaxLineRunes || !strings.HasSuffix(got, "…") {
		t.Errorf("CommandLine(long) = %d runes", len([]rune(got)))
	}
}

func TestCheckOf(t *testing.T) {
	extra := []*regexp.Regexp{regexp.MustCompile(`^\./scripts/ci\.sh\b`)}
	for cmd, want := range map[string]bool{
		"go test ./...":                  true,
		"go test -run TestDiv ./div":     true,
		"cd web && npm test":             true,
		"pnpm run lint":                  true,
		"yarn build":                     true,
		"python -m pytest -x tests/":     true,
		"pytest tests/test_a.py::test_b": true,
		"cargo clippy --all-targets":     true,
		"make test":                      true,
		"make -j4 check":                 true,
		"npx tsc --noEmit":               true,
		"ruff check .":                   true,
		"mypy src":                       true,
		"./gradlew test":                 true,
		"mvn -q test":                    true,
		"CGO_ENABLED=0 go build ./cmd/x": true,
		"timeout 60 go vet ./...":        true,
		"./scripts/ci.sh --fast":         true,
		"go run ./cmd/x":                 false,
		"npm install":                    false,
		"git commit -m 'go test passes'": false,
		"echo go test":                   false,
		"ls test":                        false,
		"grep -rn 'make test' Makefile":  false,
		"cargo run --release":            false,
		"python3 script.py":              false,
	} {
		if got := checkOf(cmd, extra) != ""; got != want {
			t.Errorf("checkOf(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestFailingNames(t *testing.T) {
	goOut := "=== RUN   TestDiv\n--- FAIL: TestDiv (0.00s)\n    div_test.go:9: Div(1, 0) = 0\n--- FAIL: TestMod/zero (0.00s)\nFAIL\nFAIL\tex/div\t0.003s\nFAIL\n"
	if got, want := failingNames(goOut), []string{"TestDiv", "TestMod/zero"}; !reflect.DeepEqual(got, want) {
		t.Errorf("go: %q, want %q", got, want)
	}
	pyOut := "tests/test_a.py F.\n=== short test summary info ===\nFAILED tests/test_a.py::test_div - ZeroDivisionError: division by zero\n1 failed, 1 passed\n"
	if got, want := failingNames(pyOut), []string{"tests/test_a.py::test_div"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pytest: %q, want %q", got, want)
	}
	cargoOut := "running 2 tests\ntest tests::div ... FAILED\ntest tests::add ... ok\n"
	if got, want := failingNames(cargoOut), []string{"tests::div"}; !reflect.DeepEqual(got, want) {
		t.Errorf("cargo: %q, want %q", got, want)
	}
	if got := failingNames("ok  \tex/div\t0.002s\n"); got != nil {
		t.Errorf("a pass: %q", got)
	}
}

func TestErrorText(t *testing.T) {
	for out, want := range map[string]string{
		"--- FAIL: TestDiv (0.00s)\n    div_test.go:9: x\nFAIL\nFAIL\tex\t0.01s\nFAIL\n":   "--- FAIL: TestDiv (0.00s)",
		"# ex\n./div.go:3:9: undefined: y\n":                                               "./div.go:3:9: undefined: y",
		"pyenv: cannot rehash: x isn't writable\nls: cannot access 'nope': No such file\n": "ls: cannot access 'nope': No such file",
		"<tool_use_error>File has not been read yet.</tool_use_error>":                     "File has not been read yet.",
		"\n\n": "",
	} {
		if got := errorText(out, true); got != want {
			t.Errorf("errorText(%q) = %q, want %q", out, got, want)
		}
	}
}

func TestErrorTextOfATool(t *testing.T) {
	out := "String to replace not found in file.\nString: not there"
	if got, want := errorText(out, false), "String to replace not found in file."; got != want {
		t.Errorf("errorText = %q, want %q", got, want)
	}
}

func TestCommitsIn(t *testing.T) {
	out := "[main 1a2b3c4] Fix division by zero\n 1 file changed, 3 insertions(+)\n"
	if got, want := commitsIn(out), []handoff.Commit{{Hash: "1a2b3c4", Subject: "Fix division by zero"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("%+v, want %+v", got, want)
	}
	root := "[master (root-commit) 0f1e2d3] Initial commit\n"
	if got := commitsIn(root); len(got) != 1 || got[0].Hash != "0f1e2d3" {
		t.Errorf("root commit: %+v", got)
	}
	if got := commitsIn("nothing to commit, working tree clean\n"); got != nil {
		t.Errorf("no commit: %+v", got)
	}
}

// TestPassedOutput: a run piped away passed only when its own words say
// so, with no failure anywhere.
func TestPassedOutput(t *testing.T) {
	for out, want := range map[string]bool{
		"ok  \tex/div\t0.002s\n?   \tex/cmd\t[no test files]\n":                   true,
		"ok  \tex/div\t0.002s\nFAIL\tex/mod [build failed]\n":                     false,
		"--- FAIL: TestX (0.00s)\nok  \tex/div\t0.1s\n":                           false,
		"tests/test_a.py ..\n============ 2 passed in 0.12s ============\n":       true,
		"=========== 1 failed, 2 passed in 0.30s ===========\n":                   false,
		"running 2 tests\ntest a ... ok\n\ntest result: ok. 2 passed; 0 failed\n": true,
		"test result: FAILED. 1 passed; 1 failed\n":                               false,
		"Compiled successfully\n":                                                 false,
		"":                                                                        false,
	} {
		if got := passedOutput(out); got != want {
			t.Errorf("passedOutput(%q) = %v, want %v", out, got, want)
		}
	}
}

// TestTestsRun: each runner's own words for how many tests ran (outputs
// written to the shape of each tool's).
func TestTestsRun(t *testing.T) {
	for _, c := range []struct {
		name, out string
		want      int
	}{
		{"go test -v", "=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n=== RUN   TestB/sub\n--- FAIL: TestB (0.00s)\n    --- FAIL: TestB/sub (0.00s)\n--- SKIP: TestC (0.00s)\nFAIL\nFAIL\texample.com/m\t0.01s\n", 3},
		{"go test, quiet", "ok  \texample.com/m\t0.01s\n", 0},
		{"pytest", "============================= test session starts ==============================\ncollected 6 items\n\ntest_a.py ..F.s.                                                          [100%]\n\n==================== 1 failed, 4 passed, 1 skipped in 0.12s ====================\n", 5},
		{"pytest, all failed", "=========================== 2 failed in 0.05s ===========================\n", 2},
		{"cargo", "running 3 tests\ntest a ... ok\ntest b ... ok\ntest c ... FAILED\n\ntest result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\nrunning 1 test\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n", 4},
		{"jest", "Test Suites: 1 failed, 1 passed, 2 total\nTests:       1 failed, 5 passed, 6 total\nSnapshots:   0 total\n", 6},
		{"vitest", " Test Files  2 passed (2)\n      Tests  7 passed (7)\n   Start at  10:00:00\n", 7},
		{"mocha", "  3 passing (12ms)\n  1 failing\n", 4},
		{"nothing", "build ok\n", 0},
	} {
		if got := testsRun(c.out); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
