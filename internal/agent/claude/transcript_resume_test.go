package claude

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/internal/transcript"
)

// session is a recorded transcript and its subagents' files, by path
// relative to the transcript's directory.
type session map[string][]byte

func loadSession(t testing.TB, name string) session {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "testdata", "transcripts")
	s := session{}
	for _, p := range TranscriptFiles(filepath.Join(dir, name)) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		s[rel] = data
	}
	return s
}

// write writes each file of s cut to frac of its length (cut may fall
// inside a line, as when the client is writing it).
func (s session) write(t testing.TB, dir string, cut func(name string, data []byte) []byte) {
	t.Helper()
	for name, data := range s {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		// Append, as the client does: the file stays the same file.
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt(cut(name, data), 0); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
}

var recordings = []struct{ name, root string }{
	{"tools-and-compact.jsonl", "/tmp/rec1/proj"},
	{"multiline-prompt.jsonl", "/tmp/rec2/proj"},
	{"demo.jsonl", "/tmp/rec3/shop"},
	{"work-after-compact.jsonl", "/tmp/reader-e2e/c/proj"},
	{"subagent.jsonl", "/tmp/reader-e2e/proj"},
	{"agent-progress.jsonl", "/home/dev/shop"},
}

// TestResumedReadEqualsWholeRead: a hook that reads a transcript, then a
// later one that resumes from its checkpoint once more was appended, gives
// the facts a single read of the whole files gives; at every cut point,
// line boundaries and mid-line alike, with the checkpoint saved to disk
// and loaded back in between.
func TestResumedReadEqualsWholeRead(t *testing.T) {
	red := func(s string) string { return s } // the redaction path, idempotent
	for _, rec := range recordings {
		s := loadSession(t, rec.name)
		main := s[rec.name]
		whole := func(dir string) *handoff.Facts {
			f, _, err := readTranscriptFrom(filepath.Join(dir, rec.name), rec.root, red, nil, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
		ref := t.TempDir()
		s.write(t, ref, func(_ string, d []byte) []byte { return d })
		want := whole(ref)
		if want.Records == 0 {
			t.Fatalf("%s: nothing read", rec.name)
		}
		var cuts []int
		for i := 0; i < len(main); i++ {
			if main[i] == '\n' {
				cuts = append(cuts, i+1, i+1-min(i, 37)) // after a line, and inside it
			}
		}
		state := t.TempDir()
		for k, cut := range cuts {
			if testkit.Short() && k%5 != 0 {
				continue
			}
			dir := t.TempDir()
			frac := float64(cut) / float64(len(main))
			s.write(t, dir, func(name string, d []byte) []byte {
				if name == rec.name {
					return d[:cut]
				}
				return d[:int(frac*float64(len(d)))]
			})
			path := filepath.Join(dir, rec.name)
			_, cp, err := readTranscriptFrom(path, rec.root, red, nil, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if err := transcript.SaveCheckpoint(state, state, path, cp); err != nil {
				t.Fatal(err)
			}
			s.write(t, dir, func(_ string, d []byte) []byte { return d })
			got, _, err := readTranscriptFrom(path, rec.root, red, transcript.LoadCheckpoint(state, state, path), time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s cut at %d of %d: resumed read differs from a whole one:\n got %+v\nwant %+v", rec.name, cut, len(main), got, want)
			}
		}
	}
}

// TestRewrittenTranscriptReadWhole: a transcript truncated or rewritten
// since the checkpoint is read whole, never resumed in the middle of
// another file.
func TestRewrittenTranscriptReadWhole(t *testing.T) {
	a := loadSession(t, "tools-and-compact.jsonl")["tools-and-compact.jsonl"]
	b := loadSession(t, "demo.jsonl")["demo.jsonl"]
	for name, next := range map[string][]byte{
		"truncated":            a[:len(a)/2],
		"rewritten, longer":    append(append([]byte{}, b...), b...),
		"rewritten, same size": append(bytes.Repeat([]byte("\n"), 10), a[10:]...),
		"emptied":              nil,
	} {
		// Rewritten in place: same inode.
		got, path := resumed(t, "/tmp/rec1/proj", a, next, os.O_TRUNC)
		want, _, _ := readTranscriptFrom(path, "/tmp/rec1/proj", nil, nil, time.Time{})
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: not read whole:\n got %+v\nwant %+v", name, got, want)
		}
	}
	// Replaced by another file (a new inode) of the same content and more.
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	os.WriteFile(path, a, 0o644)
	_, cp, _ := readTranscriptFrom(path, "/tmp/rec1/proj", nil, nil, time.Time{})
	os.Remove(path)
	os.WriteFile(path, append(append([]byte{}, a...), a...), 0o644)
	got, _, _ := readTranscriptFrom(path, "/tmp/rec1/proj", nil, cp, time.Time{})
	if want, _, _ := readTranscriptFrom(path, "/tmp/rec1/proj", nil, nil, time.Time{}); !reflect.DeepEqual(got, want) {
		t.Errorf("replaced: not read whole:\n got %+v\nwant %+v", got, want)
	}
}

// TestDeadline: a read that runs out of time says so (Partial) and keeps
// where it stopped; the next read goes on from there to the same facts as
// one whole read.
func TestDeadline(t *testing.T) {
	data := loadSession(t, "work-after-compact.jsonl")["work-after-compact.jsonl"]
	path := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(path, data, 0o644)
	f, cp, err := readTranscriptFrom(path, "/tmp/reader-e2e/c/proj", nil, nil, time.Now().Add(-time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if !f.Partial || f.Bytes >= int64(len(data)) || cp.Files[0].Offset != f.Bytes {
		t.Fatalf("partial %v, %d of %d bytes, checkpoint at %d", f.Partial, f.Bytes, len(data), cp.Files[0].Offset)
	}
	got, _, err := readTranscriptFrom(path, "/tmp/reader-e2e/c/proj", nil, cp, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := readTranscriptFrom(path, "/tmp/reader-e2e/c/proj", nil, nil, time.Time{})
	if got.Partial || !reflect.DeepEqual(got, want) {
		t.Errorf("resumed after the deadline:\n got %+v\nwant %+v", got, want)
	}
}

// TestCheckpointRedacted: the decoder's state kept in local state holds
// the redacted texts only.
func TestCheckpointRedacted(t *testing.T) {
	const secret = "ghp_SECRETxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	red := func(s string) string {
		return string(bytes.ReplaceAll([]byte(s), []byte(secret), []byte("[REDACTED]")))
	}
	lines := []string{
		prompt("use " + secret + " please"),
		toolUse("b", "Bash", `{"command":"curl -H 'Authorization: `+secret+`' x"}`),
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"the token ` + secret + ` works"}]}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"z","name":"Bash","input":{"command":"echo ` + secret + ` > f"}}]}}`,
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(path, []byte(joinLines(lines)), 0o644)
	_, cp, err := readTranscriptFrom(path, "", red, nil, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(cp.State, []byte("SECRET")) || !bytes.Contains(cp.State, []byte("[REDACTED]")) {
		t.Errorf("checkpoint state holds the secret or no marker:\n%s", cp.State)
	}
}

func joinLines(lines []string) string {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// resumed writes first to a new transcript and reads it for a checkpoint,
// then writes then to the same file opened with flag (os.O_APPEND: the
// session goes on; os.O_TRUNC: it is rewritten in place) and reads it again
// from the checkpoint.
func resumed(t testing.TB, root string, first, then []byte, flag int) (got *handoff.Facts, path string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, first, 0o644); err != nil {
		t.Fatal(err)
	}
	_, cp, err := readTranscriptFrom(path, root, nil, nil, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|flag, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, werr := f.Write(then)
	if err := errors.Join(werr, f.Close()); err != nil {
		t.Fatal(err)
	}
	got, _, err = readTranscriptFrom(path, root, nil, cp, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return got, path
}
