package claude

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/testkit"
)

const goldenCommand = "/usr/local/bin/continuity hook --agent claude"

// TestRegisterGolden registers continuity in each testdata/register case
// (section settings.json, absent for a new file): what Registered said
// before, the registered file and what Unregister leaves are byte-exact
// against their goldens (rewritten with -update); registering again
// changes nothing and every event then runs the command.
func TestRegisterGolden(t *testing.T) {
	paths, _ := filepath.Glob("testdata/register/*.txtar")
	if len(paths) == 0 {
		t.Fatal("no testdata/register cases")
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			in, _ := testkit.Section(ar, "settings.json")
			h := Host{}
			before, err := h.Registered(in)
			if err != nil && in != nil {
				t.Fatal(err)
			}
			out, changed, err := h.Register(in, goldenCommand)
			if err != nil || !changed {
				t.Fatalf("Register: changed %v, %v", changed, err)
			}
			if again, changed, _ := h.Register(out, goldenCommand); changed || !bytes.Equal(again, out) {
				t.Error("registering twice changed the file")
			}
			after, err := h.Registered(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range events {
				if after.Events[ev] != goldenCommand {
					t.Errorf("after Register, %s runs %q", ev, after.Events[ev])
				}
			}
			removed, _, err := h.Unregister(out)
			if err != nil {
				t.Fatal(err)
			}
			status := func(st agent.Status) []byte {
				b, _ := json.MarshalIndent(st, "", "  ")
				return append(b, '\n')
			}
			got := map[string][]byte{"status-before": status(before), "registered.json": out,
				"status-after": status(after), "unregistered.json": removed}
			for _, name := range []string{"status-before", "registered.json", "status-after", "unregistered.json"} {
				if *testkit.Update {
					testkit.SetSection(ar, name, got[name])
					continue
				}
				want, ok := testkit.Section(ar, name)
				if !ok || !bytes.Equal(got[name], want) {
					t.Errorf("%s:\n%s\nwant:\n%s", name, got[name], want)
				}
			}
			if *testkit.Update {
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
