package droid

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/internal/transcript"
	"github.com/continuity-md/continuity/internal/transcript/transcripttest"
)

// FuzzDecode: no payload panics Decode; Encode prints one JSON object or nothing.
func FuzzDecode(f *testing.F) {
	testkit.AddFiles(f, filepath.Join("testdata", "droid", "droid-payload-*.json"))
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
	b, err := os.ReadFile(filepath.Join("testdata", "droid", "droid-session.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	transcripttest.AddLines(f, b)
	f.Fuzz(func(t *testing.T, rec []byte) {
		data := bytes.Repeat(append(rec, '\n'), 3)
		fs, err := transcript.Read(bytes.NewReader(data), newDecoder("/r", nil))
		if err != nil {
			return
		}
		transcripttest.CheckFacts(t, data, fs)
	})
}
