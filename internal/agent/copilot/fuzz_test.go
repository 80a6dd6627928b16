package copilot

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/internal/transcript"
	"github.com/continuity-md/continuity/internal/transcript/transcripttest"
)

// FuzzDecode: no payload panics Decode, in either format, and what Encode
// prints is one JSON object or nothing.
func FuzzDecode(f *testing.F) {
	testkit.AddFiles(f, filepath.Join("testdata", "copilot", "copilot-*.json"))
	f.Fuzz(func(t *testing.T, payload []byte) {
		for _, h := range []agent.Host{Host{}.ForEvent("sessionStart"), Host{}.ForEvent("userPromptSubmitted"), Claude(func(string) string { return "" })} {
			ev, err := h.Decode(payload)
			if err != nil {
				continue
			}
			out, err := h.Encode(ev, agent.Answer{Context: "continuity: x"})
			if err != nil || (out != nil && !bytes.HasPrefix(out, []byte(`{"additionalContext":`))) {
				t.Fatalf("%q: %s %v", payload, out, err)
			}
		}
	})
}

// FuzzTranscript: no record panics the decoder, and its facts stay bounded.
func FuzzTranscript(f *testing.F) {
	transcripttest.FuzzRecords(f, filepath.Join("testdata", "copilot", "copilot-events.jsonl"), func() transcript.Decoder { return newDecoder("/r", nil) })
}
