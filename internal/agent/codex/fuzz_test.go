package codex

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/continuity-md/continuity/internal/transcript"
	"github.com/continuity-md/continuity/internal/transcript/transcripttest"
)

// FuzzReadRollout feeds the decoder records from the recorded rollout and
// the cases above, mutated: it must never panic or fail on in-memory
// input, must count every byte and line, must keep its lists bounded,
// must be deterministic, and its state must survive encoding/json.
func FuzzReadRollout(f *testing.F) {
	transcripttest.AddLines(f, rollout(f))
	f.Add(join(patch("p", "*** Begin Patch\n*** Update File: a\n*** Move to: ../b\n*** End Patch\n"), patchOut("p", "Exit code: 0\nOutput:\nSuccess.")))
	f.Add(join(exec("c", "make"), execOut("c", 2, "x")))
	f.Add(join(rec("compacted", map[string]any{"message": compactPreamble + "\n<summary>s</summary>"})))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := newDecoder(root, nil)
		a, err := transcript.Read(bytes.NewReader(data), d)
		if err != nil {
			t.Fatal(err)
		}
		transcripttest.CheckFacts(t, data, a)
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
