package droid

import (
	"bytes"
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
	transcripttest.FuzzRecords(f, filepath.Join("testdata", "droid", "droid-session.jsonl"), func() transcript.Decoder { return newDecoder("/r", nil) })
}
