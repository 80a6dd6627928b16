package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/continuity-md/continuity/internal/transcript/transcripttest"
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
		transcripttest.AddLines(f, src)
	}
	f.Add([]byte(toolUse("a", "TodoWrite", `{"todos":[{"content":"x","status":"completed"}]}`) + "\n" + result("a", "ok")))
	f.Add([]byte(toolUse("a", "Edit", `{"file_path":"/home/dev/proj/x"}`) + "\n" + result("a", "ok") + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := readTranscript(bytes.NewReader(data), "/home/dev/proj", nil)
		if err != nil {
			t.Fatal(err)
		}
		transcripttest.CheckFacts(t, data, a)
		b, _ := readTranscript(bytes.NewReader(data), "/home/dev/proj", nil)
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
		got, _ := resumed(t, "/home/dev/proj", data[:cut], data[cut:], os.O_APPEND)
		want, err := readTranscript(bytes.NewReader(data), "/home/dev/proj", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("resumed at %d of %d:\n got %+v\nwant %+v", cut, len(data), got, want)
		}
	})
}
