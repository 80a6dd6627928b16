package gemini

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
)

// forward is what scanBack must yield, computed the plain way: the file's
// non-blank lines, last first, each with its head and the patterns it holds.
func forward(data []byte, patterns [][]byte) []tailLine {
	var out []tailLine
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		l := tailLine{head: line[:min(len(line), headMax)]}
		for i, p := range patterns {
			if bytes.Contains(line, p) {
				l.marks |= 1 << i
			}
		}
		out = append(out, l)
	}
	slices.Reverse(out)
	return out
}

func backward(t testing.TB, data []byte, patterns [][]byte) []tailLine {
	var got []tailLine
	err := scanBack(bytes.NewReader(data), int64(len(data)), tailLimit, patterns, func(l *tailLine) bool {
		got = append(got, tailLine{head: bytes.Clone(l.head), marks: l.marks})
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func sameLines(a, b []tailLine) bool {
	return slices.EqualFunc(a, b, func(x, y tailLine) bool { return bytes.Equal(x.head, y.head) && x.marks == y.marks })
}

func TestScanBack(t *testing.T) {
	patterns := [][]byte{patOurs, patGemini, patSnapshot}
	long := `{"type":"user","content":"` + strings.Repeat("x", 3*headMax) + ourMark + `"}`
	inputs := [][]byte{
		readChat(t, toolsChat),
		readChat(t, sampleChat),
		[]byte(long + "\n\n" + long),
		[]byte("no newline at all " + ourMark),
		[]byte("\n\n\n"),
		{},
	}
	defer func(n int) { blockSize = n }(blockSize)
	for _, size := range []int{tailBlock, 4096, 13, 1} {
		blockSize = size
		for i, in := range inputs {
			if got, want := backward(t, in, patterns), forward(in, patterns); !sameLines(got, want) {
				t.Errorf("block %d, input %d: %d lines back, want %d (or heads or marks differ)", size, i, len(got), len(want))
			}
		}
	}
	// It stops when told, and at the limit.
	n := 0
	_ = scanBack(bytes.NewReader(inputs[0]), int64(len(inputs[0])), tailLimit, nil, func(*tailLine) bool { n++; return n < 3 })
	if n != 3 {
		t.Errorf("stopped after %d lines, want 3", n)
	}
	blockSize = 1024
	if err := scanBack(bytes.NewReader(inputs[0]), int64(len(inputs[0])), 2048, nil, func(*tailLine) bool { return true }); err != errTooFar {
		t.Errorf("past the limit: %v", err)
	}
}

func FuzzScanBack(f *testing.F) {
	f.Add([]byte(`{"a":1}`+"\n"+`{"type":"gemini"}`), uint8(3))
	f.Add([]byte("x<hook_context>continuity\n<state_snapshot>"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, block uint8) {
		defer func(n int) { blockSize = n }(blockSize)
		blockSize = int(block%64) + 1
		patterns := [][]byte{patOurs, patGemini, patSnapshot, []byte("\n"[:0]), []byte("ab")}
		patterns = slices.DeleteFunc(patterns, func(p []byte) bool { return len(p) == 0 })
		if got, want := backward(t, data, patterns), forward(data, patterns); !sameLines(got, want) {
			t.Fatalf("block %d: scanBack differs from a forward split", blockSize)
		}
	})
}

// BenchmarkPreCompress decides PreCompress on a small chat and on one
// grown to ~20 MB by a long session: the cost must not grow with the file
// (compare the two in one run).
func BenchmarkPreCompress(b *testing.B) {
	small := readChat(b, toolsChat)
	lines := bytes.SplitAfter(small, []byte("\n"))
	body := bytes.Join(lines[2:31], nil) // run 1's records
	var big bytes.Buffer
	big.Write(bytes.Join(lines[:2], nil))
	for big.Len() < 20<<20 {
		big.Write(body)
	}
	h := Host{Getenv: env(b)}
	for _, c := range []struct {
		name string
		chat []byte
	}{{"small", small}, {"20MB", big.Bytes()}} {
		path := filepath.Join(storeDir(b), "chat.jsonl")
		if err := os.WriteFile(path, c.chat, 0o644); err != nil {
			b.Fatal(err)
		}
		p := payloadFile(b, "PreCompress-2.json")
		p["transcript_path"] = path
		payload := mustJSON(b, p)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if ev, _ := decodeRefined(h, payload); ev.Kind != agent.Ignore {
					b.Fatal("not Ignore")
				}
			}
		})
	}
}
