package core

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/agent/claude"
	"github.com/continuity-md/continuity/internal/agent/codex"
	"github.com/continuity-md/continuity/internal/agent/gemini"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/internal/transcript"
)

// TestCorpusTable reads every transcript under $CONTINUITY_CORPUS (any
// depth; the host told by the records' shape) and prints, per host, what
// the handoffs would say of where the work stands: checks named with their
// outcome, commands that only look at files (left out), cut lists marked,
// errors (and how many resolved), plan items, commits. Skipped without the
// variable: the corpus is public transcripts collected by hand, not
// testdata.
//
//	CONTINUITY_CORPUS=/tmp/corpus go test ./internal/core -run TestCorpusTable -v
func TestCorpusTable(t *testing.T) {
	dir := testkit.Dir(t, "CONTINUITY_CORPUS")
	hosts := map[string]agent.Host{"claude": claude.Host{}, "codex": codex.Host{}, "gemini": gemini.Host{}}
	type row struct {
		sessions, unread                                int
		checks, passed, failed, named, unknown, running int
		commands, lookOnly                              int
		cut, atCap                                      int
		errors, resolved                                int
		withPlan, planItems                             int
		withCommits, commits                            int
		files, outside                                  int
	}
	rows := map[string]*row{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		host, root := hostOf(path)
		if host == "" {
			return nil
		}
		r := rows[host]
		if r == nil {
			r = &row{}
			rows[host] = r
		}
		f, err := transcript.ReadFile(path, hosts[host].NewDecoder(root, nil))
		if err != nil || f.Records == 0 {
			r.unread++
			return nil
		}
		r.sessions++
		for _, c := range f.Checks {
			r.checks++
			switch c.Outcome {
			case handoff.Passed:
				r.passed++
			case handoff.Failed:
				r.failed++
				if len(c.Failing) > 0 {
					r.named++
				}
			case handoff.Unknown:
				r.unknown++
			case handoff.Running:
				r.running++
			}
		}
		r.commands += len(f.Commands)
		r.lookOnly += f.LookOnly
		if f.Omitted != (handoff.Omitted{}) {
			r.cut++
		}
		if len(f.Commands) == transcript.MaxCommands || len(f.Errors) == transcript.MaxErrors || len(f.Files) == transcript.MaxFiles {
			r.atCap++
		}
		r.errors += len(f.Errors)
		for _, e := range f.Errors {
			if strings.HasSuffix(e, "(resolved: passed later)") {
				r.resolved++
			}
		}
		if len(f.Plan) > 0 {
			r.withPlan++
			r.planItems += len(f.Plan)
		}
		if len(f.Commits) > 0 {
			r.withCommits++
			r.commits += len(f.Commits)
		}
		r.files += len(f.Files)
		r.outside += len(f.Outside)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for h := range rows {
		names = append(names, h)
	}
	sort.Strings(names)
	var b bytes.Buffer
	fmt.Fprintln(&b, "| host | sessions (unread) | checks: passed / failed (named) / unknown / running | commands listed / look-only left out | lists cut, marked (at a bound) | errors (resolved) | sessions with a plan (items) | sessions with commits (commits) | files in repo / outside |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|---|")
	for _, h := range names {
		r := rows[h]
		fmt.Fprintf(&b, "| %s | %d (%d) | %d: %d / %d (%d) / %d / %d | %d / %d | %d (%d) | %d (%d) | %d (%d) | %d (%d) | %d / %d |\n",
			h, r.sessions, r.unread, r.checks, r.passed, r.failed, r.named, r.unknown, r.running, r.commands, r.lookOnly,
			r.cut, r.atCap, r.errors, r.resolved, r.withPlan, r.planItems, r.withCommits, r.commits, r.files, r.outside)
	}
	t.Log("\n" + b.String())
}

// cwdField is the working directory a transcript's first records name.
var cwdField = regexp.MustCompile(`"cwd":\s*"([^"]+)"`)

// hostOf tells a transcript's host from its first records (Codex's
// rollout records, Gemini CLI's chat header, Claude Code's entries) and
// the repository it ran in (the first cwd named; "" when none).
func hostOf(path string) (host, root string) {
	f, err := os.Open(path)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, _ := f.Read(head)
	head = head[:n]
	if m := cwdField.FindSubmatch(head); m != nil {
		root = string(m[1])
	}
	switch {
	case bytes.Contains(head, []byte(`"type":"session_meta"`)) || bytes.Contains(head, []byte(`"type":"turn_context"`)):
		return "codex", root
	case bytes.Contains(head, []byte(`"projectHash"`)) || bytes.Contains(head, []byte(`"type":"gemini"`)):
		return "gemini", root
	case bytes.Contains(head, []byte(`"sessionId"`)) || bytes.Contains(head, []byte(`"type":"assistant"`)) || bytes.Contains(head, []byte(`"type":"user"`)):
		return "claude", root
	}
	return "", ""
}
