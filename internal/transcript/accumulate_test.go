package transcript

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/handoff"
)

const accRoot = "/home/dev/proj"

// unixPaths skips a test whose records hold Unix paths (accRoot) on
// Windows, where such a path is not absolute and so reads as outside the
// project; the Windows forms (drive letters, backslashes) are tested with
// Claude Code's records in agent/claude's TestWindowsPaths.
func unixPaths(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("records with Unix paths")
	}
}

func accumulate(obs []Observation) *handoff.Facts {
	a := newAccumulator(accRoot, nil)
	for _, o := range obs {
		a.Add(o)
	}
	return a.Facts()
}

const (
	failOut = "--- FAIL: TestDiv (0.00s)\n    div_test.go:9: Div(1, 0) did not fail\nFAIL\nFAIL\tex\t0.002s\nFAIL\n"
	passOut = "ok  \tex\t0.002s\n"
	commit  = "[main 4f3c2b1] Div refuses a zero divisor\n 2 files changed, 9 insertions(+)\n"
)

// The scenario of issue 22 (a plan, an edit, a failing test, a fix, a
// passing test, a commit) as each host reports it.
var scenarios = map[string][]Observation{
	// Claude Code: TaskCreate (its id in the result) and TaskUpdate; Edit
	// with absolute paths; a failed Bash result is an error whose text
	// opens with the exit code (the decoder reads it out).
	"claude": {
		{Kind: Prompt, Text: "make Div refuse a zero divisor"},
		{Kind: Call, ID: "t1", Tool: "TaskCreate", Plan: &PlanEdit{Op: Add, Items: []handoff.Task{{Subject: "Refuse zero", Status: "pending"}}}},
		{Kind: Result, ID: "t1", Text: "Task #1 created successfully", PlanID: "1"},
		{Kind: Call, ID: "t2", Tool: "TaskCreate", Plan: &PlanEdit{Op: Add, Items: []handoff.Task{{Subject: "Commit", Status: "pending"}}}},
		{Kind: Result, ID: "t2", Text: "Task #2 created successfully", PlanID: "2"},
		{Kind: Call, ID: "u1", Tool: "TaskUpdate", Plan: &PlanEdit{Op: Update, Items: []handoff.Task{{ID: "1", Status: "in_progress"}}}},
		{Kind: Result, ID: "u1", Text: "Updated task #1 status"},
		{Kind: Call, ID: "e1", Tool: "Edit", Files: []string{accRoot + "/div.go"}},
		{Kind: Result, ID: "e1", Text: "The file has been updated."},
		{Kind: Call, ID: "r0", Tool: "Bash", Command: "sed -n '1,40p' div.go"},
		{Kind: Result, ID: "r0", Text: "package ex"},
		{Kind: Call, ID: "b1", Tool: "Bash", Command: "go test ./..."},
		{Kind: Result, ID: "b1", Failed: true, Exit: Exit(1), Text: failOut},
		{Kind: Call, ID: "e2", Tool: "Edit", Files: []string{accRoot + "/div.go"}},
		{Kind: Result, ID: "e2", Text: "The file has been updated."},
		{Kind: Call, ID: "b2", Tool: "Bash", Command: "go test ./..."},
		{Kind: Result, ID: "b2", Text: passOut},
		{Kind: Call, ID: "u2", Tool: "TaskUpdate", Plan: &PlanEdit{Op: Update, Items: []handoff.Task{{ID: "1", Status: "completed"}}}},
		{Kind: Result, ID: "u2", Text: "Updated task #1 status"},
		{Kind: Call, ID: "b3", Tool: "Bash", Command: "git commit -am 'Div refuses a zero divisor'"},
		{Kind: Result, ID: "b3", Text: commit},
		{Kind: Call, ID: "u3", Tool: "TaskUpdate", Plan: &PlanEdit{Op: Update, Items: []handoff.Task{{ID: "2", Status: "in_progress"}}}},
		{Kind: Result, ID: "u3", Text: "Updated task #2 status"},
		{Kind: Reply, Text: "Div refuses zero; committed."},
	},
	// Codex: update_plan restates the whole plan; paths relative to the
	// cwd; the test run keeps running and its exit comes through
	// write_stdin (the decoder points it at the first call).
	"codex": {
		{Kind: Cwd, Text: accRoot},
		{Kind: Prompt, Text: "make Div refuse a zero divisor"},
		{Kind: Plan, Plan: &PlanEdit{Op: Set, Items: []handoff.Task{{Subject: "Refuse zero", Status: "in_progress"}, {Subject: "Commit", Status: "pending"}}}},
		{Kind: Call, ID: "p1", Tool: "apply_patch", Files: []string{"div.go"}},
		{Kind: Result, ID: "p1", Exit: Exit(0), Text: "Success. Updated the following files:\nM div.go\n"},
		{Kind: Call, ID: "c0", Tool: "exec_command", Command: "nl -ba div.go | sed -n '1,40p'"},
		{Kind: Result, ID: "c0", Exit: Exit(0), Text: "1 package ex"},
		{Kind: Call, ID: "c1", Tool: "exec_command", Command: "go test ./..."},
		{Kind: Result, ID: "c1", Running: true},
		{Kind: Result, ID: "c1", Exit: Exit(1), Text: failOut},
		{Kind: Call, ID: "p2", Tool: "apply_patch", Files: []string{"div.go"}},
		{Kind: Result, ID: "p2", Exit: Exit(0), Text: "Success."},
		{Kind: Call, ID: "c2", Tool: "exec_command", Command: "go test ./..."},
		{Kind: Result, ID: "c2", Exit: Exit(0), Text: passOut},
		{Kind: Plan, Plan: &PlanEdit{Op: Set, Items: []handoff.Task{{Subject: "Refuse zero", Status: "completed"}, {Subject: "Commit", Status: "in_progress"}}}},
		{Kind: Call, ID: "c3", Tool: "exec_command", Command: "git commit -am 'Div refuses a zero divisor'"},
		{Kind: Result, ID: "c3", Exit: Exit(0), Text: commit},
		{Kind: Reply, Text: "Div refuses zero; committed."},
	},
	// Gemini CLI: write_todos with its own words for statuses; each call
	// and its result come in one record.
	"gemini": {
		{Kind: Prompt, Text: "make Div refuse a zero divisor"},
		{Kind: Call, ID: "w1", Tool: "write_todos", Plan: &PlanEdit{Op: Set, Items: []handoff.Task{{Subject: "Refuse zero", Status: "in_progress"}, {Subject: "Commit", Status: "pending"}}}},
		{Kind: Result, ID: "w1", Text: "Successfully updated the todo list."},
		{Kind: Call, ID: "g1", Tool: "replace", Files: []string{accRoot + "/div.go"}},
		{Kind: Result, ID: "g1", Text: "Successfully modified file"},
		{Kind: Call, ID: "g0", Tool: "run_shell_command", Command: "cat div.go"},
		{Kind: Result, ID: "g0", Exit: Exit(0), Text: "package ex"},
		{Kind: Call, ID: "g2", Tool: "run_shell_command", Command: "go test ./..."},
		{Kind: Result, ID: "g2", Exit: Exit(1), Text: failOut},
		{Kind: Call, ID: "g3", Tool: "replace", Files: []string{accRoot + "/div.go"}},
		{Kind: Result, ID: "g3", Text: "Successfully modified file"},
		{Kind: Call, ID: "g4", Tool: "run_shell_command", Command: "go test ./..."},
		{Kind: Result, ID: "g4", Exit: Exit(0), Text: passOut},
		{Kind: Call, ID: "w2", Tool: "write_todos", Plan: &PlanEdit{Op: Set, Items: []handoff.Task{{Subject: "Refuse zero", Status: "done"}, {Subject: "Commit", Status: "in progress"}}}},
		{Kind: Result, ID: "w2", Text: "Successfully updated the todo list."},
		{Kind: Call, ID: "g5", Tool: "run_shell_command", Command: "git commit -am 'Div refuses a zero divisor'"},
		{Kind: Result, ID: "g5", Exit: Exit(0), Text: commit},
		{Kind: Reply, Text: "Div refuses zero; committed."},
	},
}

// TestSameWorkSameFacts: the same work, reported by each host in its own
// way, gives the same sections in the same shapes.
func TestSameWorkSameFacts(t *testing.T) {
	unixPaths(t)
	type shape struct {
		Files, Commands, Errors, Prompts []string
		Plan                             []string
		Checks                           []handoff.Check
		Commits                          []handoff.Commit
		LookOnly                         int
		InFlight                         []string
	}
	of := func(f *handoff.Facts) shape {
		s := shape{Files: f.Files, Commands: f.Commands, Errors: f.Errors, Prompts: f.Prompts, Checks: f.Checks, Commits: f.Commits, LookOnly: f.LookOnly, InFlight: f.InFlight}
		for _, p := range f.Plan {
			s.Plan = append(s.Plan, p.Subject+": "+p.Status)
		}
		return s
	}
	want := shape{
		Files:    []string{"div.go"},
		Commands: []string{"go test ./...", "git commit -am 'Div refuses a zero divisor'"},
		Errors:   []string{"`go test ./...`: exit 1: --- FAIL: TestDiv (0.00s)" + handoff.ResolvedMark},
		Prompts:  []string{"make Div refuse a zero divisor"},
		Plan:     []string{"Refuse zero: completed", "Commit: in_progress"},
		Checks:   []handoff.Check{{Command: "go test ./...", Outcome: handoff.Passed, FailedBefore: true}},
		Commits:  []handoff.Commit{{Hash: "4f3c2b1", Subject: "Div refuses a zero divisor"}},
		LookOnly: 1,
	}
	for host, obs := range scenarios {
		if got := of(accumulate(obs)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", host, got, want)
		}
	}
}

// TestFailingRunStaysOpen: without the passing run, the check is failed
// with the failing test's name, and the error is not resolved.
func TestFailingRunStaysOpen(t *testing.T) {
	for host, obs := range scenarios {
		var cut []Observation
		runs := 0
		for _, o := range obs {
			if o.Kind == Call && o.Command == "go test ./..." {
				if runs++; runs == 2 {
					break
				}
			}
			cut = append(cut, o)
		}
		f := accumulate(cut)
		want := []handoff.Check{{Command: "go test ./...", Outcome: handoff.Failed, Failing: []string{"TestDiv"}, Tests: 1}} // its output names one test
		if !reflect.DeepEqual(f.Checks, want) {
			t.Errorf("%s: checks %+v, want %+v", host, f.Checks, want)
		}
		if len(f.Errors) != 1 || strings.Contains(f.Errors[0], "resolved") {
			t.Errorf("%s: errors %q", host, f.Errors)
		}
	}
}

func TestChecksPipedAwayAndInFlight(t *testing.T) {
	f := accumulate([]Observation{
		{Kind: Call, ID: "1", Command: "go test ./... 2>&1 | tail -5"},
		{Kind: Result, ID: "1", Exit: Exit(0), Text: "(output cut by tail)"},
		{Kind: Call, ID: "5", Command: "go vet ./... 2>&1 | tail -5"},
		{Kind: Result, ID: "5", Exit: Exit(0), Text: ""},
		{Kind: Call, ID: "6", Command: "go test ./div/... 2>&1 | tail -5"},
		{Kind: Result, ID: "6", Exit: Exit(0), Text: "ok  \tex/div\t0.1s"},
		{Kind: Call, ID: "2", Command: "set -o pipefail; npm test | tee log"},
		{Kind: Result, ID: "2", Exit: Exit(0), Text: "passed"},
		{Kind: Call, ID: "3", Command: "cargo test | tail -3"},
		{Kind: Result, ID: "3", Exit: Exit(0), Text: "test tests::div ... FAILED\n"},
		{Kind: Call, ID: "4", Command: "make test"},
		{Kind: Result, ID: "4", Running: true},
	})
	want := []handoff.Check{
		{Command: "go test ./... 2>&1 | tail -5", Outcome: handoff.Unknown},
		{Command: "go vet ./... 2>&1 | tail -5", Outcome: handoff.Unknown},
		// Piped away, but go test's own "ok" says it passed.
		{Command: "go test ./div/... 2>&1 | tail -5", Outcome: handoff.Passed},
		{Command: "set -o pipefail; npm test | tee log", Outcome: handoff.Passed},
		{Command: "cargo test | tail -3", Outcome: handoff.Failed, Failing: []string{"tests::div"}},
		{Command: "make test", Outcome: handoff.Running},
	}
	if !reflect.DeepEqual(f.Checks, want) {
		t.Errorf("checks:\n got %+v\nwant %+v", f.Checks, want)
	}
	if want := []string{"`make test`"}; !reflect.DeepEqual(f.InFlight, want) {
		t.Errorf("in flight %q, want %q", f.InFlight, want)
	}
}

// TestCutListsCounted: a list cut to its bound says how many it left out.
func TestCutListsCounted(t *testing.T) {
	unixPaths(t)
	var obs []Observation
	for i := range MaxCommands + 7 {
		id := fmt.Sprint(i)
		obs = append(obs, Observation{Kind: Call, ID: id, Command: "make build-" + id}, Observation{Kind: Result, ID: id, Exit: Exit(2), Text: "no rule"})
	}
	for i := range MaxFiles + 3 {
		id := fmt.Sprint("f", i)
		obs = append(obs, Observation{Kind: Call, ID: id, Tool: "Write", Files: []string{fmt.Sprintf("%s/f%d.go", accRoot, i)}}, Observation{Kind: Result, ID: id})
	}
	f := accumulate(obs)
	if len(f.Commands) != MaxCommands || f.Omitted.Commands != 7 {
		t.Errorf("%d commands, %d omitted; want %d and 7", len(f.Commands), f.Omitted.Commands, MaxCommands)
	}
	if len(f.Errors) != MaxErrors || f.Omitted.Errors != MaxCommands+7-MaxErrors {
		t.Errorf("%d errors, %d omitted", len(f.Errors), f.Omitted.Errors)
	}
	if len(f.Files) != MaxFiles || f.Omitted.Files != 3 {
		t.Errorf("%d files, %d omitted", len(f.Files), f.Omitted.Files)
	}
}

// TestStateRoundTrip: the accumulator's state, through JSON, resumes to
// the same facts, mid-call included.
func TestStateRoundTrip(t *testing.T) {
	for host, obs := range scenarios {
		whole := accumulate(obs)
		for cut := range obs {
			a := newAccumulator(accRoot, nil)
			for _, o := range obs[:cut] {
				a.Add(o)
			}
			state, err := json.Marshal(a)
			if err != nil {
				t.Fatal(err)
			}
			b := newAccumulator(accRoot, nil)
			if err := json.Unmarshal(state, b); err != nil {
				t.Fatal(err)
			}
			for _, o := range obs[cut:] {
				b.Add(o)
			}
			if got := b.Facts(); !reflect.DeepEqual(got, whole) {
				t.Fatalf("%s cut at %d:\n got %+v\nwant %+v", host, cut, got, whole)
			}
		}
	}
}

// TestSubagentsAndOutside: a subagent's files count, its prompts and plans
// do not; files outside the repository are kept apart.
func TestSubagentsAndOutside(t *testing.T) {
	unixPaths(t)
	f := accumulate([]Observation{
		{Kind: Call, ID: "1", Tool: "Write", Files: []string{"/home/dev/.claude/projects/x/memory/MEMORY.md"}},
		{Kind: Result, ID: "1"},
		{Kind: Call, ID: "2", Agent: "a1", Tool: "Edit", Files: []string{accRoot + "/sub.go"}},
		{Kind: Result, ID: "2", Agent: "a1"},
		{Kind: Prompt, Agent: "a1", Text: "subagent's task"},
		{Kind: Plan, Agent: "a1", Plan: &PlanEdit{Op: Set, Items: []handoff.Task{{Subject: "its own"}}}},
	})
	if !reflect.DeepEqual(f.Files, []string{"sub.go"}) || !reflect.DeepEqual(f.Outside, []string{"/home/dev/.claude/projects/x/memory/MEMORY.md"}) {
		t.Errorf("files %q outside %q", f.Files, f.Outside)
	}
	if len(f.Prompts) != 0 || len(f.Plan) != 0 {
		t.Errorf("a subagent's prompt or plan counted: %q %+v", f.Prompts, f.Plan)
	}
}

func TestRedactedBeforeKept(t *testing.T) {
	secret := "sk-live-" + strings.Repeat("z", 30)
	red := func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }
	a := newAccumulator(accRoot, red)
	a.Add(Observation{Kind: Call, ID: "1", Command: "curl -H 'Authorization: " + secret + "' x && go test ./..."})
	a.Add(Observation{Kind: Result, ID: "1", Exit: Exit(1), Text: "denied " + secret})
	a.Add(Observation{Kind: Call, ID: "2", Command: "git commit -m 'key " + secret + "'"})
	a.Add(Observation{Kind: Result, ID: "2", Text: "[main abc1234] key " + secret})
	a.Add(Observation{Kind: Reply, Text: "used " + secret})
	state, _ := json.Marshal(a)
	facts, _ := json.Marshal(a.Facts())
	for _, b := range [][]byte{state, facts} {
		if strings.Contains(string(b), "sk-live") || !strings.Contains(string(b), "[REDACTED]") {
			t.Errorf("a secret kept, or nothing redacted: %s", b)
		}
	}
}

// TestAccumulateTestsRun: the tests a check's output says ran reach the
// facts' State; another check that counts none (a build) adds none.
func TestAccumulateTestsRun(t *testing.T) {
	a := newAccumulator(accRoot, nil)
	for _, o := range []Observation{
		{Kind: Call, ID: "b1", Tool: "Bash", Command: "pytest -q"},
		{Kind: Result, ID: "b1", Failed: true, Exit: Exit(1), Text: "=========== 1 failed, 4 passed in 0.20s ===========\n"},
		{Kind: Call, ID: "b2", Tool: "Bash", Command: "go build ./..."},
		{Kind: Result, ID: "b2", Text: ""},
	} {
		a.Add(o)
	}
	if f := a.Facts(); f.TestsRun() != 5 || len(f.Checks) != 2 || f.Checks[0].Tests != 5 {
		t.Errorf("tests run %d, checks %+v", f.TestsRun(), f.Checks)
	}
}
