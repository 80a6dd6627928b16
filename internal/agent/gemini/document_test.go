package gemini

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/transcript/transcripttest"
)

// chatDocument is a chat in the older form (session-*.json): one JSON
// document, pretty-printed as Gemini CLI writes it, written here to the
// shape of public ones.
func chatDocument(t *testing.T) []byte {
	t.Helper()
	shell := func(id, cmd, status, out string) map[string]any {
		return map[string]any{"id": id, "name": "run_shell_command", "args": map[string]any{"command": cmd},
			"result": []any{map[string]any{"functionResponse": map[string]any{"id": id, "name": "run_shell_command",
				"response": map[string]any{"output": out}}}}, "status": status, "timestamp": "2026-02-26T21:35:00.000Z",
			"displayName": "Shell", "description": "Runs a { shell } command: \"quoted\" [brackets]"}
	}
	doc := map[string]any{
		"sessionId": "00000000-1111-2222-3333-444444444444", "projectHash": "abc", "startTime": "2026-02-26T21:33:42.314Z",
		"lastUpdated": "2026-02-26T21:49:59.801Z", "kind": "main",
		"messages": []any{
			map[string]any{"id": "u1", "timestamp": "2026-02-26T21:33:42.314Z", "type": "user", "content": []any{map[string]any{"text": "fix the redis store in main"}}},
			map[string]any{"id": "g1", "timestamp": "2026-02-26T21:34:09.715Z", "type": "gemini", "content": "I will read main.ts.",
				"thoughts": []any{map[string]any{"subject": "Reading", "description": "}{ not a bracket"}},
				"tokens":   map[string]any{"input": 5350, "output": 55}, "model": "gemini-3-flash-preview",
				"toolCalls": []any{
					map[string]any{"id": "r1", "name": "replace", "args": map[string]any{"file_path": "/repo/src/main.ts"}, "status": "success",
						"result": []any{map[string]any{"functionResponse": map[string]any{"response": map[string]any{"output": "ok"}}}}},
					shell("s1", "npm test 2>&1 | tail -5", "success", "Tests:       1 failed, 48 passed, 49 total\nExit Code: 0"),
				}},
			map[string]any{"id": "i1", "timestamp": "2026-02-26T21:34:30.000Z", "type": "info", "content": "Request cancelled."},
			map[string]any{"id": "u2", "timestamp": "2026-02-26T21:35:42.314Z", "type": "user", "content": []any{map[string]any{"text": "and now the tests"}}},
			map[string]any{"id": "g2", "timestamp": "2026-02-26T21:36:09.715Z", "type": "gemini", "content": "The tests pass now.",
				"tokens": map[string]any{"input": 7000}, "model": "gemini-3-flash-preview",
				"toolCalls": []any{shell("s2", "npm test", "success", "Tests:       49 passed, 49 total\nExit Code: 0")}},
		},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestChatDocument: the older JSON chat is read as the JSONL one is.
func TestChatDocument(t *testing.T) {
	f := decode(t, chatDocument(t), "/repo", nil)
	if want := []string{"fix the redis store in main", "and now the tests"}; !slices.Equal(f.Prompts, want) {
		t.Errorf("prompts %q, want %q", f.Prompts, want)
	}
	if want := []string{"src/main.ts"}; !slices.Equal(f.Files, want) {
		t.Errorf("files %q, want %q", f.Files, want)
	}
	if want := []handoff.Check{{Command: "npm test", Outcome: handoff.Passed, FailedBefore: true, Tests: 49}}; !reflect.DeepEqual(f.Checks, want) {
		t.Errorf("checks %+v, want %+v", f.Checks, want)
	}
	if f.LastAssistant != "The tests pass now." || f.Tokens != 7000 || f.Model != "gemini-3-flash-preview" {
		t.Errorf("last reply %q, tokens %d, model %q", f.LastAssistant, f.Tokens, f.Model)
	}
	if f.Records != 4 {
		t.Errorf("records %d, want the 4 messages", f.Records)
	}
	// Read from a checkpoint taken anywhere, inside a message too, it
	// says the same.
	data := chatDocument(t)
	transcripttest.ResumedEqualsWhole(t, "chat document", data, transcripttest.Cuts(data), resumeReader("/repo"))
}
