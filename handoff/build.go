package handoff

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/continuity-md/continuity/ledger"
)

// recentPrompts is how many of the person's last prompts a handoff quotes,
// and promptRunes how much of each.
const (
	recentPrompts = 5
	promptRunes   = 300
)

// Build assembles a handoff from the transcript's facts and the ledger (l may be nil).
// Decisions are the ledger's; a caller that knows which ones an earlier
// handoff reported filters them. LedgerPath is l.Path; callers set it
// relative to the repository root.
func Build(meta Meta, f *Facts, l *ledger.Ledger) *Handoff {
	if f == nil {
		f = &Facts{}
	}
	h := &Handoff{Meta: meta}
	h.Summary = SummaryOf(f)
	var ledgerDone, ledgerNext []string
	if l != nil {
		if h.Stream == "" {
			h.Stream = l.Stream
		}
		h.Goal = strings.TrimSpace(l.Goal)
		h.Now = strings.TrimSpace(l.Now)
		ledgerDone, ledgerNext = l.Done, l.Next
		h.Decisions = append([]ledger.Decision(nil), l.Decisions...)
		h.LedgerPath = l.Path
	}

	var tasksDone, tasksOpen []string
	for _, t := range f.Plan {
		switch t.Status {
		case "completed":
			tasksDone = append(tasksDone, t.Subject)
		case "deleted":
		case "in_progress":
			tasksOpen = append(tasksOpen, t.Subject+" (in progress)")
		default:
			tasksOpen = append(tasksOpen, t.Subject)
		}
	}
	done := newItemSet()
	h.Done = done.add(nil, tasksDone...)
	h.Done = done.add(h.Done, ledgerDone...)
	next := newItemSet()
	for k := range done.seen {
		next.seen[k] = true // what is done is not next
	}
	if h.Now != "" {
		next.seen[itemKey(h.Now)] = true // nor what is being done now
	}
	h.Next = next.add(nil, tasksOpen...)
	h.Next = next.add(h.Next, ledgerNext...)

	h.Files = append([]string(nil), f.Files...)
	h.Outside = append([]string(nil), f.Outside...)
	h.Commands = append([]string(nil), f.Commands...)
	h.Errors = append([]string(nil), f.Errors...)
	h.Omitted = f.Omitted
	h.State = f.State.Clone()
	h.Read = slices.DeleteFunc(h.Read, func(r string) bool { return slices.Contains(h.Files, r) })
	h.Plan = planOf(f.Plan)
	prompts := f.Prompts
	if len(prompts) > recentPrompts {
		prompts = prompts[len(prompts)-recentPrompts:]
	}
	for _, p := range prompts {
		if p = oneLine(p); p != "" {
			h.Prompts = append(h.Prompts, Cut(p, promptRunes))
		}
	}
	h.Task = h.Now
	if h.Task == "" && len(h.Prompts) > 0 {
		h.Task = h.Prompts[len(h.Prompts)-1]
	}
	return h
}

// planOf is the plan a handoff shows: the items not deleted.
func planOf(tasks []Task) []Task {
	var out []Task
	for _, t := range tasks {
		if t.Status != "deleted" && strings.TrimSpace(t.Subject) != "" {
			out = append(out, t)
		}
	}
	return out
}

// itemSet deduplicates list items as a person reads them: case, spacing
// and an "(in progress)" mark do not make two items different.
type itemSet struct{ seen map[string]bool }

func newItemSet() itemSet { return itemSet{seen: map[string]bool{}} }

func (s itemSet) add(list []string, items ...string) []string {
	for _, it := range items {
		it = strings.TrimSpace(it)
		k := itemKey(it)
		if k == "" || s.seen[k] {
			continue
		}
		s.seen[k] = true
		list = append(list, it)
	}
	return list
}

func itemKey(s string) string {
	s = strings.TrimSuffix(strings.TrimSpace(s), " (in progress)")
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// oneLine folds all whitespace, newlines included, into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Cut cuts s to at most n runes, ending in "…" when cut, and returns
// a copy that does not share memory with the line it came from.
func Cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return strings.Clone(strings.ToValidUTF8(s, "\uFFFD"))
	}
	i, count := 0, 0
	for i = range s {
		if count == n-1 {
			break
		}
		count++
	}
	return strings.ToValidUTF8(s[:i], "\uFFFD") + "…"
}
