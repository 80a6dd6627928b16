package droid

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/internal/transcript"
)

func sample(t *testing.T, name string) []byte {
	return testkit.ReadFile(t, filepath.Join("testdata", "droid", name))
}

func TestDecode(t *testing.T) {
	for file, want := range map[string]agent.Event{
		"droid-payload-SessionStart.json":        {Kind: agent.Start, Name: "SessionStart", Source: "startup"},
		"droid-payload-SessionStart-resume.json": {Kind: agent.Start, Name: "SessionStart", Source: "resume"},
		"droid-payload-Stop.json":                {Kind: agent.TurnEnd, Name: "Stop"},
		"droid-payload-SessionEnd.json":          {Kind: agent.End, Name: "SessionEnd", Reason: "other"},
		"droid-payload-PostToolUse.json":         {Kind: agent.Ignore, Name: "PostToolUse"},
	} {
		ev, err := Host{}.Decode(sample(t, file))
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind != want.Kind || ev.Name != want.Name || ev.Source != want.Source || ev.Reason != want.Reason {
			t.Errorf("%s: %+v", file, ev)
		}
		if ev.SessionID == "" || !strings.HasPrefix(ev.Transcript, "/home/kim/.factory/sessions/-home-kim-src-proj/") || ev.Cwd != "/home/kim/src/proj" {
			t.Errorf("%s: %+v", file, ev)
		}
	}
	for _, bad := range []string{``, `[]`, `{`} {
		if _, err := (Host{}).Decode([]byte(bad)); err == nil {
			t.Errorf("%q decoded", bad)
		}
	}
}

func TestEncode(t *testing.T) {
	out, err := Host{}.Encode(agent.Event{Kind: agent.Start}, agent.Answer{Context: "continuity: x", Message: "m"})
	if err != nil || string(out) != `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"continuity: x"}}`+"\n" {
		t.Errorf("%s %v", out, err)
	}
	for _, k := range []agent.Kind{agent.TurnEnd, agent.End, agent.BeforeCompact} {
		if out, _ := (Host{}).Encode(agent.Event{Kind: k}, agent.Answer{Context: "x"}); out != nil {
			t.Errorf("%v printed %s", k, out)
		}
	}
}

func TestDecodeTranscript(t *testing.T) {
	f, err := transcript.Read(bytes.NewReader(sample(t, "droid-session.jsonl")), newDecoder("/home/kim/src/proj", nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"made.txt", "app.txt"}; !reflect.DeepEqual(f.Files, want) {
		t.Errorf("files %q", f.Files)
	}
	if len(f.Commands) != 0 { // ls and echo only look: left out
		t.Errorf("commands %q", f.Commands)
	}
	if len(f.Errors) != 1 || f.Errors[0] != "`ls /nonexistent-e2e-dir && echo never`: exit 2: ls: cannot access '/nonexistent-e2e-dir': No such file or directory" {
		t.Errorf("errors %q", f.Errors)
	}
	if want := []string{"make made.txt and edit app.txt"}; !reflect.DeepEqual(f.Prompts, want) {
		t.Errorf("prompts %q", f.Prompts)
	}
	if f.LastAssistant != "Made made.txt and edited app.txt." || f.Model != "m1-0" || f.Records != 19 {
		t.Errorf("reply %q, model %q, records %d", f.LastAssistant, f.Model, f.Records)
	}
}

func TestRegister(t *testing.T) {
	out, changed, err := Host{}.Register(nil, "continuity hook --agent droid")
	if err != nil || !changed {
		t.Fatal(err)
	}
	st, _ := Host{}.Registered(out)
	for _, ev := range events {
		if st.Events[ev] != "continuity hook --agent droid" {
			t.Errorf("%s: %q", ev, st.Events[ev])
		}
	}
	if again, changed, _ := (Host{}).Register(out, "continuity hook --agent droid"); changed || !bytes.Equal(again, out) {
		t.Error("registering twice changed the file")
	}
	if p, _ := (Host{}).SettingsPath(func(k string) string { return map[string]string{"HOME": "/h"}[k] }, "/r", agent.User); p != "/h/.factory/settings.json" {
		t.Error(p)
	}
}

// TestDecodeTranscriptResumed: a read resumed from checkpoints gives what a
// whole read gives.
func TestDecodeTranscriptResumed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	lines := strings.SplitAfter(string(sample(t, "droid-session.jsonl")), "\n")
	os.WriteFile(path, nil, 0o644)
	var cp *transcript.Checkpoint
	for i, l := range lines {
		fh, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		fh.WriteString(l)
		fh.Close()
		if i%3 != 0 {
			continue
		}
		var err error
		if _, cp, err = transcript.ReadFrom([]string{path}, newDecoder("/home/kim/src/proj", nil), cp, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	got, _, _ := transcript.ReadFrom([]string{path}, newDecoder("/home/kim/src/proj", nil), cp, time.Time{})
	whole, _, _ := transcript.ReadFrom([]string{path}, newDecoder("/home/kim/src/proj", nil), nil, time.Time{})
	got.Lines, whole.Lines, got.Bytes, whole.Bytes = 0, 0, 0, 0
	if !reflect.DeepEqual(got, whole) || len(whole.Files) != 2 {
		t.Errorf("resumed:\n%+v\nwhole:\n%+v", got, whole)
	}
}

// TestClientNotice: a message Droid shows the person only (its "Token
// limit reached" notice, written to the shape of public sessions) is no
// request: the prompt typed before it stays the task.
func TestClientNotice(t *testing.T) {
	lines := []string{
		`{"type":"session_start","id":"s1","title":"add a README","version":2,"cwd":"/w/proj"}`,
		`{"type":"message","id":"m1","timestamp":"2026-03-30T18:50:09.639Z","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>\nUser system info\n</system-reminder>"},{"type":"text","text":"add a README that says what this is for"}]}}`,
		`{"type":"message","id":"m2","timestamp":"2026-03-30T18:50:10.011Z","message":{"role":"user","content":[{"type":"text","text":"Token limit reached. Use /limits to manage your usage preferences."}],"visibility":"user_only"},"parentId":"m1"}`,
	}
	f, err := transcript.Read(strings.NewReader(strings.Join(lines, "\n")+"\n"), newDecoder("/w/proj", nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"add a README that says what this is for"}; !slices.Equal(f.Prompts, want) {
		t.Errorf("prompts %q, want %q", f.Prompts, want)
	}
}
