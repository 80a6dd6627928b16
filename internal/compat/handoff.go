package compat

import (
	"bytes"
	"strings"

	"github.com/continuity-md/continuity/handoff"
	"go.yaml.in/yaml/v3"
)

// The forms of Continuous-Claude's handoffs ParseHandoff reads.
const (
	FormCCv2 = "continuous-claude-v2" // markdown: Task(s), Action Items & Next Steps, …
	FormCCv3 = "continuous-claude-v3" // YAML: goal, now, done_this_session, next, …
)

// ccMeta is the front matter keys of Continuous-Claude's handoffs.
type ccMeta struct {
	Session     string `yaml:"session"`
	Date        string `yaml:"date"`
	SessionName string `yaml:"session_name"`
	GitCommit   string `yaml:"git_commit"`
	Topic       string `yaml:"topic"`
	Branch      string `yaml:"branch"` // continuity's key too, read here when the YAML is loose
}

func (m ccMeta) any() bool {
	return m.Date != "" || m.SessionName != "" || m.GitCommit != "" || m.Topic != ""
}

// ParseHandoff reads a handoff in any form continuity knows: its own
// (handoff.Parse), and Continuous-Claude's v2 markdown (front matter date,
// session_name, topic, git_commit; sections Task(s), Action Items & Next
// Steps, …) and v3 YAML (goal, now, done_this_session, decisions, findings,
// worked, failed, next), with or without a front matter block. Their date
// becomes Meta.Created, session_name the session, and a Summary section is
// made from what they say, so they are listed, dated and injected like
// continuity's own.
func ParseHandoff(src []byte) (*handoff.Parsed, error) {
	fm, body, err := handoff.SplitFrontMatter(src)
	if err != nil {
		return nil, err
	}
	var cc ccMeta
	meta := handoff.Meta{}
	if fm != nil {
		m, merr := handoff.ParseMeta(fm)
		yerr := yaml.Unmarshal(fm, &cc)
		switch {
		case merr == nil:
			meta = m
		case yerr == nil || !ccFrontMatter(fm):
			return nil, merr
		default:
			// People and models write Continuous-Claude's front matter by
			// hand ("git_commit: 9c41d07 (uncommitted: config)"): read its
			// key: value lines rather than lose the handoff.
			if looseYAML(fm).Decode(&cc) != nil {
				return nil, merr
			}
		}
	}
	v3, isV3 := yamlHandoff(body)
	if !isV3 && !cc.any() {
		p, err := handoff.Parse(src)
		if err != nil {
			return nil, err
		}
		if _, has := p.Sections[handoff.HeadingSummary]; !has && ccSections(p) {
			p.Form = FormCCv2
			fromV2(p, "", title(body))
		}
		return p, nil
	}
	p := &handoff.Parsed{Form: FormCCv2, Meta: meta}
	if isV3 {
		if fm == nil {
			// A YAML file without a front matter block: its keys are the meta.
			if m, err := handoff.ParseMeta(body); err == nil {
				p.Meta = m
			}
			if yaml.Unmarshal(body, &cc) != nil {
				cc = ccMeta{}
				_ = v3.Decode(&cc)
			}
		}
		applyCC(&p.Meta, cc)
		p.Form = FormCCv3
		p.Sections = map[string]string{}
		fromV3(p, v3)
		return p, nil
	}
	applyCC(&p.Meta, cc)
	p.Sections, p.Order = handoff.Sections(body)
	if _, has := p.Sections[handoff.HeadingSummary]; !has {
		fromV2(p, cc.Topic, title(body))
	} else {
		p.Form = handoff.FormContinuity
	}
	return p, nil
}

// applyCC fills Meta from Continuous-Claude's keys where continuity's are
// absent: date, session_name and git_commit.
func applyCC(m *handoff.Meta, cc ccMeta) {
	if m.Created.IsZero() && cc.Date != "" {
		m.Created = handoff.LooseTime(cc.Date)
	}
	if m.Stream == "" {
		m.Stream = cc.SessionName
	}
	if m.Stream == "" {
		m.Stream = cc.Session
	}
	if m.Branch == "" {
		m.Branch = cc.Branch
	}
	if m.Commit == "" {
		if f := strings.Fields(cc.GitCommit); len(f) > 0 {
			m.Commit = f[0]
		}
	}
}

// ccFrontMatter reports a front matter in Continuous-Claude's form (and
// not continuity's, which has created).
func ccFrontMatter(fm []byte) bool {
	has := func(k string) bool {
		return bytes.HasPrefix(fm, []byte(k)) || bytes.Contains(fm, []byte("\n"+k))
	}
	return !has("created:") && (has("date:") || has("session_name:") || has("git_commit:") || has("topic:"))
}

// looseYAML reads YAML that does not parse the way a person reads it: each
// "key: value" line at the start of a line is a key, "- item" lines under
// it (or "[a, b]") its list. It is the fallback for hand-written handoffs.
func looseYAML(src []byte) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	var cur *yaml.Node
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimRight(line, "\r")
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if line[0] != ' ' && line[0] != '\t' && line[0] != '-' {
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				cur = nil
				continue
			}
			v = strings.TrimSpace(v)
			if strings.HasPrefix(v, "#") {
				v = "" // a comment, not a value
			} else if i := strings.Index(v, " #"); i > 0 && v[0] != '"' && v[0] != '\'' {
				v = strings.TrimSpace(v[:i])
			}
			cur = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: unquote(v)}
			if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
				cur = &yaml.Node{Kind: yaml.SequenceNode}
				for _, it := range strings.Split(v[1:len(v)-1], ",") {
					if it = unquote(strings.TrimSpace(it)); it != "" {
						cur.Content = append(cur.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: it})
					}
				}
			}
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.TrimSpace(k)}, cur)
			continue
		}
		if cur == nil || !strings.HasPrefix(t, "- ") {
			continue
		}
		if cur.Kind == yaml.ScalarNode && cur.Value == "" {
			*cur = yaml.Node{Kind: yaml.SequenceNode}
		}
		if cur.Kind != yaml.SequenceNode {
			continue
		}
		item := strings.TrimSpace(t[2:])
		if k, v, ok := strings.Cut(item, ": "); ok && !strings.ContainsAny(k, " \t") {
			// "- task: X" starts a mapping; "  files: [...]" lines under it
			// are read with the next items as its detail.
			item = unquote(strings.TrimSpace(v))
			if k != "task" && k != "decision" {
				item = k + ": " + item
			}
		}
		cur.Content = append(cur.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: unquote(item)})
	}
	return m
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

// yamlHandoff returns the mapping of a Continuous-Claude v3 handoff's
// YAML (it has goal: or now:); ok is false for a markdown body. YAML that
// does not parse is read line by line (looseYAML) when a line starts with
// goal: or now:.
func yamlHandoff(body []byte) (*yaml.Node, bool) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, false
	}
	var doc yaml.Node
	var m *yaml.Node
	if err := yaml.Unmarshal(body, &doc); err == nil && doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		m = doc.Content[0]
	} else if err != nil && (bytes.HasPrefix(body, []byte("goal:")) || bytes.Contains(body, []byte("\ngoal:")) ||
		bytes.HasPrefix(body, []byte("now:")) || bytes.Contains(body, []byte("\nnow:"))) {
		m = looseYAML(body)
	} else {
		return nil, false
	}
	if m.Kind != yaml.MappingNode || (yamlKey(m, "goal") == nil && yamlKey(m, "now") == nil) {
		return nil, false
	}
	return m, true
}

// yamlKey returns the value of key in mapping m, or nil.
func yamlKey(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// yamlText renders a value on one line: a scalar's text, a list joined
// by ", ", a mapping as "key: value; ...", a task with its files, a
// decision with its rationale.
func yamlText(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return ""
		}
		return strings.TrimSpace(n.Value)
	case yaml.AliasNode:
		return yamlText(n.Alias)
	case yaml.SequenceNode:
		var parts []string
		for _, c := range n.Content {
			if t := yamlText(c); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, ", ")
	case yaml.MappingNode:
		for _, k := range []string{"task", "decision"} {
			if v := yamlKey(n, k); v != nil {
				s := yamlText(v)
				for _, extra := range []string{"files", "rationale", "why", "reason", "changes"} {
					if e := yamlText(yamlKey(n, extra)); e != "" && extra != k {
						s += " (" + extra + ": " + e + ")"
					}
				}
				return s
			}
		}
		var parts []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			if v := yamlText(n.Content[i+1]); v != "" {
				parts = append(parts, n.Content[i].Value+": "+v)
			} else {
				parts = append(parts, n.Content[i].Value)
			}
		}
		return strings.Join(parts, "; ")
	}
	return ""
}

// yamlList renders a value as list items: a sequence item by item, a
// mapping pair by pair, a scalar as one item.
func yamlList(n *yaml.Node) []string {
	if n == nil {
		return nil
	}
	var out []string
	switch n.Kind {
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if t := yamlText(c); t != "" {
				out = append(out, t)
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if v := yamlText(n.Content[i+1]); v != "" {
				out = append(out, n.Content[i].Value+": "+v)
			}
		}
	default:
		if t := yamlText(n); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// fromV3 reads a Continuous-Claude v3 YAML handoff and writes its Summary:
// what is current first (the injection cuts from the end).
func fromV3(p *handoff.Parsed, m *yaml.Node) {
	p.Goal = yamlText(yamlKey(m, "goal"))
	p.Now = yamlText(yamlKey(m, "now"))
	p.Next = yamlList(yamlKey(m, "next"))
	if p.Meta.Created.IsZero() {
		p.Meta.Created = handoff.LooseTime(yamlText(yamlKey(m, "date")))
	}
	if p.Meta.Stream == "" {
		p.Meta.Stream = yamlText(yamlKey(m, "session"))
	}
	var b strings.Builder
	line := func(label, v string) {
		if v != "" {
			b.WriteString(label + ": " + v + "\n")
		}
	}
	line("Goal", p.Goal)
	line("Now", p.Now)
	list := func(label string, items []string) {
		if len(items) == 0 {
			return
		}
		b.WriteString("\n" + label + ":\n")
		for _, it := range items {
			b.WriteString("- " + it + "\n")
		}
	}
	list("Next", p.Next)
	list("Blockers", yamlList(yamlKey(m, "blockers")))
	list("Questions", yamlList(yamlKey(m, "questions")))
	list("Done this session", yamlList(yamlKey(m, "done_this_session")))
	list("Decisions", yamlList(yamlKey(m, "decisions")))
	list("Findings", yamlList(yamlKey(m, "findings")))
	list("Worked", yamlList(yamlKey(m, "worked")))
	list("Failed", yamlList(yamlKey(m, "failed")))
	if t := yamlText(yamlKey(m, "test")); t != "" {
		b.WriteString("\nTest: " + t + "\n")
	}
	p.Sections[handoff.HeadingSummary] = strings.TrimSpace(b.String())
	p.Order = []string{handoff.HeadingSummary}
}

// ccSection returns the text of the first section whose heading starts
// with one of names (case-insensitive), or "".
func ccSection(p *handoff.Parsed, names ...string) string {
	for _, h := range p.Order {
		low := strings.ToLower(h)
		for _, n := range names {
			if strings.HasPrefix(low, n) {
				return strings.TrimSpace(p.Sections[h])
			}
		}
	}
	return ""
}

// ccSections reports a body with Continuous-Claude v2's sections.
func ccSections(p *handoff.Parsed) bool {
	return ccSection(p, "task", "action items", "critical references", "recent changes", "learnings") != ""
}

// title returns a markdown body's first level-one heading without a
// "Handoff:" prefix.
func title(body []byte) string {
	for _, line := range strings.Split(string(body), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "# ") {
			t := strings.TrimSpace(line[2:])
			for _, pre := range []string{"Handoff:", "Handoff —", "Handoff -", "Session Handoff:"} {
				t = strings.TrimSpace(strings.TrimPrefix(t, pre))
			}
			return t
		}
	}
	return ""
}

// topItems returns a markdown list's top-level items, first lines only,
// without markers, boxes or emphasis.
func topItems(md string) []string {
	var out []string
	for _, line := range strings.Split(md, "\n") {
		if line == "" || line[0] == ' ' || line[0] == '\t' {
			continue
		}
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "):
			t = t[2:]
		default:
			i := 0
			for i < len(t) && t[i] >= '0' && t[i] <= '9' {
				i++
			}
			if i == 0 || i+1 >= len(t) || t[i] != '.' && t[i] != ')' || t[i+1] != ' ' {
				continue
			}
			t = t[i+2:]
		}
		for _, box := range []string{"[ ] ", "[x] ", "[X] ", "[→] ", "[->] ", "[~] "} {
			t = strings.TrimPrefix(t, box)
		}
		t = strings.TrimSpace(strings.ReplaceAll(t, "**", ""))
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

// fromV2 reads a Continuous-Claude v2 markdown handoff: its topic (or
// title) is the goal, its action items the next steps, the first task in
// progress (or else the first next step) what to do now; the Summary holds
// the tasks, the next steps and the critical references, in that order.
func fromV2(p *handoff.Parsed, topic, heading string) {
	p.Goal = strings.TrimSpace(topic)
	if p.Goal == "" {
		p.Goal = heading
	}
	tasks := ccSection(p, "task")
	next := ccSection(p, "action items", "next steps", "next")
	p.Next = topItems(next)
	for _, line := range strings.Split(tasks, "\n") {
		low := strings.ToLower(line)
		if strings.Contains(low, "in progress") || strings.Contains(low, "in_progress") || strings.Contains(low, "wip") ||
			strings.Contains(low, "next up") || strings.Contains(line, "⏳") || strings.Contains(line, "🔄") || strings.Contains(line, "[→]") || strings.Contains(line, "[->]") {
			t := strings.TrimSpace(line)
			if strings.HasPrefix(t, "|") {
				t = strings.TrimSpace(strings.Split(strings.Trim(t, "|"), "|")[0])
			}
			if items := topItems(t); len(items) > 0 {
				t = items[0]
			}
			t = strings.TrimSpace(strings.TrimLeft(strings.ReplaceAll(t, "**", ""), "⏳🔄 "))
			p.Now = t
			break
		}
	}
	if p.Now == "" && len(p.Next) > 0 {
		p.Now = p.Next[0]
	}
	var b strings.Builder
	if p.Goal != "" {
		b.WriteString("Topic: " + p.Goal + "\n")
	}
	for _, part := range []struct{ label, text string }{
		{"Tasks", tasks}, {"Next steps", next}, {"Critical references", ccSection(p, "critical references")},
	} {
		if part.text != "" {
			b.WriteString("\n" + part.label + ":\n" + part.text + "\n")
		}
	}
	p.Sections[handoff.HeadingSummary] = strings.TrimSpace(b.String())
}
