package handoff

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// The headings of the built-in template's sections that code reads: in a
// handoff written before its front matter carried State and Work (see
// legacyState), and the summary, which SetSummary replaces and injection
// quotes. templates/handoff.md.tmpl writes them (TestTemplateHeadings
// keeps the two the same); nothing else names them.
const (
	HeadingState    = "State"
	HeadingSummary  = "Summary"
	HeadingFiles    = "Files touched"
	HeadingOutside  = "Files outside the repository"
	HeadingCommands = "Commands"
	HeadingErrors   = "Errors"
)

// StateFromSections reads State and Work from the sections of a handoff
// written before its front matter carried them (Parse does, for a whole
// file; a reader of a file's head passes the sections it found there).
func StateFromSections(sections map[string]string) (State, Work) { return legacyState(sections) }

// legacyState reads State and Work from the sections of a handoff written
// before its front matter carried them: the State section as State.Markdown
// wrote it (a label bold or not, checks under a "### Checks" heading, as
// people wrote their own), the lists' items counted.
func legacyState(sections map[string]string) (State, Work) {
	st := parseStateMarkdown(sections[HeadingState])
	var w Work
	for _, c := range []struct {
		heading string
		n       *int
	}{{HeadingFiles, &w.Files}, {HeadingOutside, &w.Outside}, {HeadingCommands, &w.Commands}, {HeadingErrors, &w.Errors}} {
		for _, it := range listItems(sections[c.heading]) {
			if n, ok := moreCount(it); ok {
				*c.n += n
			} else {
				*c.n++
			}
		}
	}
	var open []string
	for _, it := range listItems(sections[HeadingErrors]) {
		if _, more := moreCount(it); !more && strings.HasPrefix(it, "- ") && !strings.HasSuffix(it, ResolvedMark) {
			open = append(open, strings.TrimPrefix(it, "- "))
		}
	}
	if n := len(open); n > MaxOpen {
		w.OpenBefore, open = n-MaxOpen, open[n-MaxOpen:]
	}
	w.Open = open
	return st, w
}

// listItems are a section's list items and "… N more" lines, trimmed.
func listItems(section string) []string {
	var out []string
	for _, line := range strings.Split(section, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "… ") {
			out = append(out, t)
		}
	}
	return out
}

// moreCount reads "… N more".
func moreCount(line string) (int, bool) {
	m := moreLine().FindStringSubmatch(line)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

var moreLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:- )?… (\d+) (?:more|earlier)`) })

// stateLabel reads a State section's labelled line: "- Task: text",
// "- **Task:** text".
var stateLabel = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(?:- )?(?:\*\*|__)?(task|plan|checks|commits|uncommitted|in flight):(?:\*\*|__)? ?(.*)$`)
})

// parseStateMarkdown reads a State section back into a State: the inverse
// of State.Markdown, and tolerant of a person's variations.
func parseStateMarkdown(section string) State {
	var st State
	part := ""
	listed := false // the part's label is a list item ("- Plan:"): its items are indented below it
	for _, line := range strings.Split(section, "\n") {
		t := strings.TrimSpace(line)
		indented := strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")
		if m := stateLabel().FindStringSubmatch(t); m != nil && !indented {
			part, listed = strings.ToLower(m[1]), strings.HasPrefix(t, "- ")
			val := strings.TrimSpace(m[2])
			switch part {
			case "task":
				st.Task = val
			case "uncommitted":
				for _, p := range strings.Split(val, ", ") {
					if n, ok := moreCount(p); ok {
						st.MoreUncommitted += n
					} else if code, _ := cutCode(p); code != "" {
						st.Uncommitted = append(st.Uncommitted, code)
					} else if p = strings.TrimSpace(p); p != "" {
						st.Uncommitted = append(st.Uncommitted, p)
					}
				}
			case "checks":
				if val != "" {
					st.Checks = append(st.Checks, Check{Command: val})
				}
			}
			continue
		}
		if strings.HasPrefix(t, "### ") {
			part, listed = strings.ToLower(strings.TrimSpace(t[4:])), false
			continue
		}
		item, ok := strings.CutPrefix(t, "- ")
		if !ok || item == "" {
			continue
		}
		if listed && !indented { // a fact this reader does not know ends the part
			part = ""
			continue
		}
		switch part {
		case "plan":
			st.Plan = append(st.Plan, planItem(item))
		case "checks":
			st.Checks = append(st.Checks, checkItem(item))
		case "commits":
			hash, subject := cutCode(item)
			if hash == "" {
				hash, subject, _ = strings.Cut(item, " ")
			}
			st.Commits = append(st.Commits, Commit{Hash: hash, Subject: strings.TrimSpace(subject)})
		case "in flight":
			st.InFlight = append(st.InFlight, item)
		}
	}
	return st
}

// planItem reads "[x] subject" or "[ ] subject (in progress)".
func planItem(item string) Task {
	t := Task{Status: "pending"}
	switch {
	case strings.HasPrefix(item, "[x] "), strings.HasPrefix(item, "[X] "):
		t.Status, item = "completed", item[4:]
	case strings.HasPrefix(item, "[ ] "):
		item = item[4:]
	}
	if s, ok := strings.CutSuffix(item, inProgress); ok && t.Status == "pending" {
		t.Status, item = "in_progress", s
	}
	t.Subject = strings.TrimSpace(item)
	return t
}

// checkItem reads Check.Line's "`command`: outcome (names) (failed
// earlier: resolved)"; a line in another shape is the command alone.
func checkItem(item string) Check {
	cmd, rest := cutCode(item)
	rest, ok := strings.CutPrefix(rest, ": ")
	if cmd == "" || !ok {
		return Check{Command: item}
	}
	c := Check{Command: cmd}
	if r, ok := strings.CutSuffix(rest, resolvedCheck); ok {
		c.FailedBefore, rest = true, r
	}
	c.Outcome, rest, _ = strings.Cut(rest, " ")
	if names, ok := strings.CutPrefix(rest, "("); ok {
		c.Failing = strings.Split(strings.TrimSuffix(names, ")"), ", ")
	}
	return c
}

// cutCode reads the inline code span s starts with (codeSpan's
// inverse) and returns its text and what follows it; code is "" when s
// does not start with one.
func cutCode(s string) (code, rest string) {
	s = strings.TrimSpace(s)
	n := len(s) - len(strings.TrimLeft(s, "`"))
	if n == 0 {
		return "", s
	}
	fence := s[:n]
	for i := n; i < len(s); {
		j := strings.Index(s[i:], fence)
		if j < 0 {
			return "", s
		}
		end := i + j
		after := end + n
		if after < len(s) && s[after] == '`' { // a longer run is not the fence
			i = after + len(s[after:]) - len(strings.TrimLeft(s[after:], "`"))
			continue
		}
		code = s[n:end]
		if len(code) > 1 && code[0] == ' ' && code[len(code)-1] == ' ' {
			code = code[1 : len(code)-1]
		}
		return code, s[after:]
	}
	return "", s
}
