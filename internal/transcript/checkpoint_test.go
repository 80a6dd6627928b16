package transcript

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/testkit"

	"github.com/continuity-md/continuity/handoff"
)

// lineDecoder keeps every record it is fed: the simplest decoder whose
// state round-trips through JSON.
type lineDecoder struct {
	Seen []string `json:"seen"`
}

func (d *lineDecoder) Wants([]byte) bool { return true }
func (d *lineDecoder) Record(rec []byte) { d.Seen = append(d.Seen, string(rec)) }
func (d *lineDecoder) Facts() *handoff.Facts {
	return &handoff.Facts{Prompts: append([]string(nil), d.Seen...), Records: len(d.Seen)}
}

func TestReadFromAppends(t *testing.T) {
	dir := testkit.TempDir(t)
	path := filepath.Join(dir, "t.jsonl")
	os.WriteFile(path, []byte("a\nb\nc-being-writ"), 0o644)
	f, cp, err := ReadFrom([]string{path}, &lineDecoder{}, nil, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	// The unfinished last line is decoded but not checkpointed.
	if !reflect.DeepEqual(f.Prompts, []string{"a", "b", "c-being-writ"}) || cp.Files[0].Offset != 4 || f.Bytes != 16 || f.Lines != 3 {
		t.Fatalf("first read: %q, offset %d, %d bytes, %d lines", f.Prompts, cp.Files[0].Offset, f.Bytes, f.Lines)
	}
	if err := SaveCheckpoint(dir, dir, "session-1", cp); err != nil {
		t.Fatal(err)
	}
	fh, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	fh.WriteString("ten\nd\n")
	fh.Close()
	d := &lineDecoder{}
	f, _, err = ReadFrom([]string{path}, d, LoadCheckpoint(dir, dir, "session-1"), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "c-being-written", "d"}; !reflect.DeepEqual(f.Prompts, want) || f.Lines != 4 || f.Bytes != 22 {
		t.Errorf("resumed: %q (%d lines, %d bytes), want %q", f.Prompts, f.Lines, f.Bytes, want)
	}
	// A checkpoint of another session, or none, is nil: read whole.
	if LoadCheckpoint(dir, dir, "session-2") != nil || LoadCheckpoint(filepath.Join(dir, "none"), dir, "session-1") != nil {
		t.Error("a checkpoint where there is none")
	}
}

func TestCheckpointFileSafe(t *testing.T) {
	dir := testkit.TempDir(t)
	cp := &Checkpoint{Version: checkpointVersion, State: json.RawMessage(`{"x":1}`)}
	if err := SaveCheckpoint(dir, dir, "../../etc/passwd", cp); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() && !strings.HasPrefix(e.Name(), "transcript-") && !strings.HasSuffix(e.Name(), ".lock") && !strings.HasPrefix(e.Name(), ".") {
			t.Errorf("unexpected file %s", e.Name())
		}
	}
	if got := LoadCheckpoint(dir, dir, "../../etc/passwd"); got == nil || string(got.State) != `{"x":1}` {
		t.Errorf("loaded %+v", got)
	}
	// A damaged checkpoint is none.
	os.WriteFile(checkpointName(dir, "s"), []byte("{not json"), 0o644)
	if LoadCheckpoint(dir, dir, "s") != nil {
		t.Error("a damaged checkpoint was loaded")
	}
}

func TestReadFilesMissingSubfile(t *testing.T) {
	dir := testkit.TempDir(t)
	main := filepath.Join(dir, "t.jsonl")
	os.WriteFile(main, []byte("a\n"), 0o644)
	f, err := ReadFiles([]string{main, filepath.Join(dir, "gone.jsonl")}, &lineDecoder{})
	if err != nil || f.Records != 1 {
		t.Errorf("%v, %+v", err, f)
	}
	if _, err := ReadFiles([]string{filepath.Join(dir, "gone.jsonl")}, &lineDecoder{}); err == nil {
		t.Error("a missing transcript read without error")
	}
	if _, err := ReadFile(dir, &lineDecoder{}); err == nil {
		t.Error("a directory read as a transcript")
	}
}

func TestRecognised(t *testing.T) {
	if err := Recognised(&handoff.Facts{Bytes: 10, Lines: 2}); !errors.Is(err, ErrNotTranscript) || !strings.Contains(err.Error(), "2 lines, 10 bytes") {
		t.Errorf("Recognised = %v", err)
	}
	for _, f := range []*handoff.Facts{nil, {}, {Bytes: 10, Records: 1}} {
		if err := Recognised(f); err != nil {
			t.Errorf("Recognised(%+v) = %v", f, err)
		}
	}
}
