package handoff

// Substantial reports whether a handoff says work was done: files
// touched, commands, errors, a plan, checks or commits (its State and
// Work), or that it was written before a compaction or recovered from a
// session that died (both carry what the session knew). A chat-only
// handoff (prompts and a reply) has none: it is never the one given to a
// model or kept over another.
func Substantial(p *Parsed) bool {
	if p == nil {
		return false
	}
	switch p.Meta.Event {
	case "pre-compact", "recovered":
		return true
	}
	if p.State.Worked() || p.Work.Any() {
		return true
	}
	return p.Form != FormContinuity && p.Form != "" // another tool's handoff: its own judgment
}
