package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
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
		if len(a.Files) > maxFiles || len(a.Tasks) > maxTasks || len(a.Commands) > maxCommands ||
			len(a.Errors) > maxErrors || len(a.Prompts) > maxPrompts {
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
