package claude

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
)

// Payload is read back by Decode as the event it was made from, for each
// kind the client has; a kind it does not have is an error, not a payload
// that would be ignored.
func TestPayloadDecodes(t *testing.T) {
	evs := []agent.Event{
		{Kind: agent.Start, Name: "SessionStart", SessionID: "s1", Transcript: "/t/s1.jsonl", Cwd: "/repo", Source: "resume"},
		{Kind: agent.BeforeCompact, Name: "PreCompact", SessionID: "s2", Transcript: "/t/s2.jsonl", Cwd: "/repo", Trigger: "auto"},
		{Kind: agent.AfterCompact, Name: "PostCompact", SessionID: "s3", Cwd: "/repo", Trigger: "manual", Summary: "did things"},
		{Kind: agent.End, Name: "SessionEnd", SessionID: "s4", Transcript: "/t/s4.jsonl", Cwd: "/repo", Reason: "exit"},
	}
	for _, want := range evs {
		b, err := Payload(want)
		if err != nil {
			t.Fatalf("%s: %v", want.Name, err)
		}
		got, err := Host{}.Decode(b)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Decode(Payload(%+v)) = %+v, %v", want, got, err)
		}
	}
	if b, err := Payload(agent.Event{Kind: agent.BeforePrompt, SessionID: "x"}); err == nil {
		t.Errorf("a kind the client has no event for gave %s", b)
	}
	// The turn end is the client's Stop, once Decode reads it so.
	if b, err := Payload(agent.Event{Kind: agent.TurnEnd, SessionID: "x", Cwd: "/repo"}); err == nil {
		if ev, _ := (Host{}).Decode(b); ev.Kind != agent.TurnEnd {
			t.Errorf("turn end payload %s decodes as kind %d", b, ev.Kind)
		}
	}
}

// A sample transcript is whole JSON lines of about the size asked for,
// the same for the same calls, and read by the client's decoder as the
// recordings it is made of: their edits and commands are in it. A turn
// appended to it is whole lines too, with tool ids of its own.
func TestSampleWriter(t *testing.T) {
	rec, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "transcripts", "demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	write := func() []byte {
		var b bytes.Buffer
		if err := NewSampleWriter([][]byte{rec}).Write(&b, 3<<20); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	a := write()
	if len(a) < 3<<20 || len(a) > 8<<20 {
		t.Errorf("wrote %d bytes for 3 MiB", len(a))
	}
	if !bytes.Equal(a, write()) {
		t.Error("two writers with the same recordings wrote different bytes")
	}
	lines := bytes.Split(bytes.TrimSuffix(a, []byte("\n")), []byte("\n"))
	for i, l := range lines {
		if !json.Valid(l) {
			t.Fatalf("line %d is not JSON: %.100q", i+1, l)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, a, 0o644); err != nil {
		t.Fatal(err)
	}
	sw := NewSampleWriter([][]byte{rec})
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := sw.Turn(f, 50<<10); err != nil {
		t.Fatal(err)
	}
	f.Close()
	all, _ := os.ReadFile(path)
	turn := all[len(a):]
	if len(turn) < 50<<10 || len(turn) > 200<<10 || turn[len(turn)-1] != '\n' {
		t.Errorf("turn of %d bytes, want about 50 KB of whole lines", len(turn))
	}
	for _, l := range bytes.Split(bytes.TrimSuffix(turn, []byte("\n")), []byte("\n")) {
		if !json.Valid(l) {
			t.Fatalf("turn line is not JSON: %.100q", l)
		}
	}
	facts, err := ReadTranscriptFile(path, "/tmp/rec1/proj", nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ReadTranscriptFile(filepath.Join("..", "..", "..", "testdata", "transcripts", "demo.jsonl"), "/tmp/rec1/proj", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, wantFiles := append(facts.Files, facts.Outside...), append(want.Files, want.Outside...)
	if len(wantFiles) == 0 || strings.Join(got, ",") != strings.Join(wantFiles, ",") {
		t.Errorf("files %v, want the recording's %v", got, wantFiles)
	}
	if len(facts.Commands) == 0 {
		t.Error("no commands read from the sample")
	}
}
