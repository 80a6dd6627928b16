package ledger

import (
	"fmt"
	"reflect"
	"strings"
)

// Compose writes a front matter ledger from a model: l's fields as front
// matter (lines ending in eol), then extra (front matter lines of keys the
// model does not know, verbatim), then body. It checks that the result
// reads back as the model it was made from; path names the file in errors.
func Compose(path, eol string, l *Ledger, extra string, body []byte) ([]byte, error) {
	var b strings.Builder
	b.WriteString("---" + eol)
	b.WriteString(frontMatterText(l, eol))
	b.WriteString(extra)
	b.WriteString("---" + eol)
	if len(body) > 0 {
		b.WriteString(eol)
		b.Write(body)
	}
	out := []byte(b.String())
	got, err := Parse(path, out)
	if err != nil {
		return nil, fmt.Errorf("compose %s: the ledger written does not parse: %w", path, err)
	}
	want := *l
	for _, x := range []*Ledger{got, &want} {
		x.Src, x.Body, x.Format, x.Path, x.Present, x.Extra = nil, nil, FrontMatter, "", nil, ""
	}
	if !reflect.DeepEqual(got, &want) {
		return nil, fmt.Errorf("compose %s: the ledger written reads back differently", path)
	}
	return out, nil
}

// frontMatterText writes a ledger's fields as front matter lines.
func frontMatterText(l *Ledger, eol string) string {
	var b strings.Builder
	scalar := func(k, v string) {
		b.WriteString(k + ": " + formatScalar(v, styleAuto, false, "  ", eol) + eol)
	}
	list := func(k string, items []string) {
		if len(items) == 0 {
			b.WriteString(k + ": []" + eol)
			return
		}
		b.WriteString(k + ":" + eol)
		for _, it := range items {
			b.WriteString("  - " + formatScalar(it, styleAuto, false, "", eol) + eol)
		}
	}
	scalar(KeySession, l.Stream)
	scalar(KeyGoal, l.Goal)
	list(KeyConstraints, l.Constraints)
	list(KeyDone, l.Done)
	scalar(KeyNow, l.Now)
	list(KeyNext, l.Next)
	if len(l.Decisions) == 0 {
		b.WriteString(KeyDecisions + ": []" + eol)
	} else {
		b.WriteString(KeyDecisions + ":" + eol)
		for _, d := range l.Decisions {
			b.WriteString("  - decision: " + formatScalar(d.Decision, styleAuto, false, "", eol) + eol)
			if d.Why != "" {
				b.WriteString("    why: " + formatScalar(d.Why, styleAuto, false, "", eol) + eol)
			}
			if d.Date != "" {
				b.WriteString("    date: " + formatScalar(d.Date, styleAuto, false, "", eol) + eol)
			}
		}
	}
	list(KeyQuestions, l.Questions)
	list(KeyFiles, l.Files)
	scalar(KeyUpdated, l.Updated)
	return b.String()
}

// HasFrontMatter reports whether src starts a front matter block (closed
// or not): a ledger in the native form, or a broken one.
func HasFrontMatter(src []byte) bool { return hasFrontMatterStart(src) }

// EOL is the line ending of src's first line.
func EOL(src []byte) string { return detectEOL(src) }

// SessionFromPath is the stream a ledger's file name names
// (CONTINUITY_name.md, or Continuous-Claude's CONTINUITY_CLAUDE-name.md).
func SessionFromPath(path string) string { return sessionFromPath(path) }

// CheckConflict refuses src when it holds git's conflict markers (a
// <<<<<<< line), naming the line; a reader of any ledger form calls it first.
func CheckConflict(path string, src []byte) error { return checkConflict(path, src) }

// CheckUTF8 refuses src when it is not valid UTF-8, naming the line.
func CheckUTF8(path string, src []byte) error {
	if i := invalidUTF8(src); i >= 0 {
		return Problems{{Path: path, Line: lineOf(src, i), Msg: "ledger is not valid UTF-8"}}
	}
	return nil
}
