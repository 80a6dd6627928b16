package project

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/safefile"
)

// TestParsedRemembers: a file's parse is remembered for that version of
// the file and used instead of parsing again; any other version (written
// in place, replaced, grown), another binary, or a memo that does not
// decode is parsed again. A slot that is not a plain name is never kept.
func TestParsedRemembers(t *testing.T) {
	p, _ := stateProject(t)
	later := func() time.Time { return time.Now().Add(time.Hour) }
	memoNow = later
	t.Cleanup(func() { memoNow = time.Now })
	path := filepath.Join(p.Root, "notes.txt")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	parses := 0
	parse := func(src []byte) (string, error) {
		parses++
		if strings.HasPrefix(string(src), "bad") {
			return "", errors.New("bad input")
		}
		return strings.ToUpper(string(src)), nil
	}
	get := func(slot, want string, wantParses int) {
		t.Helper()
		got, err := Parsed(p, slot, path, parse, strCodec)
		if err != nil || got != want || parses != wantParses {
			t.Fatalf("Parsed = %q, %v after %d parses; want %q after %d", got, err, parses, want, wantParses)
		}
		// The memo made now is trusted once it is older than the
		// racy window after the file's change, as a later start's is.
		if m := filepath.Join(p.StateDir, "parsed", slot); fileExists(m) {
			os.Chtimes(m, later(), later())
		}
	}
	write("alpha")
	get("n", "ALPHA", 1)
	get("n", "ALPHA", 1) // remembered
	// Forged: the memo is what is used while the file is that version.
	memoFile := filepath.Join(p.StateDir, "parsed", "n")
	b, err := os.ReadFile(memoFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(memoFile, []byte(strings.Replace(string(b), "ALPHA", "FORGE", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(memoFile, later(), later())
	get("n", "FORGE", 1)
	// Written in place, same size: a new change time (one tick later).
	time.Sleep(20 * time.Millisecond)
	write("gamma")
	get("n", "GAMMA", 2)
	get("n", "GAMMA", 2)
	// Replaced by another file (a new inode), as editors save.
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte("delta"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	get("n", "DELTA", 3)
	// A memo that does not decode is parsed again (and rewritten).
	if err := os.WriteFile(memoFile, []byte("continuity parsed 1 and nothing more"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(memoFile, later(), later())
	get("n", "DELTA", 4)
	get("n", "DELTA", 4)
	// Another binary parses again.
	was := binaryVersion
	binaryVersion = func() safefile.Version { v := was(); v.Mod++; return v }
	get("n", "DELTA", 5)
	binaryVersion = was
	// A parse error is returned and nothing is remembered for it.
	time.Sleep(20 * time.Millisecond)
	write("bad one")
	for i := 6; i <= 7; i++ {
		if _, err := Parsed(p, "n", path, parse, strCodec); err == nil || parses != i {
			t.Fatalf("a bad file: %v after %d parses", err, parses)
		}
	}
	// A slot that is not a plain name: parsed every time, nothing kept.
	write("omega")
	get("../x", "OMEGA", 8)
	get("../x", "OMEGA", 9)
	if _, err := os.Stat(filepath.Join(p.StateDir, "x.json")); err == nil {
		t.Error("a memo was written outside its directory")
	}
	// A missing file is the read's error.
	if _, err := Parsed(p, "gone", filepath.Join(p.Root, "gone.txt"), parse, strCodec); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// strCodec keeps a string.
var strCodec = Codec[string]{Encode: func(e *Enc, s string) { e.Str(s) }, Decode: func(d *Dec) string { return d.Str() }}

// TestCodecRoundTrip: what an Enc writes a Dec reads back, nil lists
// apart from empty ones, times with their zone; a cut or lengthened
// encoding is not OK.
func TestCodecRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 22, 13, 5, 9, 120, time.FixedZone("", 2*3600))
	e := &Enc{}
	e.Str("a\x00b\nc")
	e.Int(-7)
	e.Strs(nil)
	e.Strs([]string{})
	e.Strs([]string{"x", "", "yz"})
	e.Time(time.Time{})
	e.Time(at)
	e.Time(at.UTC())
	read := func(b []byte) (*Dec, []any) {
		d := &Dec{b: b}
		return d, []any{d.Str(), d.Int(), d.Strs(), d.Strs(), d.Strs(), d.Time(), d.Time(), d.Time()}
	}
	d, got := read(e.b)
	want := []any{"a\x00b\nc", int64(-7), []string(nil), []string{}, []string{"x", "", "yz"}, time.Time{}, at, at.UTC()}
	if !d.OK() || !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %#v (ok %v), want %#v", got, d.OK(), want)
	}
	for cut := 0; cut < len(e.b); cut++ {
		if d, _ := read(e.b[:cut]); d.OK() {
			t.Errorf("cut at %d of %d: OK", cut, len(e.b))
		}
	}
	if d, _ := read(append(e.b, 0)); d.OK() {
		t.Error("a byte too many: OK")
	}
	// A count the bytes left cannot hold is refused, not allocated.
	for _, n := range []int64{1 << 40, 5, -2} {
		e := &Enc{}
		e.Int(n)
		e.Str("ab")
		d := NewDec(e.Bytes())
		if c := d.Count(3); c != -1 || d.OK() {
			t.Errorf("count %d over 3 bytes: %d, OK %v", n, c, d.OK())
		}
	}
	e = &Enc{}
	e.Int(1)
	e.Str("ab")
	if d := NewDec(e.Bytes()); d.Count(3) != 1 {
		t.Error("a count the bytes hold is refused")
	}
}

// TestParsedRacy: a file changed within the racy window of the parse is
// not remembered, and a memo made within that window of the change (by
// the file system's clock) is not trusted: two writes within one tick of a
// coarse clock could leave the version as it was.
func TestParsedRacy(t *testing.T) {
	p, _ := stateProject(t)
	path := filepath.Join(p.Root, "fresh.txt")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	parses := 0
	parse := func(src []byte) (string, error) { parses++; return string(src), nil }
	for range 2 {
		if _, err := Parsed(p, "fresh", path, parse, strCodec); err != nil {
			t.Fatal(err)
		}
	}
	if parses != 2 {
		t.Errorf("%d parses of a file just written, want 2 (not remembered)", parses)
	}
	if _, err := os.Stat(filepath.Join(p.StateDir, "parsed", "fresh")); err == nil {
		t.Error("a memo was kept for a file just written")
	}
	// A memo written (on a local clock ahead of the file system's, say)
	// right after the change is not trusted: parsed again.
	memoNow = func() time.Time { return time.Now().Add(time.Hour) }
	t.Cleanup(func() { memoNow = time.Now })
	if _, err := Parsed(p, "fresh", path, parse, strCodec); err != nil || parses != 3 {
		t.Fatalf("%d parses, %v", parses, err)
	}
	if !fileExists(filepath.Join(p.StateDir, "parsed", "fresh")) {
		t.Fatal("no memo written")
	}
	if _, err := Parsed(p, "fresh", path, parse, strCodec); err != nil || parses != 4 {
		t.Errorf("a memo made within the racy window of the change was used (%d parses, %v)", parses, err)
	}
}

// TestParsedMemoNotRegular: a memo that is not a regular file (a FIFO, a
// symlink out of local state) is never read: the file is parsed, at once.
func TestParsedMemoNotRegular(t *testing.T) {
	p, _ := stateProject(t)
	memoNow = func() time.Time { return time.Now().Add(time.Hour) }
	t.Cleanup(func() { memoNow = time.Now })
	path := filepath.Join(p.Root, "notes.txt")
	if err := os.WriteFile(path, []byte("alpha"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(p.StateDir, "parsed")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(dir, "fifo")); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "memo")
	if err := os.WriteFile(outside, []byte("continuity parsed 1"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, slot := range []string{"fifo", "link"} {
		done := make(chan string, 1)
		go func() {
			got, err := Parsed(p, slot, path, func(src []byte) (string, error) { return strings.ToUpper(string(src)), nil }, strCodec)
			if err != nil {
				got = err.Error()
			}
			done <- got
		}()
		select {
		case got := <-done:
			if got != "ALPHA" {
				t.Errorf("%s: %q", slot, got)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the memo's read hangs", slot)
		}
	}
}
