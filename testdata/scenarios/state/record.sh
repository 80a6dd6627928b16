#!/usr/bin/env bash
# Records the state scenario of issue 22 with the real clients (through
# ../shared/e2e): a plan, an edit, a failing test, a fix, a passing test, a
# commit; then a chat-only session. Writes each client's transcripts here:
#   <client>-work.jsonl  <client>-chat.jsonl
# The project lives at /tmp/continuity-state/proj (paths in the transcripts).
# The pinned Codex (exec mode) offers no update_plan tool and the pinned
# Gemini CLI no write_todos: only Claude Code's session has a plan (the
# decoders' tests read both tools' records).
#
#   testdata/scenarios/state/record.sh [claude|codex|gemini ...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
e2e="${E2E:-$here/../../../../shared/e2e}"
base=/tmp/continuity-state
proj=$base/proj
clients=("$@")
[[ ${#clients[@]} -gt 0 ]] || clients=(claude codex gemini)

div_bug='package ex

// Div divides a by b.
func Div(a, b int) (int, error) { return a / b, nil }
'
div_fixed='package ex

import "errors"

// Div divides a by b; a zero divisor is an error.
func Div(a, b int) (int, error) {
	if b == 0 {
		return 0, errors.New("division by zero")
	}
	return a / b, nil
}
'
div_test='package ex

import "testing"

func TestDivByZero(t *testing.T) {
	defer func() {
		if recover() != nil {
			t.Fatal("Div(1, 0) panicked")
		}
	}()
	if _, err := Div(1, 0); err == nil {
		t.Fatal("Div(1, 0) gave no error")
	}
}
'

fresh() {
  rm -rf "$base"; mkdir -p "$proj"
  (cd "$proj" && git init -q -b main && git config user.name Kim && git config user.email kim@example.com &&
    printf 'module ex\n\ngo 1.22\n' > go.mod && printf '%s' "$div_bug" > div.go &&
    git add . && git commit -qm "Div")
}

json() { python3 -c 'import json,sys; print(json.dumps(json.loads(sys.stdin.read())))'; }

claude_work() {
  python3 - "$proj" "$div_test" "$div_fixed" <<'PY'
import json, sys
proj, test, fixed = sys.argv[1:4]
r = [
 {"tool_use": {"name": "TaskCreate", "input": {"subject": "Make Div refuse a zero divisor", "description": "Div(a, 0) must return an error"}}},
 {"tool_use": {"name": "TaskCreate", "input": {"subject": "Commit the fix", "description": "one commit"}}},
 {"tool_use": {"name": "TaskUpdate", "input": {"taskId": "1", "status": "in_progress"}}},
 {"tool_use": {"name": "Write", "input": {"file_path": proj + "/div_test.go", "content": test}}},
 {"tool_use": {"name": "Bash", "input": {"command": "go test ./...", "description": "run the tests"}}},
 {"tool_use": {"name": "Read", "input": {"file_path": proj + "/div.go"}}},
 {"tool_use": {"name": "Write", "input": {"file_path": proj + "/div.go", "content": fixed}}},
 {"tool_use": {"name": "Bash", "input": {"command": "go test ./...", "description": "run the tests"}}},
 {"tool_use": {"name": "TaskUpdate", "input": {"taskId": "1", "status": "completed"}}},
 {"tool_use": {"name": "TaskUpdate", "input": {"taskId": "2", "status": "in_progress"}}},
 {"tool_use": {"name": "Bash", "input": {"command": "git add div.go div_test.go && git commit -m 'Div refuses a zero divisor'", "description": "commit"}}},
 {"text": "Div now refuses a zero divisor; the test passes and the fix is committed."},
]
print(json.dumps({"responses": r, "summary": "s"}))
PY
}

codex_work() {
  python3 - "$div_test" "$div_fixed" <<'PY'
import json, sys
test, fixed = sys.argv[1:3]
def add(path, text): return "*** Begin Patch\n*** Add File: " + path + "\n" + "".join("+" + l + "\n" for l in text.rstrip("\n").split("\n")) + "*** End Patch\n"
def update(path, old, new): return "*** Begin Patch\n*** Update File: " + path + "\n@@\n" + "".join("-" + l + "\n" for l in old.rstrip("\n").split("\n")) + "".join("+" + l + "\n" for l in new.rstrip("\n").split("\n")) + "*** End Patch\n"
bug = 'package ex\n\n// Div divides a by b.\nfunc Div(a, b int) (int, error) { return a / b, nil }\n'
plan = lambda a, b: {"tool_use": {"name": "update_plan", "input": {"plan": [{"step": "Make Div refuse a zero divisor", "status": a}, {"step": "Commit the fix", "status": b}]}}}
r = [
 {"tool_use": {"name": "apply_patch", "input": add("div_test.go", test)}},
 {"tool_use": {"name": "exec_command", "input": {"cmd": "go test ./..."}}},
 {"tool_use": {"name": "exec_command", "input": {"cmd": "sed -n '1,20p' div.go"}}},
 {"tool_use": {"name": "apply_patch", "input": update("div.go", bug, fixed)}},
 {"tool_use": {"name": "exec_command", "input": {"cmd": "go test ./..."}}},
 {"tool_use": {"name": "exec_command", "input": {"cmd": "git add div.go div_test.go && git commit -m 'Div refuses a zero divisor'"}}},
 {"text": "Div now refuses a zero divisor; the test passes and the fix is committed."},
]
print(json.dumps({"responses": r, "summary": "s"}))
PY
}

gemini_work() {
  python3 - "$proj" "$div_test" "$div_fixed" <<'PY'
import json, sys
proj, test, fixed = sys.argv[1:4]
todos = lambda a, b: {"tool_use": {"name": "write_todos", "input": {"todos": [{"description": "Make Div refuse a zero divisor", "status": a}, {"description": "Commit the fix", "status": b}]}}}
r = [
 {"tool_use": {"name": "write_file", "input": {"file_path": proj + "/div_test.go", "content": test}}},
 {"tool_use": {"name": "run_shell_command", "input": {"command": "go test ./..."}}},
 {"tool_use": {"name": "read_file", "input": {"file_path": proj + "/div.go"}}},
 {"tool_use": {"name": "write_file", "input": {"file_path": proj + "/div.go", "content": fixed}}},
 {"tool_use": {"name": "run_shell_command", "input": {"command": "go test ./..."}}},
 {"tool_use": {"name": "run_shell_command", "input": {"command": "git add div.go div_test.go && git commit -m 'Div refuses a zero divisor'"}}},
 {"text": "Div now refuses a zero divisor; the test passes and the fix is committed."},
]
print(json.dumps({"responses": r, "summary": "s"}))
PY
}

chat() { echo '{"responses": [{"text": "It is 4."}], "summary": "s"}'; }

record() {
  local client=$1 out=$base/out
  fresh; mkdir -p "$out"
  "${client}_work" > "$out/work.json"; chat > "$out/chat.json"
  case $client in
  claude)
    local cfg=$out/cfg; mkdir -p "$cfg"
    "$e2e/claude-e2e" run --dir "$proj" --scenario "$out/work.json" --config "$cfg" -- -p "Make Div refuse a zero divisor, test it, commit it" \
      --allowedTools "Write Edit Read Bash TaskCreate TaskUpdate" >/dev/null
    "$e2e/claude-e2e" run --dir "$proj" --scenario "$out/chat.json" --config "$cfg" -- -p "What is 2+2?" >/dev/null
    mapfile -t ts < <(ls -tr "$cfg"/projects/*/*.jsonl) ;;
  codex)
    local home=$out/home; mkdir -p "$home"
    "$e2e/codex-e2e" run --dir "$proj" --scenario "$out/work.json" --home "$home" -- exec --json -s danger-full-access "Make Div refuse a zero divisor, test it, commit it" >/dev/null
    sleep 1
    "$e2e/codex-e2e" run --dir "$proj" --scenario "$out/chat.json" --home "$home" -- exec --json "What is 2+2?" >/dev/null
    mapfile -t ts < <(ls -tr "$home"/sessions/*/*/*/rollout-*.jsonl) ;;
  gemini)
    local home=$out/home; mkdir -p "$home"
    "$e2e/gemini-e2e" run --dir "$proj" --scenario "$out/work.json" --home "$home" --trust -- -p "Make Div refuse a zero divisor, test it, commit it" --output-format json --yolo >/dev/null
    sleep 1
    "$e2e/gemini-e2e" run --dir "$proj" --scenario "$out/chat.json" --home "$home" --trust -- -p "What is 2+2?" --output-format json >/dev/null
    mapfile -t ts < <(ls -tr "$home"/.gemini/tmp/*/chats/session-*.jsonl) ;;
  esac
  cp "${ts[0]}" "$here/$client-work.jsonl"
  cp "${ts[1]}" "$here/$client-chat.jsonl"
  (cd "$proj" && git log --oneline | head -3) >&2
}

for c in "${clients[@]}"; do record "$c"; done
