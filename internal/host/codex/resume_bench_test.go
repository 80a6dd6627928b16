package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/continuity-md/continuity/internal/transcript"
	"github.com/continuity-md/continuity/internal/transcript/transcripttest"
)

var (
	longOnce  sync.Once
	longBlock []byte
)

// longRollout is the benchmark's block, made once (see longRolloutOf).
func longRollout(tb testing.TB) []byte {
	longOnce.Do(func() { longBlock = longRolloutOf(tb, 25<<20, 0) })
	return longBlock
}

// longRolloutOf is about size bytes of a long Codex session: the two real
// rollouts one after the other again and again, call ids made unique per
// repetition (numbered from rep0), each tool output grown to what a long
// session's hold (8 KB to 400 KB of source text: a cat of a large file, a
// long test run).
func longRolloutOf(tb testing.TB, size, rep0 int) []byte {
	var recs [][]byte
	for _, p := range []string{filepath.Join(recorded, "rollout.jsonl"), e2eRollout} {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		recs = append(recs, bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))...)
	}
	pool := transcripttest.SourceText(1 << 20)
	rng := rand.New(rand.NewPCG(1, 2))
	var out bytes.Buffer
	for rep := rep0; out.Len() < size; rep++ {
		prefix := fmt.Appendf(nil, `"call_r%d_`, rep)
		for _, line := range recs {
			line = bytes.ReplaceAll(line, []byte(`"call_`), prefix)
			if t := gjson.GetBytes(line, "payload.type").Str; t == "function_call_output" || t == "custom_tool_call_output" {
				n := 8<<10 + rng.IntN(400<<10)
				start := rng.IntN(len(pool) - n)
				grown := gjson.GetBytes(line, "payload.output").Str + "\n" + pool[start:start+n]
				var err error
				if line, err = sjson.SetBytes(line, "payload.output", grown); err != nil {
					tb.Fatal(err)
				}
			}
			out.Write(line)
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

// TestLongRolloutFacts: the facts of the real rollouts survive the grown
// outputs around them, so that the benchmark reads what a hook reads.
func TestLongRolloutFacts(t *testing.T) {
	if testing.Short() {
		t.Skip("25 MB")
	}
	data := longRollout(t)
	f, err := transcript.Read(bytes.NewReader(data), Host{}.NewDecoder(root, nil))
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(data[:bytes.IndexByte(data, '\n')]) || f.SkippedLines != 0 || f.Bytes != int64(len(data)) {
		t.Fatalf("%d skipped lines, %d of %d bytes", f.SkippedLines, f.Bytes, len(data))
	}
	if f.CompactSummary == "" || len(f.Commands) == 0 || len(f.Errors) == 0 || !strings.Contains(strings.Join(f.Files, " "), "src/token.go") {
		t.Errorf("facts lost among the grown outputs: %+v", f)
	}
}

// BenchmarkAppendedVsFresh is a later hook on a ~200 MB rollout with 2 MB
// appended since the last one, resumed from its checkpoint, against a first
// hook on a fresh 2 MB rollout, timed alternately (target: ratio <= 2).
func BenchmarkAppendedVsFresh(b *testing.B) {
	block := longRollout(b)
	read := transcripttest.DecoderReader(func() transcript.Decoder { return Host{}.NewDecoder(root, nil) })
	transcripttest.AppendedVsFresh(b, block, 8, transcripttest.Head(longRolloutOf(b, 2<<20, 1<<20), 2<<20), read)
}
