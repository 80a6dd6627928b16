package gemini

import (
	"bytes"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/continuity-md/continuity/internal/transcript"
)

// FuzzDecoder feeds arbitrary chat files to the decoder: it never panics,
// keeps its bounds and valid UTF-8, and a read split in two with the state
// passing through JSON gives what one read gives.
func FuzzDecoder(f *testing.F) {
	for _, name := range []string{toolsChat, sampleChat} {
		chat := readChat(f, name)
		f.Add(chat, uint16(len(chat)/2))
		for _, line := range bytes.Split(chat, []byte("\n")) {
			f.Add(line, uint16(0))
		}
	}
	f.Add([]byte(`{"id":"g","type":"gemini","content":"\xff","toolCalls":[{"id":"c","name":"replace","args":{"file_path":"../x"},"status":"success"}]}`), uint16(3))
	f.Fuzz(func(t *testing.T, chat []byte, cut uint16) {
		whole, err := transcript.Read(bytes.NewReader(chat), newDecoder(recRoot, nil))
		if err != nil {
			t.Fatal(err)
		}
		if len(whole.Files) > transcript.MaxFiles || len(whole.Commands) > transcript.MaxCommands || len(whole.Errors) > transcript.MaxErrors || len(whole.Prompts) > transcript.MaxPrompts {
			t.Fatalf("bounds: %d files %d commands %d errors %d prompts", len(whole.Files), len(whole.Commands), len(whole.Errors), len(whole.Prompts))
		}
		for _, s := range append(append(append([]string{whole.LastAssistant, whole.CompactSummary}, whole.Prompts...), whole.Errors...), whole.Commands...) {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 kept: %q", s)
			}
		}
		// Split at a line break at or after cut.
		at := min(int(cut), len(chat))
		if i := bytes.IndexByte(chat[at:], '\n'); i >= 0 {
			at += i + 1
		} else {
			at = len(chat)
		}
		got := readSplit(t, chat, at, nil)
		got.Lines, got.Bytes, got.SkippedLines = whole.Lines, whole.Bytes, whole.SkippedLines
		if !reflect.DeepEqual(got, whole) {
			t.Fatalf("split at %d:\n got %+v\nwant %+v", at, got, whole)
		}
	})
}
