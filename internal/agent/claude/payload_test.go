package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/continuity-md/continuity/internal/agent"
)

// recordedPayloads returns the payloads recorded from the real client.
func recordedPayloads(tb testing.TB) map[string][]byte {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "payloads", "*.json"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no recorded payloads (%v)", err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out[filepath.Base(p)] = b
	}
	return out
}

func TestDecodeRecorded(t *testing.T) {
	for name, b := range recordedPayloads(t) {
		p, err := decodePayload(b)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for key, got := range map[string]string{
			"session_id": p.SessionID, "transcript_path": p.TranscriptPath, "cwd": p.Cwd,
			"hook_event_name": p.Event, "source": p.Source, "trigger": p.Trigger,
			"compact_summary": p.CompactSummary, "reason": p.Reason, "agent_id": p.AgentID,
		} {
			want, _ := m[key].(string)
			if got != want {
				t.Errorf("%s: %s = %q, want %q", name, key, got, want)
			}
		}
		if p.Event == "" || p.SessionID == "" || p.Cwd == "" {
			t.Errorf("%s: event, session or cwd missing: %+v", name, p)
		}
	}
}

func TestDecodeBad(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		err      string // "" for success
		want     payload
	}{
		{name: "empty", in: "", err: "empty payload"},
		{name: "blank", in: " \n\t", err: "empty payload"},
		{name: "null", in: "null", err: "not a JSON object: null"},
		{name: "array", in: `[{"hook_event_name":"PreCompact"}]`, err: "not a JSON object"},
		{name: "number", in: "7", err: "not a JSON object"},
		{name: "string", in: `"PreCompact"`, err: "not a JSON object"},
		{name: "truncated", in: `{"hook_event_name":"Pre`, err: "not a JSON object"},
		{name: "two objects", in: `{} {}`, err: "not a JSON object"},
		{name: "too deep", in: `{"a":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, err: "not a JSON object"},
		{name: "empty object", in: `{}`},
		{name: "wrong types read as empty", in: `{"hook_event_name":1,"cwd":["/"],"session_id":{"a":"b"},"reason":null,"source":true}`},
		{name: "unknown fields", in: `{"hook_event_name":"SessionEnd","reason":"other","new_field":{"x":[1,2]}}`,
			want: payload{Event: "SessionEnd", Reason: "other"}},
		{name: "escaped NUL dropped", in: `{"session_id":"a\u0000b","cwd":"/x\u0000/y"}`,
			want: payload{SessionID: "ab", Cwd: "/x/y"}},
		{name: "invalid UTF-8 replaced", in: "{\"session_id\":\"a\xffb\",\"trigger\":\"\xc3\"}",
			want: payload{SessionID: "a\uFFFDb", Trigger: "\uFFFD"}},
		{name: "lone surrogate escape", in: `{"session_id":"\ud800x"}`, want: payload{SessionID: "\uFFFDx"}},
		{name: "last duplicate wins", in: `{"cwd":"/a","cwd":"/b"}`, want: payload{Cwd: "/b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := decodePayload([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error has more than one line: %q", err)
				}
				if p != (payload{}) {
					t.Errorf("payload %+v with the error", p)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p != tc.want {
				t.Errorf("got %+v, want %+v", p, tc.want)
			}
		})
	}
	if _, err := decodePayload(nil); !errors.Is(err, errEmpty) {
		t.Errorf("decodePayload(nil) = %v, want errEmpty", err)
	}
}

func TestWriteOneLine(t *testing.T) {
	out := sessionStart("SessionStart", "line one\nline \"two\" \x00 \u2028", "hi")
	b, err := Host{}.Encode(agent.Event{Kind: agent.Start}, agent.Answer{Context: out.HookSpecificOutput.AdditionalContext, Message: out.SystemMessage})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(b, []byte("\n")) != 1 || !bytes.HasSuffix(b, []byte("\n")) {
		t.Fatalf("not one line: %q", b)
	}
	var back sessionStartOutput
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, out) {
		t.Errorf("round trip: %+v, want %+v", back, out)
	}
	if back.HookSpecificOutput.HookEventName != "SessionStart" {
		t.Errorf("event %q", back.HookSpecificOutput.HookEventName)
	}
	b, err = Host{}.Encode(agent.Event{Kind: agent.Start}, agent.Answer{Context: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("systemMessage")) {
		t.Errorf("an empty message is written: %s", b)
	}
	for _, k := range []agent.Kind{agent.BeforeCompact, agent.AfterCompact, agent.End, agent.Ignore} {
		if b, err := (Host{}).Encode(agent.Event{Kind: k}, agent.Answer{Context: "x", Message: "y"}); b != nil || err != nil {
			t.Errorf("kind %d prints %q (%v); only SessionStart prints", k, b, err)
		}
	}
}

// FuzzDecode: Decode never panics; on success every field is valid UTF-8
// without NUL, and a payload re-encoded from the fields decodes to the same
// fields; on failure the error is one line and the payload is zero.
func FuzzDecode(f *testing.F) {
	for _, b := range recordedPayloads(f) {
		f.Add(b)
	}
	for _, s := range []string{"", "null", "[]", "{}", `{"session_id":"a\u0000b"}`, "{\"cwd\":\"\xff\"}",
		`{"hook_event_name":1}`, `{"a":[[[[{}]]]]}`, `{"reason":"\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := decodePayload(data)
		if err != nil {
			if p != (payload{}) {
				t.Fatalf("payload %+v with error %v", p, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error has several lines: %q", err)
			}
			return
		}
		fields := map[string]string{
			"session_id": p.SessionID, "transcript_path": p.TranscriptPath, "cwd": p.Cwd,
			"hook_event_name": p.Event, "source": p.Source, "trigger": p.Trigger,
			"compact_summary": p.CompactSummary, "reason": p.Reason, "agent_id": p.AgentID,
		}
		for k, v := range fields {
			if !utf8.ValidString(v) {
				t.Fatalf("%s is not valid UTF-8: %q", k, v)
			}
			if strings.ContainsRune(v, 0) {
				t.Fatalf("%s holds NUL: %q", k, v)
			}
		}
		again, err := json.Marshal(fields)
		if err != nil {
			t.Fatal(err)
		}
		q, err := decodePayload(again)
		if err != nil || q != p {
			t.Fatalf("re-encoded payload decodes to %+v (%v), want %+v", q, err, p)
		}
	})
}

// TestSubagentPayloads: the real client's SubagentStart is a start of the
// parent's session carrying the subagent's id, answered as SubagentStart;
// its SubagentStop is nothing continuity acts on.
func TestSubagentPayloads(t *testing.T) {
	const parent, sub = "5ae525c7-5402-4dae-9e14-1c968f96e072", "acc6a5a62596a3485"
	for file, kind := range map[string]agent.Kind{"subagent-start.json": agent.Start, "subagent-stop.json": agent.Ignore} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "payloads", file))
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Host{}.Decode(data)
		if err != nil || ev.Kind != kind || ev.SessionID != parent || ev.Subagent != sub {
			t.Errorf("%s: %+v, %v; want kind %v of session %s, subagent %s", file, ev, err, kind, parent, sub)
		}
		if kind != agent.Start {
			continue
		}
		out, err := Host{}.Encode(ev, agent.Answer{Context: "goal: x"})
		if err != nil || !strings.Contains(string(out), `"hookEventName":"SubagentStart"`) || !strings.Contains(string(out), `"additionalContext":"goal: x"`) {
			t.Errorf("%s answered %s, %v", file, out, err)
		}
	}
}
