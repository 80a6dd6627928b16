package compat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/rogpeppe/go-internal/txtar"
)

// TestCCHandoffGoldens runs testdata/cc/handoffs/*.txtar: the first file
// is a Continuous-Claude handoff (named as on disk); parsed.json is what
// ParseHandoff and handoff.NameTime read from it.
func TestCCHandoffGoldens(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "cc", "handoffs", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			in := a.Files[0]
			p, err := ParseHandoff(in.Data)
			if err != nil {
				t.Fatal(err)
			}
			if p.Form == handoff.FormContinuity {
				t.Errorf("read as continuity's own handoff")
			}
			if p.Meta.Created.IsZero() {
				t.Errorf("not dated")
			}
			if !handoff.IsFile(in.Name) {
				t.Errorf("%s is not taken for a handoff", in.Name)
			}
			nt, exact, ok := handoff.NameTime(in.Name)
			got := struct {
				Form     string    `json:"form"`
				Created  time.Time `json:"created"`
				NameTime string    `json:"name_time"`
				Session  string    `json:"session"`
				Commit   string    `json:"commit,omitempty"`
				Branch   string    `json:"branch,omitempty"`
				Goal     string    `json:"goal"`
				Now      string    `json:"now"`
				Next     []string  `json:"next"`
				Summary  string    `json:"summary"`
			}{p.Form, p.Meta.Created, "", p.Meta.Stream, p.Meta.Commit, p.Meta.Branch, p.Goal, p.Now, p.Next, p.Sections["Summary"]}
			if ok {
				got.NameTime = nt.Format("2006-01-02 15:04:05")
				if exact {
					got.NameTime += " UTC"
				}
			}
			out, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, '\n')
			i := -1
			for k, f := range a.Files {
				if f.Name == "parsed.json" {
					i = k
				}
			}
			if i < 0 {
				t.Fatal("no parsed.json section")
			}
			if *testkit.Update {
				a.Files[i].Data = out
				if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if string(out) != string(a.Files[i].Data) {
				t.Errorf("parsed:\n%s\nwant:\n%s", out, a.Files[i].Data)
			}
		})
	}
}
