package gemini

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

// resumeReader reads chat files with a fresh decoder for root, as a hook does.
func resumeReader(root string) transcripttest.Reader {
	return transcripttest.DecoderReader(func() transcript.Decoder { return Host{}.NewDecoder(root, upper) })
}

// TestResumedReadEqualsWholeRead: a hook that resumes from an earlier
// hook's checkpoint gets the facts one whole read of the chat file gets,
// cut anywhere: between records, inside one, between a model record and
// the same record written again as its calls complete, around the $set
// that restates the history after a compression, across the header a
// resume writes.
func TestResumedReadEqualsWholeRead(t *testing.T) {
	for _, c := range []struct{ name, root string }{
		{toolsChat, recRoot},
		{sampleChat, "/home/dev/sandbox/proj"},
	} {
		data := readChat(t, c.name)
		for _, must := range []string{`{"$set":{"messages"`, `<state_snapshot>`, `"toolCalls"`, `{"sessionId"`} {
			if !bytes.Contains(data, []byte(must)) {
				t.Fatalf("%s: no %s to cut around", c.name, must)
			}
		}
		transcripttest.ResumedEqualsWhole(t, c.name, data, transcripttest.Cuts(data), resumeReader(c.root))
	}
	// What the recordings do not show: a model record written again whole
	// once more of its calls completed (each call counted once), and a
	// prompt written again with its id (read once).
	call := `{"id":"c1","name":"write_file","args":{"file_path":"/r/a.go"},"status":"error","result":[{"functionResponse":{"response":{"error":"disk full"}}}]}`
	data := []byte(strings.Join([]string{
		`{"id":"u1","type":"user","content":[{"text":"fix it"}]}`,
		`{"id":"g1","type":"gemini","content":"","model":"m","toolCalls":[` + call + `]}`,
		`{"id":"g1","type":"gemini","content":"","model":"m","toolCalls":[` + call + `,{"id":"c2","name":"replace","args":{"file_path":"/r/b.go"},"status":"success"}]}`,
		`{"id":"u1","type":"user","content":[{"text":"fix it"}]}`,
		`{"id":"g1","type":"gemini","content":"done","model":"m","toolCalls":[` + call + `,{"id":"c2","name":"replace","args":{"file_path":"/r/b.go"},"status":"success"}]}`,
	}, "\n") + "\n")
	transcripttest.ResumedEqualsWhole(t, "records written again", data, transcripttest.Cuts(data), resumeReader("/r"))
}

// TestRewrittenChatReadWhole: a chat file truncated or rewritten since the
// checkpoint is read whole, not resumed in the middle of another file.
func TestRewrittenChatReadWhole(t *testing.T) {
	transcripttest.RewrittenReadWhole(t, readChat(t, toolsChat), readChat(t, sampleChat), resumeReader(recRoot))
}

// TestCheckpointRedacted: the decoder's state, which the checkpoint keeps
// in local state, holds redacted texts only, at every point of a session.
func TestCheckpointRedacted(t *testing.T) {
	const secret = "ghp_SECRETxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	red := func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }
	chat := []string{
		`{"id":"u1","type":"user","content":[{"text":"use ` + secret + ` please"}]}`,
		`{"id":"g1","type":"gemini","content":"the token ` + secret + ` works","toolCalls":[` +
			`{"id":"c1","name":"run_shell_command","args":{"command":"echo ` + secret + ` | login"},"result":[{"functionResponse":{"response":{"output":"Output: bad ` + secret + `\nExit Code: 2\n"}}}],"status":"success"}]}`,
		`{"$set":{"messages":[{"id":"s","type":"user","content":[{"text":"<state_snapshot>the key is ` + secret + `</state_snapshot>"}]}]}}`,
	}
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	for n := 1; n <= len(chat); n++ {
		if err := os.WriteFile(path, []byte(strings.Join(chat[:n], "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, cp, err := transcript.ReadFrom([]string{path}, Host{}.NewDecoder("/r", red), nil, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(cp.State, []byte("SECRET")) || !bytes.Contains(cp.State, []byte("[REDACTED]")) {
			t.Errorf("after %d records the state holds the secret or no marker:\n%s", n, cp.State)
		}
	}
}
