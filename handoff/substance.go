package handoff

import "strings"

// Substantial reports whether a handoff says work was done: files
// touched, commands, errors, a plan, checks or commits, or that it was
// written before a compaction or recovered from a session that died (both
// carry what the session knew). A chat-only handoff (prompts and a reply)
// has none: it is never the one given to a model or kept over another.
func Substantial(p *Parsed) bool {
	if p == nil {
		return false
	}
	switch p.Meta.Event {
	case "pre-compact", "recovered":
		return true
	}
	for _, sec := range []string{"Files touched", "Files outside the repository", "Commands", "Errors"} {
		if strings.TrimSpace(p.Sections[sec]) != "" {
			return true
		}
	}
	state := p.Sections["State"]
	for _, line := range []string{"- Plan:", "- Checks:", "- Commits:"} {
		if strings.Contains(state, line) {
			return true
		}
	}
	return p.Form != FormContinuity && p.Form != "" // another tool's handoff: its own judgment
}
