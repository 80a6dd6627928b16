package compat

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/ledger"
	"github.com/rogpeppe/go-internal/txtar"
)

var importTime = time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC)

// TestSectionGoldens runs testdata/ledger/sections/*.txtar: the first file
// is a section-style ledger (named as on disk); model.json is what Parse
// reads from it and import.md what Import writes.
func TestSectionGoldens(t *testing.T) {
	for _, file := range goldenFiles(t, "sections") {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			in := a.Files[0]
			path := "thoughts/ledgers/" + in.Name
			l, err := ParseLedger(path, in.Data)
			if err != nil {
				t.Fatal(err)
			}
			// A v3 ledger has front matter (session, updated) and its fields
			// in the body: read from there, edited through the front matter.
			front := ledger.HasFrontMatter(in.Data)
			if want := map[bool]ledger.Format{true: ledger.FrontMatter, false: ledger.Sections}[front]; l.Format != want {
				t.Errorf("format %v; want %v", l.Format, want)
			}
			if !front && string(l.Body) != string(in.Data) {
				t.Errorf("body of a section-style ledger must be the whole file")
			}
			model, err := json.MarshalIndent(l, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			model = append(model, '\n')

			_, err = ledger.SetScalar(in.Data, "now", "x")
			if !front && err == nil {
				t.Errorf("SetScalar edited a section-style ledger; want it refused until imported")
			}
			if front && err != nil {
				t.Errorf("SetScalar on a v3 ledger: %v", err)
			}
			// A root CONTINUITY.md (Codex's) has no name of its own: the
			// import command writes it to the ledger directory under one.
			target := path
			if in.Name == "CONTINUITY.md" {
				target = "thoughts/ledgers/CONTINUITY_codex.md"
			}
			out, err := Import(target, in.Data, importTime)
			if err != nil {
				t.Fatal(err)
			}
			imported, err := ParseLedger(target, out)
			if err != nil {
				t.Fatalf("imported ledger does not parse: %v\n%s", err, out)
			}
			if imported.Format != ledger.FrontMatter {
				t.Errorf("imported format %v", imported.Format)
			}
			// The import holds the same fields, now editable.
			if target != path {
				if imported.Stream != "codex" {
					t.Errorf("imported root CONTINUITY.md: session %q, want codex", imported.Stream)
				}
				imported.Stream = l.Stream
			}
			imported.Path, imported.Updated = l.Path, l.Updated
			again, _ := json.MarshalIndent(imported, "", "  ")
			if string(again)+"\n" != string(model) {
				t.Errorf("imported ledger reads differently:\n%s\nwant:\n%s", again, model)
			}
			if _, err := ledger.AppendItems(out, "next", "after import"); err != nil {
				t.Errorf("editing the imported ledger: %v", err)
			}
			if _, err := Import(target, out, importTime); err == nil {
				t.Errorf("importing a front matter ledger again: no error")
			}

			if *testkit.Update {
				testkit.SetSection(a, "model.json", model)
				testkit.SetSection(a, "import.md", out)
				if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want, _ := testkit.Section(a, "model.json"); string(model) != string(want) {
				t.Errorf("model:\n%s\nwant:\n%s", model, want)
			}
			if want, _ := testkit.Section(a, "import.md"); string(out) != string(want) {
				t.Errorf("import:\n%s\nwant:\n%s", out, want)
			}
		})
	}
}

func TestImportCRLF(t *testing.T) {
	src := "# Session: w\r\n\r\n## Goal\r\nPort it\r\n\r\n## Next\r\n- [ ] MSI\r\n\r\n## Notes\r\nkeep\r\n"
	out, err := Import("CONTINUITY_CLAUDE-w.md", []byte(src), importTime)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(out), "\n") != strings.Count(string(out), "\r\n") {
		t.Errorf("import of a CRLF file has bare LF line ends:\n%q", out)
	}
	if !strings.HasSuffix(string(out), "## Notes\r\nkeep\r\n") {
		t.Errorf("notes not kept verbatim:\n%q", out)
	}
}

func TestImportRefusesNonLedger(t *testing.T) {
	_, err := Import("x.md", []byte("# Shopping\n\n- milk\n"), importTime)
	var probs ledger.Problems
	if !errors.As(err, &probs) {
		t.Fatalf("Import of plain markdown: %v; want Problems", err)
	}
}

// goldenFiles lists testdata/ledger/DIR/*.txtar.
func goldenFiles(t testing.TB, dir string) []string {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "ledger", dir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files in %s: %v", dir, err)
	}
	return files
}
