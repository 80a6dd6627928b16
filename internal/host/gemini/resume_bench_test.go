package gemini

import (
	"bytes"
	"fmt"
	"math/rand/v2"
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

// longChat is the benchmark's block, made once (see longChatOf).
func longChat(tb testing.TB) []byte {
	longOnce.Do(func() { longBlock = longChatOf(tb, 25<<20, 0) })
	return longBlock
}

// longChatOf is about size bytes of a long Gemini CLI session: the two
// real chat files one after the other again and again, ids made unique per
// repetition (numbered from rep0), each tool result grown to what a long
// session's hold (8 KB to 400 KB of source text), in the model record that
// made the call and in the user record that echoes it, as the client
// writes both.
func longChatOf(tb testing.TB, size, rep0 int) []byte {
	var recs [][]byte
	for _, name := range []string{toolsChat, sampleChat} {
		recs = append(recs, bytes.Split(bytes.TrimRight(readChat(tb, name), "\n"), []byte("\n"))...)
	}
	pool := transcripttest.SourceText(1 << 20)
	rng := rand.New(rand.NewPCG(1, 2))
	grow := func(line []byte, path string) []byte {
		old := gjson.GetBytes(line, path)
		if old.Type != gjson.String {
			return line
		}
		n := 8<<10 + rng.IntN(400<<10)
		start := rng.IntN(len(pool) - n)
		// The exit code stays last, where the client writes it.
		text := pool[start:start+n] + "\n" + old.Str
		out, err := sjson.SetBytes(line, path, text)
		if err != nil {
			tb.Fatal(err)
		}
		return out
	}
	var out bytes.Buffer
	for rep := rep0; out.Len() < size; rep++ {
		prefix := fmt.Appendf(nil, `"id":"r%d-`, rep)
		for _, line := range recs {
			line = bytes.ReplaceAll(line, []byte(`"id":"`), prefix)
			switch gjson.GetBytes(line, "type").Str {
			case "gemini":
				for i := range len(gjson.GetBytes(line, "toolCalls").Array()) {
					line = grow(line, fmt.Sprintf("toolCalls.%d.result.0.functionResponse.response.output", i))
				}
			case "user":
				line = grow(line, "content.0.functionResponse.response.output")
			}
			out.Write(line)
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

// TestLongChatFacts: the facts of the real chats survive the grown results
// around them, so that the benchmark reads what a hook reads.
func TestLongChatFacts(t *testing.T) {
	if testing.Short() {
		t.Skip("25 MB")
	}
	data := longChat(t)
	f, err := transcript.Read(bytes.NewReader(data), Host{}.NewDecoder(recRoot, nil))
	if err != nil {
		t.Fatal(err)
	}
	if f.SkippedLines != 0 || f.Bytes != int64(len(data)) {
		t.Fatalf("%d skipped lines, %d of %d bytes", f.SkippedLines, f.Bytes, len(data))
	}
	if f.CompactSummary == "" || len(f.Commands) == 0 || len(f.Errors) == 0 || !strings.Contains(strings.Join(f.Files, " "), "src/made.go") {
		t.Errorf("facts lost among the grown results: %+v", f)
	}
}

// BenchmarkAppendedVsFresh is a later hook on a ~200 MB chat file with
// 2 MB appended since the last one, resumed from its checkpoint, against a
// first hook on a fresh 2 MB chat file, timed alternately (target: ratio
// <= 2).
func BenchmarkAppendedVsFresh(b *testing.B) {
	block := longChat(b)
	read := transcripttest.DecoderReader(func() transcript.Decoder { return Host{}.NewDecoder(recRoot, nil) })
	transcripttest.AppendedVsFresh(b, block, 8, transcripttest.Head(longChatOf(b, 2<<20, 1<<20), 2<<20), read)
}
