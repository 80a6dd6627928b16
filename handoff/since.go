package handoff

import (
	"fmt"
	"strings"
)

// sinceItems is how many of each kind of work after a compaction the
// summary names; the rest are counted.
const sinceItems = 5

// SummaryOf is a handoff's summary from a transcript's facts, never older
// than the work. Without a compaction it is the last reply. After one, when
// work went on, it is the last reply since, then what was done since (the
// prompts, files, commands and failures after it), then the compaction's
// own summary of what came before; when nothing happened since, the
// compaction's summary alone. Facts without Since (a host that does not
// tell what came after) give the last reply and the compaction's summary,
// both, since either may be the newer.
func SummaryOf(f *Facts) string {
	if f == nil {
		return ""
	}
	summary := strings.TrimSpace(f.CompactSummary)
	last := strings.TrimSpace(f.LastAssistant)
	s := f.Since
	if summary == "" {
		return last
	}
	if s == nil {
		if last == "" || last == summary {
			return summary
		}
		return "Last reply: " + last + "\n\nThe latest compaction's summary: " + summary
	}
	var parts []string
	if l := strings.TrimSpace(s.LastAssistant); l != "" {
		parts = append(parts, l)
	}
	var work []string
	if len(s.Prompts) > 0 {
		work = append(work, "asked "+listOf(s.Prompts, func(p string) string { return `"` + Cut(oneLine(p), promptRunes) + `"` }, "; "))
	}
	if len(s.Files) > 0 {
		work = append(work, "edited "+listOf(s.Files, func(p string) string { return p }, ", "))
	}
	if len(s.Commands) > 0 {
		work = append(work, "ran "+listOf(s.Commands, func(c string) string { return "`" + c + "`" }, ", "))
	}
	if len(s.Errors) > 0 {
		work = append(work, "failed: "+listOf(s.Errors, func(e string) string { return e }, "; "))
	}
	if len(work) > 0 {
		parts = append(parts, "Since the last compaction: "+strings.Join(work, ". ")+".")
	}
	if len(parts) == 0 {
		return summary
	}
	return strings.Join(append(parts, "Before it (the compaction's summary): "+summary), "\n\n")
}

// listOf names the last sinceItems of items, each formatted, saying how
// many earlier ones were left out.
func listOf(items []string, format func(string) string, sep string) string {
	var out []string
	skipped := max(0, len(items)-sinceItems)
	for _, it := range items[skipped:] {
		out = append(out, format(it))
	}
	s := strings.Join(out, sep)
	if skipped > 0 {
		s = fmt.Sprintf("%s (and %d before)", s, skipped)
	}
	return s
}
