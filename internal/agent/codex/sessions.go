package codex

import (
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/transcript"
)

var _ agent.SessionLister = Host{}

// Sessions are the rollouts under CODEX_HOME/sessions whose session_meta
// record says the session ran in one of dirs: Codex keeps every
// project's sessions together, by date.
func (h Host) Sessions(getenv func(string) string, dirs []string) []agent.Found {
	root := h.TranscriptDir(getenv, "")
	if root == "" {
		return nil
	}
	var found []agent.Found
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if !d.Type().IsRegular() || !strings.HasPrefix(name, "rollout-") || !strings.HasSuffix(name, ".jsonl") {
			return nil
		}
		var id string
		cwd := transcript.HeadValue(path, func(rec []byte) string {
			r := gjson.ParseBytes(rec)
			if r.Get("type").String() != "session_meta" {
				return ""
			}
			id = r.Get("payload.id").String()
			return r.Get("payload.cwd").String()
		})
		if id != "" && transcript.Within(cwd, dirs) {
			found = append(found, agent.Found{Session: id, Path: path})
		}
		return nil
	})
	return found
}
