package transcripttest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/internal/transcript"
)

// AppendedVsFresh is a later hook on a long transcript (block written reps
// times) with tail appended since the last hook, resumed from that hook's
// checkpoint, against a first hook on a fresh transcript holding tail
// alone, timed alternately in one run: the target is a ratio of at
// most 2. Reported: the transcript's size in MB, resumed-ms, fresh-ms and
// their ratio (medians: on a shared machine a few slow runs say nothing).
func AppendedVsFresh(b *testing.B, block []byte, reps int, tail []byte, read Reader) {
	dir := b.TempDir()
	big := filepath.Join(dir, "big.jsonl")
	small := filepath.Join(dir, "small.jsonl")
	w, err := os.Create(big)
	if err != nil {
		b.Fatal(err)
	}
	for range reps {
		if _, err := w.Write(block); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	_, cp, err := read([]string{big}, nil)
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.OpenFile(big, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := f.Write(tail); err != nil {
		b.Fatal(err)
	}
	f.Close()
	if err := os.WriteFile(small, tail, 0o644); err != nil {
		b.Fatal(err)
	}
	total := int64(reps)*int64(len(block)) + int64(len(tail))
	var resumed, fresh []time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		f, _, err := read([]string{big}, cp)
		t1 := time.Now()
		g, _, err2 := read([]string{small}, nil)
		t2 := time.Now()
		if err != nil || err2 != nil || f.Bytes != total || g.Bytes != int64(len(tail)) || f.Records == 0 || g.Records == 0 {
			b.Fatalf("%v %v: %d of %d, %d of %d bytes", err, err2, f.Bytes, total, g.Bytes, len(tail))
		}
		resumed = append(resumed, t1.Sub(t0))
		fresh = append(fresh, t2.Sub(t1))
	}
	b.StopTimer()
	r, fr := median(resumed), median(fresh)
	b.ReportMetric(float64(total)/(1<<20), "MB")
	b.ReportMetric(float64(r)/1e6, "resumed-ms")
	b.ReportMetric(float64(fr)/1e6, "fresh-ms")
	b.ReportMetric(float64(r)/float64(fr), "ratio")
}

// Gen writes about size bytes of a host's long session (see Long), its
// repetitions numbered from rep0.
type Gen func(tb testing.TB, size, rep0 int) []byte

// LongVsFresh is AppendedVsFresh on a host's long session, as gen writes
// it: a 25 MB block written 8 times (about 200 MB), and 2 MB of records
// new to it (another repetition's) appended, or read fresh.
func LongVsFresh(b *testing.B, gen Gen, read Reader) {
	AppendedVsFresh(b, gen(b, 25<<20, 0), 8, Head(gen(b, 2<<20, 1<<20), 2<<20), read)
}

// Head is the whole lines of data's first n bytes or so: a transcript's
// start, to append or to read fresh.
func Head(data []byte, n int) []byte {
	if n >= len(data) {
		return data
	}
	return data[:bytes.LastIndexByte(data[:n], '\n')+1]
}

func median(d []time.Duration) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}

// Long is about size bytes of a long session made of real records: recs
// again and again, each repetition's records (numbered from rep0) passed
// through edit, which makes their ids unique and grows their tool outputs
// with grown: 8 KB to 400 KB of source text each (a cat of a large file, a
// long test run), the same on every call with the same arguments.
func Long(recs [][]byte, size, rep0 int, edit func(line []byte, rep int, grown func() string) []byte) []byte {
	pool := SourceText(1 << 20)
	rng := rand.New(rand.NewPCG(1, 2))
	grown := func() string {
		n := 8<<10 + rng.IntN(400<<10)
		start := rng.IntN(len(pool) - n)
		return pool[start : start+n]
	}
	var out bytes.Buffer
	for rep := rep0; out.Len() < size; rep++ {
		for _, line := range recs {
			out.Write(edit(line, rep, grown))
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

// ReadLong reads a long session of 25 MB, as gen writes it, with d and
// checks that every byte was read, no line skipped and the recorded facts
// survive among the grown outputs (so that the benchmark reads what a hook
// reads): a compaction summary, commands, errors and file among the files.
// Skipped in -short.
func ReadLong(t *testing.T, gen Gen, d transcript.Decoder, file string) {
	t.Helper()
	if testkit.Short() {
		t.Skip("25 MB")
	}
	data := gen(t, 25<<20, 0)
	f, err := transcript.Read(bytes.NewReader(data), d)
	if err != nil {
		t.Fatal(err)
	}
	if f.SkippedLines != 0 || f.Bytes != int64(len(data)) {
		t.Fatalf("%d skipped lines, %d of %d bytes", f.SkippedLines, f.Bytes, len(data))
	}
	if f.CompactSummary == "" || len(f.Commands) == 0 || len(f.Errors) == 0 || !slices.Contains(f.Files, file) {
		t.Errorf("facts lost among the grown outputs: %+v", f)
	}
}

// Records are the lines of data, one record each.
func Records(data ...[]byte) [][]byte {
	var recs [][]byte
	for _, d := range data {
		recs = append(recs, bytes.Split(bytes.TrimRight(d, "\n"), []byte("\n"))...)
	}
	return recs
}

// SourceText is about n bytes of Go-like source: what a long session's
// tool outputs hold (a cat of a large file, a long test run).
func SourceText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%6d\tfunc handler%d(w http.ResponseWriter, r *http.Request) {\n\t\tif err := check(r, \"token-%d\"); err != nil {\n\t\t\thttp.Error(w, err.Error(), 401)\n\t\t}\n\t}\n", i, i, i)
	}
	return b.String()
}
