package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalCommand: eval's help says how each score is computed; --splits
// without a folder is a usage error; a folder with no transcript an agent
// recognises gives an empty report, as JSON too; a folder that is not one
// is an error that names it.
func TestEvalCommand(t *testing.T) {
	var out, errw bytes.Buffer
	if code := run([]string{"eval", "--help"}, strings.NewReader(""), &out, &errw); code != 0 {
		t.Fatalf("eval --help: exit %d: %s", code, errw.String())
	}
	for _, w := range []string{"edited", "read-only", "uncommitted", "open errors", "last check", "task", "plan", "tokens", "--splits", "--transcripts"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("eval --help does not explain %q", w)
		}
	}
	out.Reset()
	errw.Reset()
	if code := run([]string{"eval", "--splits", "x.tsv"}, strings.NewReader(""), &out, &errw); code != 2 || !strings.Contains(errw.String(), "--transcripts") {
		t.Errorf("eval --splits alone: exit %d, stderr %q", code, errw.String())
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.json"), []byte(`{"not":"a transcript"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errw.Reset()
	if code := run([]string{"eval", "--transcripts", dir, "--json"}, strings.NewReader(""), &out, &errw); code != 0 {
		t.Fatalf("eval --json: exit %d: %s", code, errw.String())
	}
	var rep struct {
		Transcripts, Splits int
		Agents              []any
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Transcripts != 0 || rep.Splits != 0 || len(rep.Agents) != 0 {
		t.Errorf("eval --json = %s (%v), want an empty report", out.String(), err)
	}
	out.Reset()
	errw.Reset()
	missing := filepath.Join(dir, "nosuch")
	if code := run([]string{"eval", "--transcripts", missing}, strings.NewReader(""), &out, &errw); code != 1 || !strings.Contains(errw.String(), missing) {
		t.Errorf("eval of a missing folder: exit %d, stderr %q", code, errw.String())
	}
}
