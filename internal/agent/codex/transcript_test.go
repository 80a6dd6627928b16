package codex

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/internal/transcript"
)

// root is the project the recorded session ran in.
const root = "/tmp/codexrec/proj"

func rollout(t testing.TB) []byte {
	t.Helper()
	return testkit.ReadFile(t, filepath.Join(recorded, "rollout.jsonl"))
}

func read(t testing.TB, data []byte, red func(string) string) *handoff.Facts {
	t.Helper()
	f, err := transcript.Read(bytes.NewReader(data), Host{}.NewDecoder(root, red))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestReadRecorded reads the rollout of a real Codex session: a turn with
// exec_command and apply_patch calls (one command and one patch failing)
// and an automatic compaction mid-turn, then a resumed turn.
func TestReadRecorded(t *testing.T) {
	data := rollout(t)
	f := read(t, data, nil)
	want := handoff.Facts{
		Files: []string{"src/token.go", "app.txt", "old.txt", "notes.txt", "docs/notes.md"},
		// ls, git status and cat only look: left out, counted.
		Commands: []string{"mkdir -p src && env | sort > /tmp/codexrec/out/exec-env.txt"},
		LookOnly: 3,
		Errors: []string{
			"`ls does-not-exist`: exit 2: ls: cannot access 'does-not-exist': No such file or directory",
			"apply_patch missing.txt: apply_patch verification failed: Failed to read file to update /tmp/codexrec/proj/missing.txt: No such file or directory (os error 2)",
		},
		Prompts:        []string{"implement the token refresh endpoint", "go on"},
		LastAssistant:  "Resumed: all good.",
		CompactSummary: "SUMMARY-TEXT: token.go added, app.txt patched; next the logout endpoint.",
		Compactions:    1,
		Since:          &handoff.Since{Prompts: []string{"go on"}, LastAssistant: "Resumed: all good."},
		Started:        "2026-11-25T00:04:20.621Z",
		Model:          "gpt-5.5",
		Tokens:         60000,
		Records:        wantedRecords(data), // every record of the recording the decoder reads is a rollout record
		Lines:          bytes.Count(data, []byte("\n")),
		Bytes:          int64(len(data)),
	}
	if !reflect.DeepEqual(*f, want) {
		got, _ := json.MarshalIndent(f, "", "  ")
		exp, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("facts:\n%s\nwant:\n%s", got, exp)
	}
}

// wantedRecords counts the records of data the decoder reads at all.
func wantedRecords(data []byte) int {
	d := Host{}.NewDecoder(root, nil)
	n := 0
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if d.Wants(l) {
			n++
		}
	}
	return n
}

// lines returns the rollout cut after its first n records.
func lines(data []byte, n int) []byte {
	all := bytes.SplitAfter(data, []byte("\n"))
	return bytes.Join(all[:min(n, len(all))], nil)
}

// ordinalLine is the number of records up to and including the one with
// the given ordinal.
func ordinalLine(t *testing.T, data []byte, ordinal int) int {
	t.Helper()
	for i, l := range bytes.Split(data, []byte("\n")) {
		var r struct{ Ordinal *int }
		if json.Unmarshal(l, &r) == nil && r.Ordinal != nil && *r.Ordinal == ordinal {
			return i + 1
		}
	}
	t.Fatalf("no record %d", ordinal)
	return 0
}

// TestReadAtHooks reads the rollout as far as Codex had written it when
// each hook ran: PreCompact sees the work so far, with the tokens that
// set off the compaction; after the compaction the summary is there, its
// request's answer is no reply, and the tokens are unknown until the next
// real usage.
func TestReadAtHooks(t *testing.T) {
	data := rollout(t)
	// PreCompact ran after the token count of the reply over the limit (ordinal 44).
	pre := read(t, lines(data, ordinalLine(t, data, 44)), nil)
	if pre.CompactSummary != "" || pre.Tokens != 60000 || len(pre.Files) != 5 || pre.LastAssistant != "" {
		t.Errorf("at PreCompact: %+v", pre)
	}
	// SessionStart(compact) ran after the compacted record (ordinal 48).
	post := read(t, lines(data, ordinalLine(t, data, 53)), nil)
	if !strings.HasPrefix(post.CompactSummary, "SUMMARY-TEXT:") || post.LastAssistant != "" || post.Tokens != 0 {
		t.Errorf("after compaction: summary %q, last reply %q, tokens %d", post.CompactSummary, post.LastAssistant, post.Tokens)
	}
	// The first run's end (task_complete, ordinal 64).
	end := read(t, lines(data, ordinalLine(t, data, 64)), nil)
	if end.LastAssistant != "The token refresh endpoint is in place; app.txt patched." || end.Tokens != 1000 || len(end.Prompts) != 1 {
		t.Errorf("at the first SessionEnd: %+v", end)
	}
}

// TestStateRoundTrip stops reading after every record, keeps the decoder's
// state through encoding/json, and reads on with a new decoder: the facts
// equal one uninterrupted read.
func TestStateRoundTrip(t *testing.T) {
	data := rollout(t)
	whole := read(t, data, nil)
	recs := bytes.SplitAfter(data, []byte("\n"))
	for cut := 0; cut <= len(recs); cut++ {
		d := newDecoder(root, nil)
		first, err := transcript.Read(bytes.NewReader(bytes.Join(recs[:cut], nil)), d)
		if err != nil {
			t.Fatal(err)
		}
		d2 := reloaded(t, d)
		f, err := transcript.Read(bytes.NewReader(bytes.Join(recs[cut:], nil)), d2)
		if err != nil {
			t.Fatal(err)
		}
		f.Lines += first.Lines
		f.Bytes += first.Bytes
		if !reflect.DeepEqual(f, whole) {
			t.Fatalf("cut after %d records: %+v\nwant %+v", cut, f, whole)
		}
	}
}

// reloaded is a new decoder with d's state, carried through encoding/json.
func reloaded(t testing.TB, d transcript.Decoder) transcript.Decoder {
	t.Helper()
	state, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	d2 := newDecoder(root, nil)
	if err := json.Unmarshal(state, d2); err != nil {
		t.Fatal(err)
	}
	return d2
}

// TestWants checks that the records with no facts stream past unread,
// decided from their heads alone.
func TestWants(t *testing.T) {
	d := newDecoder(root, nil)
	kept := map[string]int{}
	for _, rec := range bytes.Split(rollout(t), []byte("\n")) {
		if len(rec) == 0 {
			continue
		}
		var r struct {
			Type    string
			Payload struct{ Type string }
		}
		if err := json.Unmarshal(rec, &r); err != nil {
			t.Fatal(err)
		}
		head := rec[:min(len(rec), 300)]
		if d.Wants(head) {
			kept[r.Type+"/"+r.Payload.Type]++
		} else if r.Type == "response_item" || r.Type == "compacted" || r.Type == "turn_context" || r.Payload.Type == "token_count" {
			t.Errorf("skipped a %s/%s record", r.Type, r.Payload.Type)
		}
	}
	for k := range kept {
		if strings.HasPrefix(k, "session_meta") || strings.HasPrefix(k, "world_state") || k == "event_msg/item_completed" {
			t.Errorf("kept %s records", k)
		}
	}
	for _, head := range []string{"", "{", `{"timestamp":"2026-11-23T17:40:53.024Z","ordi`, `{"payload":{"x":1},"type":"compacted"}`} {
		if !d.Wants([]byte(head)) {
			t.Errorf("Wants(%q) = false: a head that does not tell must be kept", head)
		}
	}
}

// rec builds one rollout record.
func rec(typ string, payload any) string {
	b, _ := json.Marshal(map[string]any{"timestamp": "2026-11-25T00:00:00.000Z", "type": typ, "payload": payload})
	return string(b)
}

func userMsg(text string, kinds ...string) string {
	p := map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": text}}}
	if len(kinds) > 0 {
		p["internal_chat_message_metadata_passthrough"] = map[string]any{"content_item_kinds": kinds}
	}
	return rec("response_item", p)
}

func exec(id, cmd string) string {
	args, _ := json.Marshal(map[string]string{"cmd": cmd})
	return rec("response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": string(args), "call_id": id})
}

func execOut(id string, code int, out string) string {
	return rec("response_item", map[string]any{"type": "function_call_output", "call_id": id,
		"output": "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code " + itoa(code) + "\nOriginal token count: 3\nOutput:\n" + out})
}

func patch(id, text string) string {
	return rec("response_item", map[string]any{"type": "custom_tool_call", "name": "apply_patch", "input": text, "call_id": id})
}

func patchOut(id string, out string) string {
	return rec("response_item", map[string]any{"type": "custom_tool_call_output", "call_id": id, "output": out})
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func join(recs ...string) []byte { return []byte(strings.Join(recs, "\n") + "\n") }

// TestReadCases covers what the recorded session does not show.
func TestReadCases(t *testing.T) {
	ctx := rec("turn_context", map[string]any{"cwd": root + "/svc", "model": "gpt-5.5"})
	t.Run("prompts", func(t *testing.T) {
		f := read(t, join(ctx,
			userMsg("<environment_context>\n  <cwd>/x</cwd>\n</environment_context>", "environments.environment_context"),
			userMsg("# AGENTS.md instructions for /x\n\n<INSTRUCTIONS>be brief</INSTRUCTIONS>"),
			userMsg("fix the login bug", "user.text"),
			userMsg("typed, in an older rollout without kinds"),
			userMsg("<turn_aborted>\nThe user interrupted.\n</turn_aborted>"),
			rec("response_item", map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "ledger context"}}}),
		), nil)
		if want := []string{"fix the login bug", "typed, in an older rollout without kinds"}; !slices.Equal(f.Prompts, want) {
			t.Errorf("prompts %q, want %q", f.Prompts, want)
		}
	})
	t.Run("paths from the cwd", func(t *testing.T) {
		f := read(t, join(ctx,
			patch("p1", "*** Begin Patch\n*** Add File: api/login.go\n+package api\n*** Update File: /elsewhere/x.txt\n@@\n-a\n+b\n*** Update File: ../README.md\n*** Move to: ../docs/README.md\n*** End Patch\n"),
			patchOut("p1", "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA api/login.go\n"),
			patch("p2", "*** Begin Patch\r\n*** Delete File: api/old.go\r\n*** End Patch\r\n"),
			patchOut("p2", "Exit code: 1\nWall time: 0 seconds\nOutput:\nFailed to delete api/old.go\n"),
			patch("p3", "*** Begin Patch\n*** Delete File: api/legacy.go\n*** End Patch\n"), // no output yet: the session stopped mid-call
		), nil)
		want := []string{"svc/api/login.go", "README.md", "docs/README.md", "svc/api/legacy.go"}
		if !slices.Equal(f.Files, want) {
			t.Errorf("files %q, want %q", f.Files, want)
		}
		if want := []string{"/elsewhere/x.txt"}; !slices.Equal(f.Outside, want) {
			t.Errorf("outside %q, want %q", f.Outside, want)
		}
		if want := []string{"apply_patch svc/api/legacy.go"}; !slices.Equal(f.InFlight, want) {
			t.Errorf("in flight %q, want %q", f.InFlight, want)
		}
		if len(f.Errors) != 1 || f.Errors[0] != "apply_patch svc/api/old.go: exit 1: Failed to delete api/old.go" {
			t.Errorf("errors %q", f.Errors)
		}
	})
	t.Run("commands", func(t *testing.T) {
		f := read(t, join(ctx,
			exec("c1", "go test ./...\ngo vet ./..."), execOut("c1", 1, "--- FAIL: TestLogin\nFAIL\tex/api\t0.01s\n"),
			exec("c2", "make"), execOut("c2", 0, "ok\n"),
			exec("c3", "go test ./...\ngo vet ./..."), execOut("c3", 0, ""),
			exec("c4", "npm run dev"), rec("response_item", map[string]any{"type": "function_call_output", "call_id": "c4", "output": "Chunk ID: 2\nWall time: 10 seconds\nProcess running with session ID 7\nOutput:\nready\n"}),
			rec("response_item", map[string]any{"type": "function_call", "name": "shell", "arguments": `{"command":["bash","-lc","cargo build"]}`, "call_id": "c5"}),
		), nil)
		if want := []string{"make", "go test ./... … (+1 line)", "npm run dev", "cargo build"}; !slices.Equal(f.Commands, want) {
			t.Errorf("commands %q, want %q", f.Commands, want)
		}
		if want := []string{"`go test ./... … (+1 line)`: exit 1: --- FAIL: TestLogin (resolved: passed later)"}; !slices.Equal(f.Errors, want) {
			t.Errorf("errors %q, want %q", f.Errors, want)
		}
		wantChecks := []handoff.Check{
			{Command: "go test ./... … (+1 line)", Outcome: handoff.Passed, FailedBefore: true},
			{Command: "make", Outcome: handoff.Passed},
			{Command: "cargo build", Outcome: handoff.Running},
		}
		if !reflect.DeepEqual(f.Checks, wantChecks) {
			t.Errorf("checks %+v, want %+v", f.Checks, wantChecks)
		}
		if want := []string{"`npm run dev`", "`cargo build`"}; !slices.Equal(f.InFlight, want) {
			t.Errorf("in flight %q, want %q", f.InFlight, want)
		}
	})
	t.Run("an exit that comes through write_stdin", func(t *testing.T) {
		running := func(id, sid string) string {
			return rec("response_item", map[string]any{"type": "function_call_output", "call_id": id,
				"output": "Chunk ID: 1\nWall time: 10.0 seconds\nProcess running with session ID " + sid + "\nOriginal token count: 3\nOutput:\n=== RUN TestLogin\n"})
		}
		poll := func(id, sid string) string {
			return rec("response_item", map[string]any{"type": "function_call", "name": "write_stdin", "arguments": `{"session_id":` + sid + `,"chars":"","yield_time_ms":1000}`, "call_id": id})
		}
		f := read(t, join(ctx,
			exec("c1", "go test ./api/..."), running("c1", "7"),
			poll("w1", "7"), running("w1", "7"),
			poll("w2", "7"), execOut("w2", 1, "--- FAIL: TestLogin (0.01s)\nFAIL\tex/api\t0.01s\n"),
			poll("w3", "99"), execOut("w3", 0, "ok\n"), // a session never seen: nothing
			rec("response_item", map[string]any{"type": "function_call", "name": "update_plan", "call_id": "u1",
				"arguments": `{"explanation":"x","plan":[{"step":"Reproduce","status":"completed"},{"step":"Fix login","status":"in_progress"}]}`}),
			rec("response_item", map[string]any{"type": "function_call_output", "call_id": "u1", "output": "Plan updated"}),
			rec("response_item", map[string]any{"type": "function_call", "name": "update_plan", "call_id": "u2",
				"arguments": `{"plan":[{"step":"Never","status":"pending"}]}`}),
			rec("response_item", map[string]any{"type": "function_call_output", "call_id": "u2", "output": "unsupported call: update_plan"}),
		), nil)
		if want := []string{"`go test ./api/...`: exit 1: --- FAIL: TestLogin (0.01s)", "update_plan: unsupported call: update_plan"}; !slices.Equal(f.Errors, want) {
			t.Errorf("errors %q, want %q", f.Errors, want)
		}
		if want := []handoff.Check{{Command: "go test ./api/...", Outcome: handoff.Failed, Failing: []string{"TestLogin"}, Tests: 1}}; !reflect.DeepEqual(f.Checks, want) {
			t.Errorf("checks %+v, want %+v", f.Checks, want)
		}
		if len(f.InFlight) != 0 {
			t.Errorf("in flight %q: the command ended", f.InFlight)
		}
		if want := []handoff.Task{{Subject: "Reproduce", Status: "completed"}, {Subject: "Fix login", Status: "in_progress"}}; !reflect.DeepEqual(f.Plan, want) {
			t.Errorf("plan %+v, want %+v", f.Plan, want)
		}
	})
	t.Run("secrets are redacted before cutting", func(t *testing.T) {
		secret := "sk-live-" + strings.Repeat("x", 30)
		red := func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }
		long := strings.Repeat("a", transcript.MaxPromptRunes-10) + " " + secret
		f := read(t, join(ctx,
			userMsg(long, "user.text"),
			exec("c1", "curl -H 'Authorization: Bearer "+secret+"' https://api.example.com"), execOut("c1", 22, "denied for "+secret),
			rec("response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "Used " + secret}}}),
			rec("compacted", map[string]any{"message": compactPreamble + " … analysis:\nThe key is " + secret}),
		), red)
		all, _ := json.Marshal(f)
		if bytes.Contains(all, []byte("sk-live-")) || !bytes.Contains(all, []byte("[REDACTED]")) {
			t.Errorf("a secret or a fragment of one was kept: %s", all)
		}
	})
	t.Run("compaction", func(t *testing.T) {
		reply := func(s string) string {
			return rec("response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": s}}})
		}
		tokens := func(n int) string {
			return rec("event_msg", map[string]any{"type": "token_count", "info": map[string]any{"last_token_usage": map[string]any{"input_tokens": n}}})
		}
		f := read(t, join(ctx,
			reply("Refresh endpoint done."), tokens(90000),
			reply("Summary: refresh done, logout next."), tokens(1200),
			rec("compacted", map[string]any{"message": compactPreamble + " and produced a summary. Here is the summary:\nSummary: refresh done, logout next."}),
			tokens(0),
		), nil)
		if f.LastAssistant != "Refresh endpoint done." || f.CompactSummary != "Summary: refresh done, logout next." || f.Tokens != 0 {
			t.Errorf("after compaction: %+v", f)
		}
		// A compaction without the preamble keeps its whole message.
		f = read(t, join(rec("compacted", map[string]any{"message": "plain summary"})), nil)
		if f.CompactSummary != "plain summary" {
			t.Errorf("summary %q", f.CompactSummary)
		}
	})
	t.Run("garbage", func(t *testing.T) {
		f := read(t, []byte("not json\n{\"type\":\"response_item\",\"payload\":\n[]\n\n"+exec("c1", "make")[:40]+"\n"), nil)
		if len(f.Commands)+len(f.Files)+len(f.Prompts) != 0 || f.Lines != 5 {
			t.Errorf("facts from garbage: %+v", f)
		}
	})
}

// TestBounds keeps every list within its bound on a long session.
func TestBounds(t *testing.T) {
	var recs []string
	for i := range 3000 {
		id := "c" + itoa(i)
		recs = append(recs, userMsg("prompt "+itoa(i), "user.text"),
			exec(id, "make target-"+itoa(i)), execOut(id, i%2, "boom"),
			patch("p"+id, "*** Begin Patch\n*** Add File: f"+itoa(i)+".go\n*** End Patch\n"))
	}
	f := read(t, join(recs...), nil)
	if len(f.Files) != transcript.MaxFiles || len(f.Commands) != transcript.MaxCommands || len(f.Errors) != transcript.MaxErrors || len(f.Prompts) != transcript.MaxPrompts {
		t.Errorf("lists: %d files, %d commands, %d errors, %d prompts", len(f.Files), len(f.Commands), len(f.Errors), len(f.Prompts))
	}
	if f.Files[transcript.MaxFiles-1] != "f2999.go" || f.Prompts[transcript.MaxPrompts-1] != "prompt 2999" {
		t.Errorf("the last entries were not kept: %q %q", f.Files[transcript.MaxFiles-1], f.Prompts[transcript.MaxPrompts-1])
	}
}

func TestWantsSkipsReasoning(t *testing.T) {
	d := newDecoder(root, nil)
	r := rec("response_item", map[string]any{"type": "reasoning", "summary": []any{}, "encrypted_content": strings.Repeat("gAAAA", 1000)})
	if d.Wants([]byte(r)) {
		t.Error("a reasoning item is decoded")
	}
	if !d.Wants([]byte(exec("c", "make"))) {
		t.Error("a function call is skipped")
	}
}
