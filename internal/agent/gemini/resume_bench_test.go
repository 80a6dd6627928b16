package gemini

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/continuity-md/continuity/internal/transcript"
	"github.com/continuity-md/continuity/internal/transcript/transcripttest"
)

// longChatOf is about size bytes of a long Gemini CLI session: the two
// real chat files one after the other again and again, ids made unique per
// repetition (numbered from rep0), each tool result grown to what a long
// session's hold (8 KB to 400 KB of source text), in the model record that
// made the call and in the user record that echoes it, as the client
// writes both.
func longChatOf(tb testing.TB, size, rep0 int) []byte {
	recs := transcripttest.Records(readChat(tb, toolsChat), readChat(tb, sampleChat))
	return transcripttest.Long(recs, size, rep0, func(line []byte, rep int, grown func() string) []byte {
		line = bytes.ReplaceAll(line, []byte(`"id":"`), fmt.Appendf(nil, `"id":"r%d-`, rep))
		grow := func(path string) {
			// The exit code stays last, where the client writes it.
			if old := gjson.GetBytes(line, path); old.Type == gjson.String {
				var err error
				if line, err = sjson.SetBytes(line, path, grown()+"\n"+old.Str); err != nil {
					tb.Fatal(err)
				}
			}
		}
		switch gjson.GetBytes(line, "type").Str {
		case "gemini":
			for i := range len(gjson.GetBytes(line, "toolCalls").Array()) {
				grow(fmt.Sprintf("toolCalls.%d.result.0.functionResponse.response.output", i))
			}
		case "user":
			grow("content.0.functionResponse.response.output")
		}
		return line
	})
}

// TestLongChatFacts: the facts of the real chats survive the grown results
// around them, so that the benchmark reads what a hook reads.
func TestLongChatFacts(t *testing.T) {
	transcripttest.ReadLong(t, longChatOf, Host{}.NewDecoder(recRoot, nil), "src/made.go")
}

// BenchmarkAppendedVsFresh is a later hook on a ~200 MB chat file with
// 2 MB appended since the last one, resumed from its checkpoint, against a
// first hook on a fresh 2 MB chat file, timed alternately (target: ratio
// <= 2).
func BenchmarkAppendedVsFresh(b *testing.B) {
	read := transcripttest.DecoderReader(func() transcript.Decoder { return Host{}.NewDecoder(recRoot, nil) })
	transcripttest.LongVsFresh(b, longChatOf, read)
}
