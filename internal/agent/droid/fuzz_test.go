package droid

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/transcript"
)

// FuzzDecode: no payload panics Decode; Encode prints one JSON object or nothing.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "droid", "droid-payload-*.json"))
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		ev, err := Host{}.Decode(payload)
		if err != nil {
			return
		}
		out, err := Host{}.Encode(ev, agent.Answer{Context: "continuity: x"})
		if err != nil || (out != nil && !bytes.HasPrefix(out, []byte(`{"hookSpecificOutput":`))) {
			t.Fatalf("%q: %s %v", payload, out, err)
		}
	})
}

// FuzzTranscript: no record panics the decoder, and its facts stay bounded.
func FuzzTranscript(f *testing.F) {
	b, _ := os.ReadFile(filepath.Join("testdata", "droid", "droid-session.jsonl"))
	for _, l := range strings.Split(string(b), "\n") {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, rec []byte) {
		fs, err := transcript.Read(bytes.NewReader(bytes.Repeat(append(rec, '\n'), 3)), newDecoder("/r", nil))
		if err != nil {
			return
		}
		if len(fs.Files) > transcript.MaxFiles || len(fs.Errors) > transcript.MaxErrors || len(fs.Prompts) > transcript.MaxPrompts {
			t.Fatalf("unbounded facts: %+v", fs)
		}
	})
}
