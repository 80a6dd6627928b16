package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// recordings are the real Claude Code sessions a big transcript is made of,
// relative to the module root.
var recordings = []string{
	"testdata/transcripts/tools-and-compact.jsonl",
	"testdata/transcripts/demo.jsonl",
	"testdata/transcripts/multiline-prompt.jsonl",
	"internal/demo/transcript.jsonl",
}

// writeTranscript writes a transcript of about size bytes to path: the
// recorded sessions' lines, one after another, with tool ids made unique per
// repetition, and with the bytes where a long session has them: each Bash or
// Read result (kept twice by the client, in the message and in
// toolUseResult) and each api-request-blob grown to a realistic size. About
// one line in 400 is a huge Read over handoff.MaxLineBytes.
func writeTranscript(modRoot, path string, size int64) error {
	var sessions [][][]byte
	for _, r := range recordings {
		data, err := os.ReadFile(filepath.Join(modRoot, r))
		if err != nil {
			return err
		}
		sessions = append(sessions, bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n")))
	}
	pool := textPool(16 << 20)
	rng := rand.New(rand.NewPCG(1, 2))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var written int64
	big := 0
	for rep := 0; written < size; rep++ {
		prefix := fmt.Appendf(nil, `"toolu_r%d_`, rep)
		for _, line := range sessions[rep%len(sessions)] {
			line = bytes.ReplaceAll(line, []byte(`"toolu_`), prefix)
			typ := gjson.GetBytes(line, "type").String()
			switch {
			case typ == "api-request-blob":
				line, err = sjson.SetRawBytes(line, "message.content.0.text", pool.window(rng, 64<<10+rng.IntN(900<<10)))
			case typ == "user" && (gjson.GetBytes(line, "toolUseResult.stdout").Exists() || gjson.GetBytes(line, "toolUseResult.file.content").Exists()):
				n := 8<<10 + rng.IntN(400<<10)
				if big++; big%400 == 0 {
					n = 10 << 20
				}
				line, err = inflateResult(line, pool.window(rng, n))
			}
			if err != nil {
				f.Close()
				return err
			}
			w.Write(line)
			w.WriteByte('\n')
			written += int64(len(line)) + 1
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// inflateResult replaces a tool result's text, in the message and in
// toolUseResult, with text (a JSON string).
func inflateResult(line, text []byte) ([]byte, error) {
	var err error
	content := "message.content.0.content"
	if gjson.GetBytes(line, content).IsArray() {
		content += ".0.text"
	}
	if line, err = sjson.SetRawBytes(line, content, text); err != nil {
		return nil, err
	}
	for _, p := range []string{"toolUseResult.stdout", "toolUseResult.file.content"} {
		if gjson.GetBytes(line, p).Exists() {
			if line, err = sjson.SetRawBytes(line, p, text); err != nil {
				return nil, err
			}
		}
	}
	return line, nil
}

// jsonPool is JSON-escaped source text; windows of it are JSON strings.
type jsonPool []byte

// textPool returns about n bytes of Go-like source, escaped for JSON
// (without the quotes). The text holds no backslash of its own, so every
// backslash in the pool starts a two-byte escape.
func textPool(n int) jsonPool {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%6d\tfunc handler%d(w http.ResponseWriter, r *http.Request) {\n\t\tif err := check(r, \"token-%d\"); err != nil {\n\t\t\thttp.Error(w, err.Error(), 401)\n\t\t}\n\t}\n", i, i, i)
	}
	enc, _ := json.Marshal(b.String())
	return enc[1 : len(enc)-1]
}

// window returns a JSON string of about n bytes cut from the pool.
func (p jsonPool) window(rng *rand.Rand, n int) []byte {
	n = min(n, len(p)-2)
	start := rng.IntN(len(p) - n)
	end := start + n
	if start > 0 && p[start-1] == '\\' {
		start++
	}
	// Count the backslashes before end: an odd run means end splits an escape.
	k := 0
	for end-1-k >= start && p[end-1-k] == '\\' {
		k++
	}
	if k%2 == 1 {
		end--
	}
	out := make([]byte, 0, end-start+2)
	out = append(out, '"')
	out = append(out, p[start:end]...)
	return append(out, '"')
}
