// Package transcripttest checks a host's transcript decoder against the
// engine's incremental reading (transcript.ReadFrom): a read resumed from
// the checkpoint of an earlier read gives the facts of one whole read of
// the same file, and a file rewritten since its checkpoint is read whole.
// Each host's tests call it with their recorded transcripts.
package transcripttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/internal/transcript"
)

// Cuts are the points at which a test stops the client mid-session: after
// each line, just before its line break (a whole record not yet ended),
// 37 bytes before its end and at its middle (a record being written).
// Sorted, each at most once, none 0 or len(data).
func Cuts(data []byte) []int {
	seen := map[int]bool{}
	var cuts []int
	add := func(c int) {
		if c > 0 && c < len(data) && !seen[c] {
			seen[c] = true
			cuts = append(cuts, c)
		}
	}
	start := 0
	for i, b := range data {
		if b != '\n' {
			continue
		}
		add(start + (i-start)/2)
		add(max(start+1, i-37))
		add(i)
		add(i + 1)
		start = i + 1
	}
	slices.Sort(cuts)
	return cuts
}

// Reader reads the files of one session with a fresh decoder: paths[0] the
// transcript, the rest its subagents' files.
type Reader func(paths []string, cp *transcript.Checkpoint) (*handoff.Facts, *transcript.Checkpoint, error)

// DecoderReader is a Reader that reads with a new decoder from newDecoder.
func DecoderReader(newDecoder func() transcript.Decoder) Reader {
	return func(paths []string, cp *transcript.Checkpoint) (*handoff.Facts, *transcript.Checkpoint, error) {
		return transcript.ReadFrom(paths, newDecoder(), cp, time.Time{})
	}
}

// grow writes data[:n] to path as a client appends to it: the file stays
// the same file, only ever longer.
func grow(t testing.TB, path string, data []byte, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(data[:n], 0); err != nil {
		t.Fatal(err)
	}
}

// ResumedEqualsWhole reads data (one session's transcript) step by step,
// resuming at each of cuts from the read before; and, from each of cuts,
// resumes from that read's checkpoint (kept on disk and loaded
// back, as a later hook does) after more was appended: once when the rest
// is half there (the cut of the second read falls anywhere, mid-record
// too), and again when the file is whole. The facts of each resumed read
// must equal those of one whole read of the same bytes.
func ResumedEqualsWhole(t *testing.T, name string, data []byte, cuts []int, read Reader) {
	t.Helper()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	wholeOf := func(n int) *handoff.Facts {
		t.Helper()
		p := filepath.Join(dir, "whole.jsonl")
		os.Remove(p)
		grow(t, p, data, n)
		f, _, err := read([]string{p}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	want := wholeOf(len(data))
	if want.Records == 0 {
		t.Fatalf("%s: no record read", name)
	}
	if testkit.Short() {
		cuts = every(cuts, 5)
	}
	// One session read by a hook at every cut in turn, each resuming from
	// the last: at each, the facts of a whole read of what is there.
	path := filepath.Join(dir, "steps.jsonl")
	var cp *transcript.Checkpoint
	for _, cut := range append(cuts, len(data)) {
		grow(t, path, data, cut)
		got, next, err := read([]string{path}, cp)
		if err != nil {
			t.Fatal(err)
		}
		if w := wholeOf(cut); !reflect.DeepEqual(got, w) {
			t.Fatalf("%s: read step by step to %d of %d: differs from one whole read:\n%s", name, cut, len(data), diff(got, w))
		}
		cp = kept(t, state, name, next)
	}
	// From each cut, in two long strides.
	for k, cut := range cuts {
		path := filepath.Join(dir, "s.jsonl")
		os.Remove(path)
		grow(t, path, data, cut)
		_, cp, err := read([]string{path}, nil)
		if err != nil {
			t.Fatal(err)
		}
		session := name + "-" + itoa(k)
		cp = kept(t, state, session, cp)
		// Half of the rest appended: the second read stops anywhere.
		mid := cut + (len(data)-cut)/2
		grow(t, path, data, mid)
		got, next, err := read([]string{path}, cp)
		if err != nil {
			t.Fatal(err)
		}
		if w := wholeOf(mid); !reflect.DeepEqual(got, w) {
			t.Fatalf("%s: read to %d, resumed to %d of %d: differs from one whole read:\n%s", name, cut, mid, len(data), diff(got, w))
		}
		cp = kept(t, state, session, next)
		grow(t, path, data, len(data))
		got, _, err = read([]string{path}, cp)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: read to %d, then %d, resumed to the end (%d): differs from one whole read:\n%s", name, cut, mid, len(data), diff(got, want))
		}
	}
}

// kept saves cp for session in dir, as a hook does, and loads it back, as
// the next hook does (never nil: a checkpoint lost would make the next
// read a whole one, and the test vacuous).
func kept(t testing.TB, dir, session string, cp *transcript.Checkpoint) *transcript.Checkpoint {
	t.Helper()
	if cp == nil {
		t.Fatal("no checkpoint")
	}
	if err := transcript.SaveCheckpoint(dir, filepath.Dir(dir), session, cp); err != nil {
		t.Fatal(err)
	}
	back := transcript.LoadCheckpoint(dir, filepath.Dir(dir), session)
	if back == nil {
		t.Fatalf("the checkpoint of %s was not loaded back", session)
	}
	return back
}

// RewrittenReadWhole reads a, then finds in its place (same inode) a
// shorter, a longer, an equally long other file, or an empty one, and
// then a new file (new inode) holding a and more: each read from a's
// checkpoint must give the facts of a whole read of what is there now.
// b is another session's transcript.
func RewrittenReadWhole(t *testing.T, a, b []byte, read Reader) {
	t.Helper()
	same := append([]byte(nil), a...)
	copy(same, b[:min(len(b), len(a), 200)]) // other first bytes, same length
	cases := []struct {
		name string
		next []byte
	}{
		{"truncated mid-record", a[:len(a)/2]},
		{"truncated to its first line", a[:indexNL(a)+1]},
		{"rewritten, longer", append(append([]byte(nil), b...), a...)},
		{"rewritten, same size, other start", same},
		{"emptied", nil},
	}
	for _, c := range cases {
		dir := t.TempDir()
		path := filepath.Join(dir, "s.jsonl")
		if err := os.WriteFile(path, a, 0o644); err != nil {
			t.Fatal(err)
		}
		_, cp, err := read([]string{path}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Rewritten in place: the same inode.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(c.next)
		f.Close()
		got, _, err := read([]string{path}, cp)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := read([]string{path}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: not read whole:\n%s", c.name, diff(got, want))
		}
	}
	// Replaced by another file (a new inode) holding a, then a again.
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	os.WriteFile(path, a, 0o644)
	_, cp, err := read([]string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	os.WriteFile(path, append(append([]byte(nil), a...), a...), 0o644)
	got, _, err := read([]string{path}, cp)
	if err != nil {
		t.Fatal(err)
	}
	if want, _, _ := read([]string{path}, nil); !reflect.DeepEqual(got, want) {
		t.Errorf("replaced by a new file: not read whole:\n%s", diff(got, want))
	}
}

func indexNL(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return len(b) - 1
}

func every(cuts []int, n int) []int {
	var out []int
	for i, c := range cuts {
		if i%n == 0 {
			out = append(out, c)
		}
	}
	return out
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// diff shows two facts as JSON.
func diff(got, want *handoff.Facts) string {
	g, _ := json.MarshalIndent(got, "", "  ")
	w, _ := json.MarshalIndent(want, "", "  ")
	return " got " + string(g) + "\nwant " + string(w)
}
