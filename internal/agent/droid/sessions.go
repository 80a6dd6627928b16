package droid

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/transcript"
)

var _ agent.SessionLister = Host{}

// Sessions are the ~/.factory/sessions/<folder>/<id>.jsonl files whose
// session_start record says the session ran in one of dirs.
func (h Host) Sessions(getenv func(string) string, dirs []string) []agent.Found {
	root := h.TranscriptDir(getenv, "")
	if root == "" {
		return nil
	}
	folders, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var found []agent.Found
	for _, f := range folders {
		if !f.IsDir() {
			continue
		}
		ents, err := os.ReadDir(filepath.Join(root, f.Name()))
		if err != nil {
			continue
		}
		for _, e := range ents {
			name := e.Name()
			if !e.Type().IsRegular() || !strings.HasSuffix(name, ".jsonl") {
				continue
			}
			path := filepath.Join(root, f.Name(), name)
			cwd := transcript.HeadValue(path, func(rec []byte) string {
				r := gjson.ParseBytes(rec)
				if r.Get("type").String() != "session_start" {
					return ""
				}
				return r.Get("cwd").String()
			})
			if transcript.Within(cwd, dirs) {
				found = append(found, agent.Found{Session: strings.TrimSuffix(name, ".jsonl"), Path: path})
			}
		}
	}
	return found
}
