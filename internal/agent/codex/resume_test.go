package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/transcript"
	"github.com/continuity-md/continuity/internal/transcript/transcripttest"
)

// e2eRollout is /work/shared/e2e/samples/codex-rollout.jsonl, written by
// the real Codex 0.169.0 in /home/dev/sandbox/proj: a turn with an
// exec_command and an apply_patch, a compaction, a second turn.
const e2eRollout = "testdata/rollout-e2e.jsonl"

// resumeCases are the real rollouts and the roots they ran in.
var resumeCases = []struct{ name, path, root string }{
	{"recorded", filepath.Join(recorded, "rollout.jsonl"), root},
	{"e2e", e2eRollout, "/home/dev/sandbox/proj"},
}

// redactUpper stands in for the redactor: it changes every text it sees,
// so that a text kept unredacted in the state, or redacted twice
// differently, shows.
func redactUpper(s string) string { return strings.ToUpper(s) }

// TestResumedReadEqualsWholeRead: a hook that resumes from an earlier
// hook's checkpoint gets the facts one whole read of the rollout gets, cut
// anywhere: between records, inside one, between a tool call and its
// output, around the compacted record that restates the history.
func TestResumedReadEqualsWholeRead(t *testing.T) {
	for _, c := range resumeCases {
		data, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, must := range []string{`"type":"compacted"`, `"type":"function_call"`, `"type":"custom_tool_call"`} {
			if !bytes.Contains(data, []byte(must)) {
				t.Fatalf("%s: no %s record to cut around", c.name, must)
			}
		}
		read := transcripttest.DecoderReader(func() transcript.Decoder { return Host{}.NewDecoder(c.root, redactUpper) })
		transcripttest.ResumedEqualsWhole(t, c.name, data, transcripttest.Cuts(data), read)
	}
	// What the recordings do not show: a compaction after a real reply,
	// whose summary Codex first records as an assistant message (the
	// reply before it must come back), and a call whose output never came.
	reply := func(s string) string {
		return rec("response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": s}}})
	}
	data := join(
		rec("turn_context", map[string]any{"cwd": root, "model": "gpt-5.5"}),
		userMsg("fix the login", "user.text"),
		patch("p1", "*** Begin Patch\n*** Add File: api/login.go\n+package api\n*** End Patch\n"),
		reply("Refresh endpoint done."),
		reply("Summary: refresh done, logout next."),
		rec("compacted", map[string]any{"message": compactPreamble + " and produced a summary. Here is the summary:\nSummary: refresh done, logout next."}),
		exec("c1", "go test ./..."),
	)
	read := transcripttest.DecoderReader(func() transcript.Decoder { return Host{}.NewDecoder(root, redactUpper) })
	transcripttest.ResumedEqualsWhole(t, "compaction after a reply", data, transcripttest.Cuts(data), read)
}

// TestRewrittenRolloutReadWhole: a rollout truncated or rewritten since
// the checkpoint is read whole, not resumed in the middle of another file.
func TestRewrittenRolloutReadWhole(t *testing.T) {
	a, err := os.ReadFile(resumeCases[0].path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(e2eRollout)
	if err != nil {
		t.Fatal(err)
	}
	transcripttest.RewrittenReadWhole(t, a, b, transcripttest.DecoderReader(func() transcript.Decoder { return Host{}.NewDecoder(root, redactUpper) }))
}

// TestCheckpointRedacted: the decoder's state, which the checkpoint keeps
// in local state, holds redacted texts only, at every point of a session
// (the last reply included, and the one before it, which a compaction may
// bring back).
func TestCheckpointRedacted(t *testing.T) {
	const secret = "ghp_SECRETxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	red := func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }
	reply := func(s string) string {
		return rec("response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": s}}})
	}
	data := join(
		rec("turn_context", map[string]any{"cwd": root, "model": "gpt-5.5"}),
		userMsg("use "+secret+" please", "user.text"),
		exec("c1", "curl -H 'Authorization: "+secret+"' x"),
		reply("the token "+secret+" works"),
		reply("and "+secret+" again"),
	)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	for _, n := range []int{3, 4, 5, 6} {
		if err := os.WriteFile(path, lines(data, n), 0o644); err != nil {
			t.Fatal(err)
		}
		_, cp, err := transcript.ReadFrom([]string{path}, Host{}.NewDecoder(root, red), nil, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(cp.State, []byte("SECRET")) || !bytes.Contains(cp.State, []byte("[REDACTED]")) {
			t.Errorf("after %d records the state holds the secret or no marker:\n%s", n, cp.State)
		}
	}
}
