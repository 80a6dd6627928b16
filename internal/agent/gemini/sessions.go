package gemini

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/transcript"
)

var _ agent.SessionLister = Host{}

// Sessions are the chats in the folder Gemini CLI's project registry
// gives each of dirs (a directory it has no name for has no chats
// continuity can tell apart from another project's).
func (h Host) Sessions(getenv func(string) string, dirs []string) []agent.Found {
	store := Host{Getenv: getenv}.chatStore()
	var found []agent.Found
	seen := map[string]bool{}
	for _, dir := range dirs {
		chats := h.TranscriptDir(getenv, dir)
		if chats == "" || chats == store || seen[chats] {
			continue
		}
		seen[chats] = true
		ents, err := os.ReadDir(chats)
		if err != nil {
			continue
		}
		for _, e := range ents {
			name := e.Name()
			if !e.Type().IsRegular() || !strings.HasPrefix(name, "session-") || !strings.HasSuffix(name, ".jsonl") && !strings.HasSuffix(name, ".json") {
				continue
			}
			path := filepath.Join(chats, name)
			id := transcript.HeadValue(path, func(rec []byte) string { return gjson.GetBytes(rec, "sessionId").String() })
			if id != "" {
				found = append(found, agent.Found{Session: id, Path: path})
			}
		}
	}
	return found
}
