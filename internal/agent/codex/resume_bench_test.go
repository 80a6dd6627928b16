package codex

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/continuity-md/continuity/internal/transcript"
	"github.com/continuity-md/continuity/internal/transcript/transcripttest"
)

// longRolloutOf is about size bytes of a long Codex session: the two real
// rollouts one after the other again and again, call ids made unique per
// repetition (numbered from rep0), each tool output grown to what a long
// session's hold (8 KB to 400 KB of source text: a cat of a large file, a
// long test run).
func longRolloutOf(tb testing.TB, size, rep0 int) []byte {
	var files [][]byte
	for _, p := range []string{filepath.Join(recorded, "rollout.jsonl"), e2eRollout} {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, data)
	}
	return transcripttest.Long(transcripttest.Records(files...), size, rep0, func(line []byte, rep int, grown func() string) []byte {
		line = bytes.ReplaceAll(line, []byte(`"call_`), fmt.Appendf(nil, `"call_r%d_`, rep))
		if t := gjson.GetBytes(line, "payload.type").Str; t == "function_call_output" || t == "custom_tool_call_output" {
			var err error
			if line, err = sjson.SetBytes(line, "payload.output", gjson.GetBytes(line, "payload.output").Str+"\n"+grown()); err != nil {
				tb.Fatal(err)
			}
		}
		return line
	})
}

// TestLongRolloutFacts: the facts of the real rollouts survive the grown outputs
// around them, so that the benchmark reads what a hook reads.
func TestLongRolloutFacts(t *testing.T) {
	transcripttest.ReadLong(t, longRolloutOf, Host{}.NewDecoder(root, nil), "src/token.go")
}

// BenchmarkAppendedVsFresh is a later hook on a ~200 MB rollout with 2 MB
// appended since the last one, resumed from its checkpoint, against a first
// hook on a fresh 2 MB rollout, timed alternately (target: ratio <= 2).
func BenchmarkAppendedVsFresh(b *testing.B) {
	read := transcripttest.DecoderReader(func() transcript.Decoder { return Host{}.NewDecoder(root, nil) })
	transcripttest.LongVsFresh(b, longRolloutOf, read)
}
