package handoff

import (
	"bytes"
	"strings"

	"github.com/continuity-md/continuity/ledger"
)

// CleanSummary turns a compaction summary as the host sends it (an
// <analysis> block, then the text inside <summary> tags) into the summary
// text alone. Text without tags is returned trimmed.
func CleanSummary(raw string) string {
	s := raw
	if i := strings.Index(s, "<summary>"); i >= 0 {
		s = s[i+len("<summary>"):]
		if j := strings.LastIndex(s, "</summary>"); j >= 0 {
			s = s[:j]
		}
	} else if i := strings.Index(s, "</analysis>"); i >= 0 {
		s = s[i+len("</analysis>"):]
	}
	return strings.TrimSpace(s)
}

// SetSummary returns a rendered handoff with its "## Summary" section set to
// summary: the section's text is replaced, or the section is added before
// the first other section. Every other byte is kept.
func SetSummary(src []byte, summary string) ([]byte, error) {
	nl := "\n"
	if bytes.Contains(src, []byte("\r\n")) {
		nl = "\r\n"
	}
	summary = strings.TrimSpace(summary)
	section := "## Summary" + nl + nl + strings.ReplaceAll(summary, "\n", nl) + nl + nl
	start, bodyStart := -1, bodyOffset(src)
	first := -1
	off := 0
	for _, line := range bytes.SplitAfter(src, []byte("\n")) {
		if off >= bodyStart && bytes.HasPrefix(line, []byte("## ")) {
			if first < 0 {
				first = off
			}
			if start >= 0 {
				return concat(src[:start], section, src[off:]), nil
			}
			if strings.TrimSpace(string(line[3:])) == HeadingSummary {
				start = off
			}
		}
		off += len(line)
	}
	switch {
	case start >= 0: // the summary is the last section
		return concat(src[:start], strings.TrimRight(section, "\r\n")+nl, nil), nil
	case first >= 0:
		return concat(src[:first], section, src[first:]), nil
	default:
		if len(src) > 0 && !bytes.HasSuffix(src, []byte("\n")) {
			src = append(append([]byte{}, src...), nl...)
		}
		return concat(src, nl+section, nil), nil
	}
}

// bodyOffset is where the markdown after the front matter starts.
func bodyOffset(src []byte) int {
	b, found, _ := ledger.SplitFront(src)
	if !found {
		return 0
	}
	return b.Body
}

func concat(a []byte, mid string, b []byte) []byte {
	out := make([]byte, 0, len(a)+len(mid)+len(b))
	out = append(out, a...)
	out = append(out, mid...)
	return append(out, b...)
}
