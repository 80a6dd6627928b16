package copilot

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/transcript"
)

// FuzzDecode: no payload panics Decode, in either format, and what Encode
// prints is one JSON object or nothing.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "copilot", "copilot-*.json"))
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
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
	b, _ := os.ReadFile(filepath.Join("testdata", "copilot", "copilot-events.jsonl"))
	for _, l := range strings.Split(string(b), "\n") {
		if len(l) < 4096 {
			f.Add([]byte(l))
		}
	}
	f.Fuzz(func(t *testing.T, rec []byte) {
		d := newDecoder("/r", nil)
		fs, err := transcript.Read(bytes.NewReader(bytes.Repeat(append(rec, '\n'), 3)), d)
		if err != nil {
			return
		}
		if len(fs.Files) > transcript.MaxFiles || len(fs.Errors) > transcript.MaxErrors || len(fs.Prompts) > transcript.MaxPrompts {
			t.Fatalf("unbounded facts: %+v", fs)
		}
	})
}
