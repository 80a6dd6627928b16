package handoff

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/continuity-md/continuity/ledger"
	"github.com/yuin/goldmark/ast"
	"go.yaml.in/yaml/v3"
)

// Parsed is a handoff read back from disk, for injection and listing.
type Parsed struct {
	Meta Meta
	// State and Work are what the front matter records (see State); a
	// handoff written before it did has them read from its sections.
	State    State
	Work     Work
	Sections map[string]string // section heading → markdown text
	Order    []string          // section headings in file order
	// Form is how the handoff was written: FormContinuity for continuity's
	// own, or the name of another tool's form a reader converted it from
	// (internal/compat).
	Form string
	// Goal, Now and Next are what a handoff of another form says the work
	// is for, what to do first and after; empty for continuity's own, whose
	// Summary and State say it.
	Goal string
	Now  string
	Next []string
}

// FormContinuity is the form of continuity's own handoffs.
const FormContinuity = "continuity"

// metaYAML is the front matter as written; created is parsed separately
// so a person's odd date does not fail the whole file.
type metaYAML struct {
	Stream string `yaml:"stream"`
	// Session is the stream's name in handoffs written before it was
	// called stream.
	Session      string `yaml:"session"`
	Created      string `yaml:"created"`
	Event        string `yaml:"event"`
	Trigger      string `yaml:"trigger"`
	Reason       string `yaml:"reason"`
	AgentSession string `yaml:"agent_session"`
	Agent        string `yaml:"agent"`
	Model        string `yaml:"model"`
	Tokens       string `yaml:"tokens"` // read as text: an odd value is ignored, not an error
	Branch       string `yaml:"branch"`
	Commit       string `yaml:"commit"`
	Dirty        int    `yaml:"dirty"`
	Author       string `yaml:"author"`
	Version      string `yaml:"version"`
	// State and Work are read apart (see record): a value a person broke
	// loses only itself.
	State yaml.Node `yaml:"state"`
	Work  yaml.Node `yaml:"work"`
}

// frontMatterKeys are the keys continuity writes in a handoff's front
// matter (see view.frontMatter).
var frontMatterKeys = map[string]bool{
	"stream": true, "session": true, "created": true, "event": true, "trigger": true, "reason": true, "agent_session": true,
	"agent": true, "model": true, "tokens": true, "branch": true, "commit": true, "dirty": true,
	"author": true, "version": true, "state": true, "work": true,
}

// Parse reads a handoff file in continuity's form: its front matter and
// sections (see Sections). A file without front matter is read as a body
// alone. Other tools' handoffs are read by internal/compat, which converts
// them to a Parsed.
func Parse(src []byte) (*Parsed, error) {
	fm, body, err := SplitFrontMatter(src)
	if err != nil {
		return nil, err
	}
	p := &Parsed{Form: FormContinuity}
	var m metaYAML
	if fm != nil {
		if p.Meta, m, err = parseMeta(fm); err != nil {
			return nil, err
		}
	}
	p.Sections, p.Order = Sections(body)
	hasState, hasWork := record(&m.State, &p.State), record(&m.Work, &p.Work)
	if !hasState && !hasWork {
		// Written before the front matter carried them: the built-in
		// template's sections say them.
		p.State, p.Work = legacyState(p.Sections)
	}
	return p, nil
}

// record decodes a front matter value written as JSON (or as any YAML of
// the same shape) into v by its JSON names. It reports whether the value
// was there and read.
func record(n *yaml.Node, v any) bool {
	if n.Kind == 0 {
		return false
	}
	var raw any
	if n.Decode(&raw) != nil {
		return false
	}
	b, err := json.Marshal(raw)
	return err == nil && json.Unmarshal(b, v) == nil
}

// extraKeys is what a template's own front matter says beyond the keys
// continuity writes, as YAML; nil when nothing (or not a YAML mapping).
func extraKeys(fm []byte) []byte {
	var doc yaml.Node
	if yaml.Unmarshal(fm, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	m, out := doc.Content[0], &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if !frontMatterKeys[m.Content[i].Value] {
			out.Content = append(out.Content, m.Content[i], m.Content[i+1])
		}
	}
	if len(out.Content) == 0 {
		return nil
	}
	b, err := yaml.Marshal(out)
	if err != nil {
		return nil
	}
	return b
}

// Sections reads a markdown body's sections: its level-two headings,
// found by goldmark (so a "## " line inside a code block is not one), in
// file order; each section's text is the source between its heading and
// the next, verbatim, without the blank lines around it. A repeated
// heading keeps its first section.
func Sections(body []byte) (map[string]string, []string) {
	doc := ledger.ParseMarkdown(body)
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
	sections := map[string]string{}
	var order []string
	for i, h := range hs {
		end := len(body)
		if i+1 < len(hs) {
			end = hs[i+1].start
		}
		if _, dup := sections[h.title]; dup {
			continue
		}
		sections[h.title] = strings.Trim(string(body[h.after:end]), "\r\n")
		order = append(order, h.title)
	}
	return sections, order
}

// ParseMeta reads a handoff's front matter (its YAML, without the ---
// lines) into Meta.
func ParseMeta(fm []byte) (Meta, error) {
	meta, _, err := parseMeta(fm)
	return meta, err
}

func parseMeta(fm []byte) (Meta, metaYAML, error) {
	var m metaYAML
	if err := yaml.Unmarshal(fm, &m); err != nil {
		return Meta{}, m, fmt.Errorf("handoff front matter: %w", err)
	}
	meta := Meta{Stream: cmp.Or(m.Stream, m.Session), Event: m.Event, Trigger: m.Trigger, Reason: m.Reason,
		AgentSession: m.AgentSession, Agent: m.Agent, Model: m.Model, Branch: m.Branch, Commit: m.Commit, Dirty: m.Dirty,
		Author: m.Author, Version: m.Version}
	if n, err := strconv.Atoi(m.Tokens); err == nil && n > 0 {
		meta.Tokens = n
	}
	if m.Created != "" {
		t, err := time.Parse(time.RFC3339, m.Created)
		if err != nil {
			return Meta{}, m, fmt.Errorf("handoff front matter: created: %w", err)
		}
		meta.Created = t.UTC()
	}
	return meta, m, nil
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

// ErrUnclosed reports a handoff whose front matter is never closed.
var ErrUnclosed = errors.New("handoff front matter: no closing ---")

// SplitFrontMatter splits "---\n<yaml>\n---\n<body>" (ledger.SplitFront);
// without an opening "---" line, the whole file is the body.
func SplitFrontMatter(src []byte) (fm, body []byte, err error) {
	b, found, err := ledger.SplitFront(src)
	if err != nil {
		return nil, nil, ErrUnclosed
	}
	if !found {
		return nil, bytes.TrimPrefix(src, []byte("\ufeff")), nil
	}
	return b.YAML(src), src[b.Body:], nil
}
