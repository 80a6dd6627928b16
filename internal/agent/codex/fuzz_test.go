package codex

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/continuity-md/continuity/internal/transcript"
)

// FuzzReadRollout feeds the decoder records from the recorded rollout and
// the cases above, mutated: it must never panic or fail on in-memory
// input, must count every byte and line, must keep its lists bounded,
// must be deterministic, and its state must survive encoding/json.
func FuzzReadRollout(f *testing.F) {
	for _, line := range bytes.SplitAfter(rollout(f), []byte("\n")) {
		if len(line) < 4096 {
			f.Add(line)
		}
	}
	f.Add(join(patch("p", "*** Begin Patch\n*** Update File: a\n*** Move to: ../b\n*** End Patch\n"), patchOut("p", "Exit code: 0\nOutput:\nSuccess.")))
	f.Add(join(exec("c", "make"), execOut("c", 2, "x")))
	f.Add(join(rec("compacted", map[string]any{"message": compactPreamble + "\n<summary>s</summary>"})))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := newDecoder(root, nil)
		a, err := transcript.Read(bytes.NewReader(data), d)
		if err != nil {
			t.Fatal(err)
		}
		if a.Bytes != int64(len(data)) {
			t.Errorf("read %d of %d bytes", a.Bytes, len(data))
		}
		lines := bytes.Count(data, []byte("\n"))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			lines++
		}
		if a.Lines != lines {
			t.Errorf("counted %d lines, want %d", a.Lines, lines)
		}
		if len(a.Files) > transcript.MaxFiles || len(a.Commands) > transcript.MaxCommands || len(a.Errors) > transcript.MaxErrors || len(a.Prompts) > transcript.MaxPrompts {
			t.Errorf("lists over their bounds: %+v", a)
		}
		for _, p := range a.Files {
			if p == "" || p == "." {
				t.Errorf("empty file path in %q", a.Files)
			}
		}
		b, _ := transcript.Read(bytes.NewReader(data), newDecoder(root, nil))
		if !reflect.DeepEqual(a, b) {
			t.Error("two reads differ")
		}
		d2 := reloaded(t, d)
		if !reflect.DeepEqual(d.Facts(), d2.Facts()) {
			t.Errorf("state did not round-trip:\n%+v\n%+v", d.Facts(), d2.Facts())
		}
	})
}

// FuzzDecode: any payload decodes or is refused, never a panic.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"SessionStart-startup", "PreCompact", "Stop", "SessionEnd", "PostToolUse"} {
		f.Add(payload(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := Host{}.Decode(data)
		if err == nil && !json.Valid(data) {
			t.Errorf("accepted invalid JSON %q as %+v", data, ev)
		}
	})
}

// FuzzReadConfig: the config.toml reader never panics.
func FuzzReadConfig(f *testing.F) {
	f.Add([]byte("[projects.\"/a\"]\ntrust_level = \"trusted\"\n"))
	f.Add([]byte("projects = { \"/a\" = { trust_level = 'trusted' } }\nx = \"\"\"\n[y]\n\"\"\"\n"))
	f.Add([]byte("[hooks.state.\"k\\u00e9\"]\ntrusted_hash = \"\\U0001F600\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		readConfig(data)
	})
}
