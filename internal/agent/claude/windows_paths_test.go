//go:build windows

package claude

import (
	"reflect"
	"strings"
	"testing"
)

// TestWindowsPaths: on Windows, a payload's paths and a transcript's tool
// paths come with a drive letter and backslashes (Claude Code runs there
// natively, its hooks through Git Bash): the payload keeps them as they
// are, and files inside the project are listed relative to it, with
// forward slashes (a handoff reads the same whichever system wrote it),
// whatever the drive letter's case; a path on another drive is listed
// apart, whole.
func TestWindowsPaths(t *testing.T) {
	p, err := decodePayload([]byte(`{"hook_event_name":"SessionStart","session_id":"s","source":"startup",` +
		`"cwd":"C:\\Users\\dev\\proj","transcript_path":"C:\\Users\\dev\\.claude\\projects\\C--Users-dev-proj\\s.jsonl"}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Cwd != `C:\Users\dev\proj` || p.TranscriptPath != `C:\Users\dev\.claude\projects\C--Users-dev-proj\s.jsonl` {
		t.Errorf("payload paths: cwd %q, transcript %q", p.Cwd, p.TranscriptPath)
	}
	f, err := readTranscript(strings.NewReader(strings.Join([]string{
		toolUse("t1", "Write", `{"file_path":"C:\\Users\\dev\\proj\\src\\a.go","content":"x"}`),
		result("t1", "ok"),
		toolUse("t2", "Edit", `{"file_path":"c:/Users/dev/proj/docs/b.md","old_string":"a","new_string":"b"}`),
		result("t2", "ok"),
		toolUse("t3", "Write", `{"file_path":"D:\\elsewhere\\c.txt","content":"x"}`),
		result("t3", "ok"),
	}, "\n")+"\n"), `C:\Users\dev\proj`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"src/a.go", "docs/b.md"}; !reflect.DeepEqual(f.Files, want) {
		t.Errorf("files = %q, want %q", f.Files, want)
	}
	if want := []string{"D:/elsewhere/c.txt"}; !reflect.DeepEqual(f.Outside, want) {
		t.Errorf("outside = %q, want %q", f.Outside, want)
	}
}
