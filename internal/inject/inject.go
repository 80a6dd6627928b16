// Package inject renders the context continuity gives the model at
// SessionStart: the active ledger and the latest handoff, shaped by the
// session's source and cut by priority to stay under the host's size limit.
// It is the program's one renderer for injected context.
package inject

import (
	"fmt"
	"strings"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/config"
	"github.com/continuity-md/continuity/ledger"
)

// DefaultBudget is the default size limit in characters. Claude Code replaces
// additionalContext of 10,000 characters or more with a short preview.
const DefaultBudget = 9000

// MaxBudget is the largest budget accepted (config.MaxBudget, where the
// setting is checked): anything at or over the host's 10,000-character
// cliff would be cut off by the host.
const MaxBudget = config.MaxBudget

// Input is what a SessionStart injection is made from.
type Input struct {
	Source        string         // startup, resume, clear, compact, fork ("" = startup)
	Name          string         // work stream name
	LedgerPath    string         // relative to the repository root
	Ledger        *ledger.Ledger // nil when missing or unparseable
	LedgerRaw     []byte         // the ledger's bytes when it could not be parsed
	LedgerProblem string         // why it could not be parsed
	Handoff       *handoff.Parsed
	HandoffPath   string // relative to the repository root
	Now           time.Time
	Budget        int           // characters; 0 = DefaultBudget
	Policy        string        // full, short or none; "" = by source (resume and fork short)
	StaleAfter    time.Duration // a handoff older than this is marked stale; 0 = never
}

// Short reports whether the injection is a short refresh (goal, now, next).
func (in Input) Short() bool {
	if in.Policy != "" {
		return in.Policy == "short"
	}
	return in.Source == "resume" || in.Source == "fork"
}

// Length counts characters as the host does (UTF-16 code units), so a
// budget in characters holds whatever the script.
func Length(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// NoLedger is the one-line hint injected when the project has no ledger.
func NoLedger() string {
	return "continuity: this repository has no ledger yet; `continuity new NAME --goal TEXT` starts one, and the hooks then keep it and the handoffs current."
}

type block struct {
	title string   // "" for a one-line field
	text  string   // prose (goal, now, summary, notes)
	items []string // list entries
	keep  int      // +1: keep the first items when cutting; -1: keep the last
	more  string   // where the rest is, for the cut line
}

// Render returns the text to inject, at most in.Budget characters.
func Render(in Input) string {
	budget := in.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	if budget > MaxBudget {
		budget = MaxBudget
	}
	source := in.Source
	if source == "" {
		source = "startup"
	}
	header := fmt.Sprintf("continuity: the ledger of work stream %q (%s), restored at session start (%s).", in.Name, in.LedgerPath, source)
	if l := in.Ledger; l != nil && l.Updated != "" {
		header = strings.TrimSuffix(header, ".") + fmt.Sprintf("; last updated %s.", l.Updated)
	}
	footer := []string{"The ledger is kept with the continuity CLI: `continuity now TEXT`, `continuity done TEXT` (also drops it from next), `continuity next TEXT`, `continuity question TEXT`, `continuity decide TEXT --why TEXT`."}
	files := "Full files: " + in.LedgerPath
	if in.HandoffPath != "" {
		files += " (ledger), " + in.HandoffPath + " (latest handoff)"
	}
	footer = append(footer, files+".")

	var blocks []block
	short := in.Short()
	switch {
	case in.Ledger != nil:
		l := in.Ledger
		blocks = append(blocks,
			block{title: "Goal", text: l.Goal},
			block{title: "Now", text: l.Now},
			block{title: "Next", items: l.Next, keep: 1, more: "the ledger"},
		)
		if !short {
			blocks = append(blocks, block{title: "Constraints", items: l.Constraints, keep: 1, more: "the ledger"})
			blocks = append(blocks, handoffBlock(in))
			var ds []string
			for _, d := range l.Decisions {
				s := d.Decision
				if d.Why != "" {
					s += " (why: " + d.Why + ")"
				}
				if d.Date != "" {
					s += " [" + d.Date + "]"
				}
				ds = append(ds, s)
			}
			blocks = append(blocks,
				block{title: "Decisions", items: ds, keep: -1, more: "the ledger"},
				block{title: "Open questions", items: l.Questions, keep: 1, more: "the ledger"},
				block{title: "Files", items: l.Files, keep: -1, more: "the ledger"},
				block{title: "Done", items: l.Done, keep: -1, more: "the ledger"},
				block{title: "Notes", text: notes(l.Body)},
			)
		}
	default:
		msg := "The ledger could not be read"
		if in.LedgerProblem != "" {
			msg += ": " + in.LedgerProblem
		}
		blocks = append(blocks, block{title: "Problem", text: msg + ". Its text as it stands:"},
			block{title: "Ledger text", text: strings.TrimSpace(string(in.LedgerRaw))})
		if !short {
			blocks = append(blocks, handoffBlock(in))
		}
	}

	fixed := Length(header) + 4
	for _, f := range footer {
		fixed += Length(f) + 1
	}
	left := budget - fixed
	var parts []string
	for _, b := range blocks {
		s, ok := b.render(left)
		if !ok {
			continue
		}
		parts = append(parts, s)
		left -= Length(s) + 1
	}
	out := header + "\n\n"
	if len(parts) > 0 {
		out += strings.Join(parts, "\n") + "\n\n"
	}
	out += strings.Join(footer, "\n")
	return out
}

// notes returns a ledger body worth injecting: "" when it holds nothing
// but headings, or only the new ledger's placeholder text.
func notes(body []byte) string {
	if ledger.IsTemplateBody(body) {
		return ""
	}
	for _, line := range strings.Split(string(body), "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			return strings.TrimSpace(string(body))
		}
	}
	return ""
}

func handoffBlock(in Input) block {
	h := in.Handoff
	if h == nil {
		return block{}
	}
	title := "Latest handoff"
	if d := in.Now.Sub(h.Meta.Created); in.StaleAfter > 0 && !h.Meta.Created.IsZero() && d > in.StaleAfter {
		title = "Latest handoff, stale"
	}
	if by := Byline(h.Meta, in.Now); by != "" {
		title += " (" + by + ")"
	}
	text := strings.TrimSpace(h.Sections["Summary"])
	if text == "" {
		text = "(no summary)"
	}
	return block{title: title, text: text}
}

// Byline says who wrote a handoff, when and where: "pre-compact by Kim,
// 3 h ago on feature/auth".
func Byline(m handoff.Meta, now time.Time) string {
	var parts []string
	if m.Event != "" {
		parts = append(parts, m.Event)
	}
	if m.Author != "" {
		parts = append(parts, "by "+m.Author)
	}
	s := strings.Join(parts, " ")
	if !m.Created.IsZero() && !now.IsZero() {
		if s != "" {
			s += ", "
		}
		if d := now.Sub(m.Created); d < -time.Minute {
			// A clock ahead (another machine's) or a hand-edited date:
			// say so rather than call it recent.
			s += "dated " + m.Created.UTC().Format("2006-01-02 15:04") + " UTC, in the future"
		} else {
			s += Age(d) + " ago"
		}
	}
	if m.Branch != "" {
		s += " on " + m.Branch
	}
	return strings.TrimSpace(s)
}

// Age renders a duration the way a person says it: "5 min", "3 h", "2 days".
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "under a minute"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d/time.Hour))
	default:
		return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
	}
}

const itemCap = 400

// render returns the block's text if any of it fits in room characters,
// cutting lists by items and prose at a character boundary.
func (b block) render(room int) (string, bool) {
	if b.title == "" || room <= len(b.title)+8 {
		return "", false
	}
	if b.items == nil {
		text := strings.TrimSpace(b.text)
		if text == "" {
			return "", false
		}
		sep := ": "
		if strings.Contains(text, "\n") {
			sep = ":\n"
		}
		head := b.title + sep
		if Length(head)+Length(text) <= room {
			return head + text, true
		}
		const cut = " … (cut here)"
		n := room - Length(head) - Length(cut)
		if n < 40 {
			return "", false
		}
		return head + truncate(text, n) + cut, true
	}
	var items []string
	for _, it := range b.items {
		if it = strings.TrimSpace(it); it != "" {
			items = append(items, "- "+truncate(oneLine(it), itemCap))
		}
	}
	if len(items) == 0 {
		return "", false
	}
	head := b.title + ":"
	full := head + "\n" + strings.Join(items, "\n")
	if Length(full) <= room {
		return full, true
	}
	// Keep as many items as fit, plus a line counting the rest.
	var kept []string
	used := Length(head) + 40
	order := items
	if b.keep < 0 {
		order = reverse(items)
	}
	for _, it := range order {
		if used+Length(it)+1 > room {
			break
		}
		kept = append(kept, it)
		used += Length(it) + 1
	}
	if len(kept) == 0 {
		return "", false
	}
	rest := fmt.Sprintf("- … %d more in %s", len(items)-len(kept), b.more)
	if b.keep < 0 {
		kept = append([]string{rest}, reverse(kept)...)
	} else {
		kept = append(kept, rest)
	}
	return head + "\n" + strings.Join(kept, "\n"), true
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// truncate cuts s to at most n characters (as counted by Length).
func truncate(s string, n int) string {
	if Length(s) <= n {
		return s
	}
	c := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if c+w > n-1 {
			return s[:i] + "…"
		}
		c += w
	}
	return s
}

func reverse(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}
