package handoff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/rogpeppe/go-internal/txtar"
)

// TestCCHandoffGoldens runs testdata/cc/handoffs/*.txtar: the first file
// is a Continuous-Claude handoff (named as on disk); parsed.json is what
// Parse and NameTime read from it.
func TestCCHandoffGoldens(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "cc", "handoffs", "*.txtar"))
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
			p, err := Parse(in.Data)
			if err != nil {
				t.Fatal(err)
			}
			if p.Form == FormContinuity {
				t.Errorf("read as continuity's own handoff")
			}
			if p.Meta.Created.IsZero() {
				t.Errorf("not dated")
			}
			if !IsFile(in.Name) {
				t.Errorf("%s is not taken for a handoff", in.Name)
			}
			nt, exact, ok := NameTime(in.Name)
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
			}{p.Form, p.Meta.Created, "", p.Meta.Session, p.Meta.Commit, p.Meta.Branch, p.Goal, p.Now, p.Next, p.Sections["Summary"]}
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

// TestLatestByDate: a Continuous-Claude folder's newest handoff is the
// newest by date, whatever the names' alphabetical order, the .yaml ones
// included; files without a date are not handoffs.
func TestLatestByDate(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		// Sorts last by name; written first.
		"2026-10-14T20-00-00Z_session-end_aaaaaaaa.md": "---\ncreated: \"2026-10-14T20:00:00.000Z\"\n---\n",
		// Local time 09:30 in its name; its date says 07:30Z, the newest.
		"2026-10-15_09-30_override-endpoint.yaml": "---\nsession: g\ndate: 2026-10-15T07:30:00Z\n---\ngoal: x\n",
		// A later local time in its name, an earlier date inside.
		"2026-10-15_09-45-00_notes.md": "---\ndate: 2026-10-15T07:00:00Z\n---\n# Handoff\n",
		"README.md":                    "---\ndate: 2027-01-01\n---\n",
		"scratch.md":                   "no date at all\n",
		"undated.yml":                  "goal: y\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Latest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(got) != "2026-10-15_09-30_override-endpoint.yaml" {
		t.Errorf("Latest = %s", filepath.Base(got))
	}
	var names []string
	for _, f := range Files(dir) {
		names = append(names, filepath.Base(f))
	}
	want := "2026-10-14T20-00-00Z_session-end_aaaaaaaa.md 2026-10-15_09-45-00_notes.md 2026-10-15_09-30_override-endpoint.yaml"
	if strings.Join(names, " ") != want {
		t.Errorf("Files = %v\nwant %s", names, want)
	}
}
