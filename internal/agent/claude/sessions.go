package claude

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/transcript"
)

var _ agent.SessionLister = Host{}

// Sessions are the transcripts in the projects folder of sessions whose
// records say they ran in one of dirs: the folder is named after the
// directory a session started in, and a name also starts like a sibling's
// (/src/app and /src/app-old), so the records' cwd decides.
func (h Host) Sessions(getenv func(string) string, dirs []string) []agent.Found {
	var found []agent.Found
	seen := map[string]bool{}
	for _, dir := range dirs {
		roots := append([]string{h.TranscriptDir(getenv, dir)}, h.TranscriptRoots(getenv, dir)...)
		for _, root := range roots {
			if root == "" || seen[root] {
				continue
			}
			seen[root] = true
			ents, err := os.ReadDir(root)
			if err != nil {
				continue
			}
			for _, e := range ents {
				name := e.Name()
				if !e.Type().IsRegular() || !strings.HasSuffix(name, ".jsonl") {
					continue
				}
				path := filepath.Join(root, name)
				if transcript.Within(transcript.HeadValue(path, cwdOf), dirs) {
					found = append(found, agent.Found{Session: strings.TrimSuffix(name, ".jsonl"), Path: path})
				}
			}
		}
	}
	return found
}

// cwdOf is the directory a record says the session ran in.
func cwdOf(rec []byte) string { return gjson.GetBytes(rec, "cwd").String() }
