package handoff

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"go.yaml.in/yaml/v3"

	"github.com/continuity-md/continuity/internal/frontmatter"
)

// Parsed is a handoff read back from disk, for injection and listing.
type Parsed struct {
	Meta     Meta
	Sections map[string]string // section heading → markdown text
	Order    []string          // section headings in file order
}

// metaYAML is the front matter as written; created is parsed separately
// so a person's odd date does not fail the whole file.
type metaYAML struct {
	Session      string `yaml:"session"`
	Created      string `yaml:"created"`
	Event        string `yaml:"event"`
	Trigger      string `yaml:"trigger"`
	Reason       string `yaml:"reason"`
	AgentSession string `yaml:"agent_session"`
	Branch       string `yaml:"branch"`
	Commit       string `yaml:"commit"`
	Dirty        int    `yaml:"dirty"`
	Author       string `yaml:"author"`
	Version      string `yaml:"version"`
}

// Parse reads a handoff file's front matter and sections.
// Sections are the level-two headings of the body, found by goldmark (so a
// "## " line inside a code block is not one); each section's text is the
// source between its heading and the next, verbatim, without the blank
// lines around it. A file without front matter is read as a body alone. A
// repeated heading keeps its first section.
func Parse(src []byte) (*Parsed, error) {
	p := &Parsed{Sections: map[string]string{}}
	fm, body, err := splitFrontMatter(src)
	if err != nil {
		return nil, err
	}
	if fm != nil {
		var m metaYAML
		if err := yaml.Unmarshal(fm, &m); err != nil {
			return nil, fmt.Errorf("handoff front matter: %w", err)
		}
		p.Meta = Meta{Session: m.Session, Event: m.Event, Trigger: m.Trigger, Reason: m.Reason,
			AgentSession: m.AgentSession, Branch: m.Branch, Commit: m.Commit, Dirty: m.Dirty,
			Author: m.Author, Version: m.Version}
		if m.Created != "" {
			t, err := time.Parse(time.RFC3339, m.Created)
			if err != nil {
				return nil, fmt.Errorf("handoff front matter: created: %w", err)
			}
			p.Meta.Created = t.UTC()
		}
	}

	doc := goldmark.DefaultParser().Parse(text.NewReader(body))
	type heading struct {
		title        string
		start, after int // heading line start; first byte after the heading
	}
	var hs []heading
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok || h.Level != 2 || h.Lines().Len() == 0 {
			continue
		}
		first, last := h.Lines().At(0), h.Lines().At(h.Lines().Len()-1)
		title := strings.TrimSpace(string(first.Value(body)))
		for i := 1; i < h.Lines().Len(); i++ {
			seg := h.Lines().At(i)
			title += " " + strings.TrimSpace(string(seg.Value(body)))
		}
		start := bytes.LastIndexByte(body[:first.Start], '\n') + 1
		after := lineEnd(body, last.Start)
		if !isATX(body[start:first.Start]) {
			after = lineEnd(body, after) // setext: skip the underline
		}
		hs = append(hs, heading{title: title, start: start, after: after})
	}
	for i, h := range hs {
		end := len(body)
		if i+1 < len(hs) {
			end = hs[i+1].start
		}
		if _, dup := p.Sections[h.title]; dup {
			continue
		}
		p.Sections[h.title] = strings.Trim(string(body[h.after:end]), "\r\n")
		p.Order = append(p.Order, h.title)
	}
	return p, nil
}

// isATX tells whether the text before a heading's content on its line is
// an ATX opener ("## ").
func isATX(prefix []byte) bool { return bytes.Contains(prefix, []byte("#")) }

// lineEnd returns the offset just past the newline ending the line that
// holds offset i (or len(b)).
func lineEnd(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(b)
}

var errUnclosed = errors.New("handoff front matter: no closing ---")

// splitFrontMatter splits "---\n<yaml>\n---\n<body>" (internal/frontmatter).
// Without an opening "---" line, the whole file is the body.
func splitFrontMatter(src []byte) (fm, body []byte, err error) {
	b, found, err := frontmatter.Split(src)
	if err != nil {
		return nil, nil, errUnclosed
	}
	if !found {
		return nil, bytes.TrimPrefix(src, []byte("\ufeff")), nil
	}
	return b.YAML(src), src[b.Body:], nil
}
