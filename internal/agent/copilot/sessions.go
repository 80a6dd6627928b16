package copilot

import (
	"os"
	"path/filepath"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/transcript"
)

var _ agent.SessionLister = Host{}

// Sessions are the session-state/<id>/events.jsonl files whose
// session.start record says the session ran in one of dirs.
func (h Host) Sessions(getenv func(string) string, dirs []string) []agent.Found {
	root := h.TranscriptDir(getenv, "")
	if root == "" {
		return nil
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var found []agent.Found
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		path := filepath.Join(root, e.Name(), "events.jsonl")
		cwd := transcript.HeadValue(path, func(rec []byte) string {
			r := gjson.ParseBytes(rec)
			if r.Get("type").String() != "session.start" {
				return ""
			}
			return r.Get("data.context.cwd").String()
		})
		if transcript.Within(cwd, dirs) {
			found = append(found, agent.Found{Session: e.Name(), Path: path})
		}
	}
	return found
}
