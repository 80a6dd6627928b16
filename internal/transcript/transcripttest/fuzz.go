package transcripttest

import (
	"bytes"
	"os"
	"testing"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/transcript"
)

// AddLines seeds f with each line of a recorded transcript, as a fuzz
// input of its own; lines of 4 KiB or more are left out (they slow the
// fuzzer and mutate into nothing new).
func AddLines(f *testing.F, data []byte) {
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) < 4096 {
			f.Add(line)
		}
	}
}

// CheckFacts fails t unless fs holds what any read of data must give: every
// byte and line counted, each list within its bound and no empty file path.
func CheckFacts(t testing.TB, data []byte, fs *handoff.Facts) {
	t.Helper()
	if fs.Bytes != int64(len(data)) {
		t.Errorf("read %d of %d bytes", fs.Bytes, len(data))
	}
	lines := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		lines++
	}
	if fs.Lines != lines {
		t.Errorf("counted %d lines, want %d", fs.Lines, lines)
	}
	if len(fs.Files) > transcript.MaxFiles || len(fs.Plan) > transcript.MaxTasks || len(fs.Commands) > transcript.MaxCommands ||
		len(fs.Errors) > transcript.MaxErrors || len(fs.Prompts) > transcript.MaxPrompts {
		t.Errorf("lists over their bounds: %+v", fs)
	}
	for _, p := range fs.Files {
		if p == "" || p == "." {
			t.Errorf("empty file path in %q", fs.Files)
		}
	}
}

// FuzzRecords fuzzes a host's decoder with one record at a time, seeded
// with the lines of the recorded transcript at path: the record three
// times over never panics the decoder, and CheckFacts holds of what it
// reads.
func FuzzRecords(f *testing.F, path string, newDecoder func() transcript.Decoder) {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	AddLines(f, b)
	f.Fuzz(func(t *testing.T, rec []byte) {
		data := bytes.Repeat(append(rec, '\n'), 3)
		fs, err := transcript.Read(bytes.NewReader(data), newDecoder())
		if err != nil {
			return
		}
		CheckFacts(t, data, fs)
	})
}
