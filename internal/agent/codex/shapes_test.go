package codex

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/continuity-md/continuity/handoff"
)

// The shapes below are written to the shape of public rollouts of Codex
// 0.118 to 0.147 (Codex Desktop, codex-tui, codex_exec), never copied
// from them.

func call(name, id string, args any) string {
	b, _ := json.Marshal(args)
	return rec("response_item", map[string]any{"type": "function_call", "name": name, "arguments": string(b), "call_id": id})
}

func output(id, out string) string {
	return rec("response_item", map[string]any{"type": "function_call_output", "call_id": id, "output": out})
}

// TestShellCommand: older releases' shell_command tool gives the command
// as one string beside its workdir; its output heads with "Exit code: N".
func TestShellCommand(t *testing.T) {
	f := read(t, join(
		rec("turn_context", map[string]any{"cwd": root, "model": "gpt-5.4"}),
		call("shell_command", "s1", map[string]any{"command": `pwd && rg -n "login|logout" src`, "workdir": root, "timeout_ms": 10000}),
		output("s1", "Exit code: 0\nWall time: 0.1 seconds\nOutput:\n"+root+"\nsrc/a.go:3:login\n"),
		call("shell_command", "s2", map[string]any{"command": "go test ./...", "workdir": root}),
		output("s2", "Exit code: 1\nWall time: 2 seconds\nOutput:\n--- FAIL: TestLogin (0.00s)\nFAIL\tex/api\t0.01s\n"),
		call("shell_command", "s3", map[string]any{"command": "make build", "workdir": root}),
		output("s3", "Exit code: 0\nWall time: 2 seconds\nOutput:\n"),
	), nil)
	if want := []string{"go test ./...", "make build"}; !slices.Equal(f.Commands, want) {
		t.Errorf("commands %q, want %q (pwd && rg only looks)", f.Commands, want)
	}
	if f.LookOnly != 1 {
		t.Errorf("look only %d, want 1", f.LookOnly)
	}
	want := []handoff.Check{{Command: "go test ./...", Outcome: handoff.Failed, Failing: []string{"TestLogin"}, Tests: 1}, {Command: "make build", Outcome: handoff.Passed}}
	if !reflect.DeepEqual(f.Checks, want) {
		t.Errorf("checks %+v, want %+v", f.Checks, want)
	}
}

// TestCodeMode: the desktop app's code mode runs a JavaScript exec tool
// whose script calls tools.exec_command and tools.apply_patch: its
// commands and patches are the session's; "Script completed" says the
// script ran, not how each command exited, so a check's outcome is its
// runner's summary; a failed script fails its last call.
func TestCodeMode(t *testing.T) {
	script := func(id, js string) string {
		return rec("response_item", map[string]any{"type": "custom_tool_call", "status": "completed", "call_id": id, "name": "exec", "input": js})
	}
	scriptOut := func(id, head, out string) string {
		return rec("response_item", map[string]any{"type": "custom_tool_call_output", "call_id": id,
			"output": []any{map[string]any{"type": "input_text", "text": head + "\nWall time 0.4 seconds\nOutput:\n"}, map[string]any{"type": "input_text", "text": out}}})
	}
	f := read(t, join(
		rec("turn_context", map[string]any{"cwd": root, "model": "gpt-5.5"}),
		script("x1", "const [a, b] = await Promise.all([\n  tools.exec_command({cmd: \"git status --short\", workdir: \""+root+"\", yield_time_ms: 10000}),\n  tools.exec_command({\"cmd\":\"rg -n \\\"a|b\\\" src\",\"workdir\":\""+root+"\"}),\n]);\ntext(a.output); text(b.output);\n"),
		scriptOut("x1", "Script completed", " M src/a.go\n"),
		script("x2", "const patch = \"*** Begin Patch\\n*** Update File: "+root+"/src/a.go\\n@@\\n-old\\n+new\\n*** Add File: docs/notes.md\\n+hi\\n*** End Patch\";\nconst result = await tools.apply_patch(patch);\ntext(result);\n"),
		scriptOut("x2", "Script completed", "Success. Updated the following files:\nM src/a.go\nA docs/notes.md\n"),
		script("x3", "const r = await tools.exec_command({\n  cmd: 'env GOCACHE=/tmp/gc go test ./... 2>&1 | tail -5',\n  workdir: \""+root+"\"\n});\ntext(r.output);\n"),
		scriptOut("x3", "Script completed", "ok  \tex/api\t0.2s\n"),
		script("x4", "const r = await tools.exec_command({cmd:`pnpm --filter web build`}); text(r.output);"),
		scriptOut("x4", "Script completed", "vite v5 building...\nerror during build:\nsrc/main.ts: missing export\n"),
		script("x5", "const patch = \"*** Begin Patch\\n*** Update File: gone.txt\\n@@\\n-a\\n+b\\n*** End Patch\";\nawait tools.apply_patch(patch);"),
		scriptOut("x5", "Script error:\napply_patch verification failed: Failed to read gone.txt", ""),
	), nil)
	if want := []string{"src/a.go", "docs/notes.md"}; !slices.Equal(f.Files, want) {
		t.Errorf("files %q, want %q", f.Files, want)
	}
	if want := []string{"env GOCACHE=/tmp/gc go test ./... 2>&1 | tail -5", "pnpm --filter web build"}; !slices.Equal(f.Commands, want) {
		t.Errorf("commands %q, want %q", f.Commands, want)
	}
	if f.LookOnly != 2 {
		t.Errorf("look only %d, want 2", f.LookOnly)
	}
	want := []handoff.Check{{Command: "go test ./...", Outcome: handoff.Passed}, {Command: "pnpm --filter web build", Outcome: handoff.Failed}}
	if !reflect.DeepEqual(f.Checks, want) {
		t.Errorf("checks %+v, want %+v", f.Checks, want)
	}
	if len(f.Errors) != 1 || f.Errors[0] != "apply_patch gone.txt: Script error:" {
		t.Errorf("errors %q", f.Errors)
	}
}

// TestExitArrivesLater: a command that answered "Process running" gets
// its exit from exec_command_end when no write_stdin brings it; a
// command that answered with its exit is not settled twice.
func TestExitArrivesLater(t *testing.T) {
	end := func(id string, code int, out string) string {
		return rec("event_msg", map[string]any{"type": "exec_command_end", "call_id": id, "command": []string{"/bin/zsh", "-lc", "x"}, "aggregated_output": out, "exit_code": code, "status": "completed"})
	}
	f := read(t, join(
		rec("turn_context", map[string]any{"cwd": root, "model": "gpt-5.5"}),
		exec("c1", "cargo test"),
		output("c1", "Chunk ID: 1\nWall time: 10 seconds\nProcess running with session ID 9\nOutput:\nCompiling app\n"),
		exec("c2", "make lint"),
		end("c2", 2, "lint: 3 problems\n"),
		execOut("c2", 2, "lint: 3 problems\n"),
		end("c1", 101, "test tests::div ... FAILED\ntest result: FAILED. 1 passed; 1 failed\n"),
	), nil)
	want := []handoff.Check{{Command: "cargo test", Outcome: handoff.Failed, Failing: []string{"tests::div"}}, {Command: "make lint", Outcome: handoff.Failed}}
	if !reflect.DeepEqual(f.Checks, want) {
		t.Errorf("checks %+v, want %+v", f.Checks, want)
	}
	if len(f.Errors) != 2 || len(f.InFlight) != 0 {
		t.Errorf("errors %q in flight %q: want one error each, nothing in flight", f.Errors, f.InFlight)
	}
}

// TestInjectedTexts: what Codex writes into the history as a user
// message (plugins it recommends, a review the person started, the
// skills) is no request: the last typed prompt stays the task.
func TestInjectedTexts(t *testing.T) {
	f := read(t, join(
		userMsg("fix the flaky login test"),
		userMsg("<recommended_plugins>\nHere is a list of plugins that are available but not installed.\n- Linear (linear@curated)\n</recommended_plugins>"),
		userMsg("<skills_instructions>\n## Skills\nA skill is a set of instructions.\n</skills_instructions>"),
		userMsg("<user_action>\n  <context>User initiated a review task.</context>\n  <action>review</action>\n</user_action>"),
		userMsg("<skill>\n<name>code-review</name>\n<path>/h/.agents/skills/code-review/SKILL.md</path>\n</skill>"),
	), nil)
	if want := []string{"fix the flaky login test"}; !slices.Equal(f.Prompts, want) {
		t.Errorf("prompts %q, want %q", f.Prompts, want)
	}
}

// TestGoals: create_goal and update_goal are the plan where update_plan
// is off (0.169's default).
func TestGoals(t *testing.T) {
	f := read(t, join(
		call("create_goal", "g1", map[string]any{"objective": "Make the login flow pass its e2e tests"}),
		output("g1", `{"goal":{"objective":"Make the login flow pass its e2e tests","status":"active"}}`),
	), nil)
	if want := []handoff.Task{{ID: "goal", Subject: "Make the login flow pass its e2e tests", Status: "in_progress"}}; !reflect.DeepEqual(f.Plan, want) {
		t.Errorf("tasks %+v, want %+v", f.Plan, want)
	}
	f = read(t, join(
		call("create_goal", "g1", map[string]any{"objective": "Ship v2"}),
		output("g1", `{"goal":{"objective":"Ship v2","status":"active"}}`),
		call("create_goal", "g2", map[string]any{"objective": "Another"}),
		output("g2", "cannot create a new goal because this thread has an unfinished goal; complete the existing goal first"),
		call("update_goal", "g3", map[string]any{"status": "complete"}),
		output("g3", `{"goal":{"objective":"Ship v2","status":"complete"}}`),
	), nil)
	if want := []handoff.Task{{ID: "goal", Subject: "Ship v2", Status: "completed"}}; !reflect.DeepEqual(f.Plan, want) {
		t.Errorf("tasks %+v, want %+v", f.Plan, want)
	}
}

// TestCodeModeWaitAndPrintedExit: a script still running when its call
// returns ("Script running with cell ID N") ends in the output of a later
// wait on that cell; a script of one command that printed its result as
// JSON gives that command's exit code.
func TestCodeModeWaitAndPrintedExit(t *testing.T) {
	script := func(id, js string) string {
		return rec("response_item", map[string]any{"type": "custom_tool_call", "status": "completed", "call_id": id, "name": "exec", "input": js})
	}
	out := func(id, text string) string {
		return rec("response_item", map[string]any{"type": "custom_tool_call_output", "call_id": id, "output": text})
	}
	f := read(t, join(
		script("x1", "const r = await tools.exec_command({\n  cmd: \"go test ./internal/sem\",\n  yield_time_ms: 30000\n});\ntext(JSON.stringify(r,null,2));\n"),
		out("x1", "Script running with cell ID 108\nWall time 10.0 seconds\nOutput:\n"),
		call("wait", "w1", map[string]any{"cell_id": "108", "yield_time_ms": 10000}),
		output("w1", "Script running with cell ID 108\nWall time 10.0 seconds\nOutput:\n"),
		call("wait", "w2", map[string]any{"cell_id": "108", "yield_time_ms": 10000}),
		output("w2", "Script completed\nWall time 3.1 seconds\nOutput:\n{\n  \"exit_code\": 1,\n  \"output\": \"--- FAIL: TestDiff (0.00s)\\nFAIL\\n\"\n}"),
		script("x2", "const r = await tools.exec_command({cmd: \"mise run build\"});\ntext(r.output);\ntext(`exit=${r.exit_code}`);\n"),
		out("x2", "Script completed\nWall time 1.0 seconds\nOutput:\nbuilding…\nexit=0"),
	), nil)
	want := []handoff.Check{{Command: "go test ./internal/sem", Outcome: handoff.Failed}, {Command: "mise run build", Outcome: handoff.Passed}}
	if !reflect.DeepEqual(f.Checks, want) {
		t.Errorf("checks %+v, want %+v", f.Checks, want)
	}
	if len(f.Errors) != 1 || len(f.InFlight) != 0 {
		t.Errorf("errors %q, in flight %q: want the failing go test, nothing in flight", f.Errors, f.InFlight)
	}
}
