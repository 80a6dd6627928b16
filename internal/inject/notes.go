package inject

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/ledger"
)

// LedgerNotes is the part of ledger l's body an injection may show: ""
// when there is no ledger or it is the new ledger's placeholder text, and without what the
// ledger's fields already hold (a section-style ledger's ## Goal or ## Next
// Steps). It is worked out once per version of the ledger (a session start
// remembers it with the ledger's fields).
func LedgerNotes(l *ledger.Ledger) string {
	if l == nil || ledger.IsTemplateBody(l.Body) {
		return ""
	}
	body := compat.Notes(l)
	if ledger.IsTemplateBody(body) {
		return ""
	}
	return string(body)
}

// notes returns the ledger's notes (LedgerNotes) to inject, at most room
// characters: "" when they hold nothing but headings. When they do not fit,
// what is current is kept (sections about now and next, the phase in
// progress and the one after it, the latest phase when all are done) and
// the rest is left out from the oldest, with a last line that names what
// was left out and the file it is in.
func notes(body string, room int, path string, m measure) string {
	text := strings.TrimSpace(body)
	content := false
	for _, line := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			content = true
			break
		}
	}
	if !content {
		return ""
	}
	if m.size(text) <= room {
		return text
	}
	return cutNotes(text, room, path, m)
}

// unit is one heading and what follows it up to the next heading (or the
// text before the first heading).
type unit struct {
	heading string // without the #s; "" for the text before the first heading
	text    string
	rank    int // 0 current, 1 the text before the first heading, 2 other, 3 done
	order   int // among equal ranks, lower is kept first
}

var (
	noteHeadingRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`) })
	notePhaseRE   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\W*(phase|stage|step|milestone|wave|sprint|part)\b`)
	})
	noteCurrentRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(now|next|in progress|current|focus|state|status|progress|remaining|todo|to do|blocked|blockers|open questions|plan)\b`)
	})
	noteDoneRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(✅|✓|✔|\bcomplete(d)?\b|\bdone\b|\bfinished\b|\bshipped\b|\bmerged\b|\[x\])`)
	})
	noteOpenRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(⏳|🔄|🚧|\bin progress\b|\bwip\b|\bcurrent\b|\bpending\b|\bnot started\b|\[ \]|\[→\]|\[->\]|\[~\]|\[>\])`)
	})
	noteBoxRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*(?:[-*+]|\d+[.)])\s+\[( |x|X|→|->|~|>)\]`) })
)

// splitUnits cuts notes at their headings (not inside fenced code).
func splitUnits(text string) []unit {
	var us []unit
	cur := unit{}
	var b strings.Builder
	fence := ""
	flush := func() {
		cur.text = strings.TrimRight(b.String(), "\n")
		if strings.TrimSpace(cur.text) != "" {
			us = append(us, cur)
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			switch {
			case fence == "":
				fence = t[:3]
			case strings.HasPrefix(t, fence):
				fence = ""
			}
		}
		if fence == "" {
			if m := noteHeadingRE().FindStringSubmatch(strings.TrimRight(line, "\r\n")); m != nil {
				flush()
				cur = unit{heading: m[2]}
			}
		}
		b.WriteString(line)
	}
	flush()
	return us
}

// phaseDone tells a finished phase: its heading says so, or every box in
// it is checked.
func phaseDone(u unit) bool {
	if noteOpenRE().MatchString(u.heading) {
		return false
	}
	if noteDoneRE().MatchString(u.heading) {
		return true
	}
	boxes := noteBoxRE().FindAllStringSubmatch(u.text, -1)
	if len(boxes) == 0 {
		return false
	}
	for _, b := range boxes {
		if b[1] != "x" && b[1] != "X" {
			return false
		}
	}
	return true
}

// rankUnits orders the units by what must stay: the current and next
// phases (or the latest, when all are done) and the sections about now and
// next; then the text before the first heading; then other sections, the
// later first; then finished phases, the later first.
func rankUnits(us []unit) {
	current := -1
	var phases []int
	for i := range us {
		if notePhaseRE().MatchString(us[i].heading) {
			phases = append(phases, i)
			if current < 0 && !phaseDone(us[i]) {
				current = i
			}
		}
	}
	keep := map[int]bool{}
	if current >= 0 {
		keep[current] = true
		for k, i := range phases {
			if i == current && k+1 < len(phases) {
				keep[phases[k+1]] = true
			}
		}
	} else if len(phases) > 0 {
		keep[phases[len(phases)-1]] = true
	}
	n := len(us)
	for i := range us {
		u := &us[i]
		isPhase := notePhaseRE().MatchString(u.heading)
		switch {
		case keep[i]:
			u.rank, u.order = 0, i
		case isPhase && phaseDone(*u):
			u.rank, u.order = 3, n-i
		case isPhase:
			u.rank, u.order = 2, n-i
		case u.heading == "":
			u.rank, u.order = 1, i
		case noteCurrentRE().MatchString(u.heading) && !noteDoneRE().MatchString(u.heading):
			u.rank, u.order = 0, i
		default:
			u.rank, u.order = 2, n-i
		}
	}
}

// cutNotes keeps the most current units that fit in room, in their order,
// and ends with a line naming what was left out and where it is.
func cutNotes(text string, room int, path string, m measure) string {
	us := splitUnits(text)
	rankUnits(us)
	idx := make([]int, len(us))
	for i := range idx {
		idx[i] = i
	}
	// Insertion sort by (rank, order): few units.
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && less(us[idx[j]], us[idx[j-1]]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	kept := make([]bool, len(us))
	cutAt := -1 // a current unit cut to fit
	used := 0
	build := func() string {
		var parts, left []string
		for i, u := range us {
			switch {
			case i == cutAt:
				parts = append(parts, u.text)
			case kept[i]:
				parts = append(parts, u.text)
			case !hasContent(u):
				// A heading with nothing under it is not worth naming.
			default:
				name := u.heading
				if name == "" {
					name = "the text before the first heading"
				}
				left = append(left, "«"+name+"»")
			}
		}
		out := strings.Join(parts, "\n\n")
		if len(left) > 0 {
			out += "\n\n" + omitted(left, path)
		}
		return out
	}
	// The line about what was left out takes room too; reserve for it and
	// give back what it does not use.
	reserve := min(m.size(omitted([]string{"«…»"}, path))+60*min(len(us), 4), room/2)
	for _, i := range idx {
		u := us[i]
		need := m.size(u.text) + 2
		if used+need <= room-reserve {
			kept[i] = true
			used += need
			continue
		}
		if u.rank == 0 && cutAt < 0 {
			// Current work that does not fit whole: its start, cut.
			left := room - reserve - used - 2 - m.size(cutMark)
			if left >= 80 {
				us[i].text = m.truncate(u.text, left) + cutMark
				cutAt = i
				used += m.size(us[i].text) + 2
			}
		}
	}
	out := build()
	// Drop the least current kept units until it fits (the list of what was
	// left out grows as they go).
	for m.size(out) > room {
		last := -1
		for k := len(idx) - 1; k >= 0; k-- {
			if kept[idx[k]] || idx[k] == cutAt {
				last = idx[k]
				break
			}
		}
		if last < 0 {
			return m.truncate(omitted([]string{"all of them"}, path), room)
		}
		kept[last] = false
		if last == cutAt {
			cutAt = -1
		}
		out = build()
	}
	return out
}

const cutMark = " (cut here)"

// hasContent reports a unit with more than its heading line.
func hasContent(u unit) bool {
	_, rest, _ := strings.Cut(u.text, "\n")
	if u.heading == "" {
		rest = u.text
	}
	return strings.TrimSpace(rest) != ""
}

func less(a, b unit) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.order < b.order
}

// omitted is the line that says what was left out of the notes, and where
// it is: at most six names, then a count.
func omitted(names []string, path string) string {
	shown := names
	more := ""
	if len(names) > 6 {
		shown = names[:6]
		more = fmt.Sprintf(" and %d more", len(names)-6)
	}
	return fmt.Sprintf("[continuity: left out to stay within the budget: %s%s; they are in %s]", strings.Join(shown, ", "), more, path)
}
