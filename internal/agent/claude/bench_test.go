package claude

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/testkit"
)

var benchOut = flag.String("bench-transcript", "", "also write the generated benchmark transcript to this file")

var (
	benchOnce sync.Once
	benchData []byte
)

// benchTranscript is a ~50 MB transcript shaped like a long real session:
// the recorded session's lines, repeated with fresh tool ids, between big
// tool results (a Read of a large file, long command output, each kept
// twice as the client does: in the message and in toolUseResult), request
// blobs and file attachments, which hold most of the bytes.
func benchTranscript(tb testing.TB) []byte {
	benchOnce.Do(func() {
		rec, err := os.ReadFile("../../../testdata/transcripts/tools-and-compact.jsonl")
		if err != nil {
			tb.Fatal(err)
		}
		var src strings.Builder
		for i := 0; src.Len() < 120<<10; i++ {
			fmt.Fprintf(&src, "%d\tfunc handler%d(w http.ResponseWriter, r *http.Request) {\n\t\tif err := check(r, \"token\"); err != nil { http.Error(w, err.Error(), 401) }\n", i, i)
		}
		text, _ := json.Marshal(src.String())
		var out bytes.Buffer
		for turn := 0; out.Len() < 50<<20; turn++ {
			id := fmt.Sprintf("toolu_bench_%d", turn)
			fmt.Fprintf(&out, `{"parentUuid":"p%d","isSidechain":false,"message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"%s","name":"Read","input":{"file_path":"/tmp/rec1/proj/src/big%d.go"}}]},"type":"assistant","uuid":"a%d"}`+"\n", turn, turn, id, turn, turn)
			fmt.Fprintf(&out, `{"parentUuid":"a%d","isSidechain":false,"promptId":"x","type":"user","message":{"role":"user","content":[{"tool_use_id":"%s","type":"tool_result","content":%s}]},"uuid":"r%d","toolUseResult":{"type":"text","file":{"filePath":"/tmp/rec1/proj/src/big%d.go","content":%s}}}`+"\n", turn, id, text, turn, turn, text)
			fmt.Fprintf(&out, `{"type":"api-request-blob","sessionId":"s","hash":"%064d","message":{"role":"user","content":[{"type":"text","text":%s}]}}`+"\n", turn, text)
			fmt.Fprintf(&out, `{"parentUuid":"r%d","isSidechain":false,"attachment":{"type":"file","filename":"/tmp/rec1/proj/src/big%d.go","content":{"type":"text","file":{"content":%s}}},"type":"attachment","uuid":"f%d"}`+"\n", turn, turn, text, turn)
			// The recorded session, with its tool ids made unique per turn.
			out.Write(bytes.ReplaceAll(rec, []byte("toolu_mock_"), fmt.Appendf(nil, "toolu_%d_", turn)))
		}
		benchData = out.Bytes()
		if *benchOut != "" {
			if err := os.WriteFile(*benchOut, benchData, 0o644); err != nil {
				tb.Fatal(err)
			}
		}
	})
	return benchData
}

func BenchmarkReadTranscript(b *testing.B) {
	benchmarkRead(b, benchTranscript(b))
}

// BenchmarkReadTranscriptSmallLines reads only the recorded session's
// lines, repeated to ~20 MB: many small entries, the worst case per byte.
func BenchmarkReadTranscriptSmallLines(b *testing.B) {
	rec, err := os.ReadFile("../../../testdata/transcripts/tools-and-compact.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	var data []byte
	for turn := 0; len(data) < 20<<20; turn++ {
		data = append(data, bytes.ReplaceAll(rec, []byte("toolu_mock_"), fmt.Appendf(nil, "toolu_%d_", turn))...)
	}
	benchmarkRead(b, data)
}

func benchmarkRead(b *testing.B, data []byte) {
	peak := samplePeakHeap()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	var f *handoff.Facts
	for b.Loop() {
		var err error
		f, err = readTranscript(bytes.NewReader(data), "/tmp/rec1/proj", nil)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	// The live heap above what it was before the loop (the input itself).
	b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MiB")
	if len(f.Files) == 0 || len(f.Plan) == 0 || f.Lines < 1000 {
		b.Fatalf("nothing read: %d files, %d tasks, %d lines", len(f.Files), len(f.Plan), f.Lines)
	}
}

// samplePeakHeap samples the live heap (as marked by the latest GC)
// every millisecond until the returned function is called, which reports
// the largest sample less the live heap at the start.
func samplePeakHeap() func() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	base := s[0].Value.Uint64()
	stop := make(chan struct{})
	done := make(chan uint64)
	go func() {
		var peak uint64
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-stop:
				done <- peak
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(stop)
		p := <-done
		return p - min(base, p)
	}
}

func TestBenchTranscriptFacts(t *testing.T) {
	if testkit.Short() {
		t.Skip("50 MB")
	}
	data := benchTranscript(t)
	f, err := readTranscript(bytes.NewReader(data), "/tmp/rec1/proj", nil)
	if err != nil {
		t.Fatal(err)
	}
	// The recorded facts survive the big lines around them.
	if want := []string{"src/auth/token.go"}; !reflect.DeepEqual(f.Files, want) {
		t.Errorf("files = %q, want %q", f.Files, want)
	}
	if n := len(f.Plan); n < 2 || n%2 != 0 || f.Plan[n-2].Status != "completed" || f.Plan[n-1].Status != "in_progress" {
		t.Errorf("tasks: %d, last two %+v", n, f.Plan[max(0, n-2):])
	}
	if f.CompactSummary == "" || len(f.Prompts) == 0 || f.SkippedLines != 0 || f.Bytes != int64(len(data)) {
		t.Errorf("summary %q, %d prompts, %d skipped, %d of %d bytes", f.CompactSummary, len(f.Prompts), f.SkippedLines, f.Bytes, len(data))
	}
}

// BenchmarkAppendedVsFresh is a later hook on a 200 MB transcript with
// 2 MB appended since the last one (resumed from its checkpoint), against
// a first hook on a fresh 2 MB transcript, timed alternately in one run:
// the target is a ratio of at most 2. Reported: resumed-ms,
// fresh-ms and their ratio.
func BenchmarkAppendedVsFresh(b *testing.B) {
	data := benchTranscript(b) // ~50 MB
	dir := b.TempDir()
	big := filepath.Join(dir, "big.jsonl")
	small := filepath.Join(dir, "small.jsonl")
	// The 2 MB appended: whole lines of the bench transcript's start.
	tail := data[:bytes.LastIndexByte(data[:2<<20], '\n')+1]
	w, err := os.Create(big)
	if err != nil {
		b.Fatal(err)
	}
	for range 4 {
		w.Write(data)
	}
	w.Close()
	_, cp, err := readTranscriptFrom(big, "/tmp/rec1/proj", nil, nil, time.Time{})
	if err != nil {
		b.Fatal(err)
	}
	appendTo(b, big, tail)
	if err := os.WriteFile(small, tail, 0o644); err != nil {
		b.Fatal(err)
	}
	var resumed, fresh []time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		f, _, err := readTranscriptFrom(big, "/tmp/rec1/proj", nil, cp, time.Time{})
		t1 := time.Now()
		g, _, err2 := readTranscriptFrom(small, "/tmp/rec1/proj", nil, nil, time.Time{})
		t2 := time.Now()
		if err != nil || err2 != nil || f.Bytes != 4*int64(len(data))+int64(len(tail)) || g.Bytes != int64(len(tail)) {
			b.Fatalf("%v %v: %d, %d bytes", err, err2, f.Bytes, g.Bytes)
		}
		resumed = append(resumed, t1.Sub(t0))
		fresh = append(fresh, t2.Sub(t1))
	}
	b.StopTimer()
	// Medians: on a shared machine a few slow runs say nothing of either.
	r, f := median(resumed), median(fresh)
	b.ReportMetric(float64(r)/1e6, "resumed-ms")
	b.ReportMetric(float64(f)/1e6, "fresh-ms")
	b.ReportMetric(float64(r)/float64(f), "ratio")
}

func median(d []time.Duration) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}

func appendTo(tb testing.TB, path string, data []byte) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		tb.Fatal(err)
	}
}
