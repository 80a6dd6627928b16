package core

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/agent/codex"
	"github.com/continuity-md/continuity/internal/agent/copilot"
	"github.com/continuity-md/continuity/internal/agent/droid"
	"github.com/continuity-md/continuity/internal/agent/gemini"
)

// TestLatestTranscriptEveryAgent: without --transcript, a handoff finds
// the newest session of this project in the tree where each agent keeps
// every project's sessions (Codex, Copilot, Droid; Gemini CLI's tmp
// when its registry does not name the project), never a newer one of
// another project, nor a file of the agent's that is no session.
func TestLatestTranscriptEveryAgent(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, "src", "proj")
	other := filepath.Join(home, "src", "proj-two")
	q := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) } // as the agents write it
	sum := sha256.Sum256([]byte(root))
	hash := hex.EncodeToString(sum[:])
	old := time.Now().Add(-time.Hour)
	write := func(path, text string, t time.Time) string {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			panic(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			panic(err)
		}
		if err := os.Chtimes(path, t, t); err != nil {
			panic(err)
		}
		return path
	}
	env := map[string]string{"HOME": home, "CODEX_HOME": filepath.Join(home, ".codex"), "COPILOT_HOME": filepath.Join(home, ".copilot")}
	getenv := func(k string) string { return env[k] }
	cases := []struct {
		host        agent.Host
		want, other string
	}{{
		codex.Host{},
		write(filepath.Join(home, ".codex", "sessions", "2026", "11", "27", "rollout-a.jsonl"), `{"type":"session_meta","payload":{"id":"a","cwd":"`+q(root)+`"}}`+"\n", old),
		write(filepath.Join(home, ".codex", "sessions", "2026", "11", "28", "rollout-b.jsonl"), `{"type":"session_meta","payload":{"id":"b","cwd":"`+q(other)+`"}}`+"\n", time.Now()),
	}, {
		copilot.Host{},
		write(filepath.Join(home, ".copilot", "session-state", "s1", "events.jsonl"), `{"type":"session.start","data":{"context":{"cwd":"`+q(filepath.Join(root, "web"))+`"}}}`+"\n", old),
		write(filepath.Join(home, ".copilot", "session-state", "s2", "events.jsonl"), `{"type":"session.start","data":{"context":{"cwd":"`+q(other)+`"}}}`+"\n", time.Now()),
	}, {
		droid.Host{},
		write(filepath.Join(home, ".factory", "sessions", "-src-proj", "d1.jsonl"), `{"type":"session_start","id":"d1","version":2,"cwd":"`+q(root)+`"}`+"\n", old),
		write(filepath.Join(home, ".factory", "sessions", "-src-proj-two", "d2.jsonl"), `{"type":"session_start","id":"d2","version":2,"cwd":"`+q(other)+`"}`+"\n", time.Now()),
	}, {
		gemini.Host{},
		write(filepath.Join(home, ".gemini", "tmp", hash, "chats", "session-2026-11-27T10-00-a1.json"), "{\n  \"sessionId\": \"a1\",\n  \"projectHash\": \""+hash+"\",\n  \"messages\": []\n}\n", old),
		write(filepath.Join(home, ".gemini", "tmp", "logs.json"), `[{"sessionId":"x","message":"hi"}]`, time.Now()),
	}}
	for _, c := range cases {
		e := Env{Host: agent.Serve(c.host), Getenv: getenv}
		if got := LatestTranscript(e, root); got != c.want {
			t.Errorf("%s: LatestTranscript = %q, want %q (not %q)", c.host.Name(), got, c.want, c.other)
		}
	}
}
