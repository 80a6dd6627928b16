package claude

import (
	"bytes"
	"github.com/continuity-md/continuity/internal/transcript"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// FuzzReadTranscript feeds the reader lines from the recorded transcripts,
// mutated: it must never panic or fail on in-memory input, must count
// every byte and line, must keep its lists bounded, and must be
// deterministic.
func FuzzReadTranscript(f *testing.F) {
	paths, _ := filepath.Glob("../../../testdata/transcripts/*.jsonl")
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range bytes.SplitAfter(src, []byte("\n")) {
			if len(line) < 4096 {
				f.Add(line)
			}
		}
	}
	f.Add([]byte(toolUse("a", "TodoWrite", `{"todos":[{"content":"x","status":"completed"}]}`) + "\n" + result("a", "ok")))
	f.Add([]byte(toolUse("a", "Edit", `{"file_path":"/home/dev/proj/x"}`) + "\n" + result("a", "ok") + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ReadTranscript(bytes.NewReader(data), "/home/dev/proj", nil)
		if err != nil {
			t.Fatal(err)
		}
		if a.Bytes != int64(len(data)) {
			t.Errorf("read %d of %d bytes", a.Bytes, len(data))
		}
		lines := bytes.Count(data, []byte("\n"))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			lines++
		}
		if a.Lines != lines {
			t.Errorf("counted %d lines, want %d", a.Lines, lines)
		}
		if len(a.Files) > transcript.MaxFiles || len(a.Tasks) > transcript.MaxTasks || len(a.Commands) > transcript.MaxCommands ||
			len(a.Errors) > transcript.MaxErrors || len(a.Prompts) > transcript.MaxPrompts {
			t.Errorf("lists over their bounds: %+v", a)
		}
		for _, p := range a.Files {
			if p == "" || p == "." {
				t.Errorf("empty file path in %q", a.Files)
			}
		}
		b, _ := ReadTranscript(bytes.NewReader(data), "/home/dev/proj", nil)
		if !reflect.DeepEqual(a, b) {
			t.Error("two reads differ")
		}
	})
}

// FuzzResume: a read resumed from a checkpoint taken at any cut of any
// input gives the facts of one whole read.
func FuzzResume(f *testing.F) {
	for _, name := range []string{"work-after-compact.jsonl", "agent-progress.jsonl"} {
		src, err := os.ReadFile(filepath.Join("../../../testdata/transcripts", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src[len(src)/2:], uint(len(src)/4))
	}
	f.Add([]byte(prompt("a")+"\n"+prompt("b")+prompt("c")+"\n"), uint(5))
	f.Fuzz(func(t *testing.T, data []byte, cut uint) {
		cut %= uint(len(data) + 1)
		path := filepath.Join(t.TempDir(), "t.jsonl")
		if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		_, cp, err := ReadTranscriptFrom(path, "/home/dev/proj", nil, nil, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fh.Write(data[cut:])
		fh.Close()
		got, _, err := ReadTranscriptFrom(path, "/home/dev/proj", nil, cp, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := ReadTranscript(bytes.NewReader(data), "/home/dev/proj", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("resumed at %d of %d:\n got %+v\nwant %+v", cut, len(data), got, want)
		}
	})
}
