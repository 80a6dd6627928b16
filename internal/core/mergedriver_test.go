package core

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/testkit"
)

const base = "---\nsession: auth\nnext:\n  - Tests\nupdated: 2026-11-20T10:00:00Z\n---\n"

func merge(t *testing.T, r *testkit.Repo, ours, theirs string, labels ...string) (MergeResult, error) {
	t.Helper()
	r.Write("base.md", base)
	r.Write("ours.md", ours)
	r.Write("theirs.md", theirs)
	o := MergeOptions{Base: "base.md", Ours: "ours.md", Theirs: "theirs.md", Path: "CONTINUITY_auth.md", Dir: r.Dir,
		Getenv: r.Getenv, Now: time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC)}
	if len(labels) == 2 {
		o.OursLabel, o.TheirsLabel = labels[0], labels[1]
	}
	return Merge(o)
}

// TestMergeByField: lists merge as unions; a conflict on a scalar is
// marked with the branches' names; a side that is not a ledger falls back
// to git's line merge.
func TestMergeByField(t *testing.T) {
	r := testkit.New(t, true)
	res, err := merge(t, r, strings.Replace(base, "  - Tests\n", "  - Tests\n  - Docs\n", 1), strings.Replace(base, "  - Tests\n", "  - Tests\n  - Logout\n", 1))
	if err != nil || res.Conflicts != 0 || res.ByLine != "" {
		t.Fatalf("union: %+v, %v", res, err)
	}
	if got := r.Read("ours.md"); !strings.Contains(got, "Docs") || !strings.Contains(got, "Logout") {
		t.Errorf("merged:\n%s", got)
	}
	res, err = merge(t, r, strings.Replace(base, "next:", "now: A\nnext:", 1), strings.Replace(base, "next:", "now: B\nnext:", 1), "main", "%X")
	if err != nil || res.Conflicts != 1 {
		t.Fatalf("conflict: %+v, %v", res, err)
	}
	if got := r.Read("ours.md"); !strings.Contains(got, "<<<<<<< main\n") || !strings.Contains(got, ">>>>>>> theirs\n") {
		t.Errorf("markers (an unexpanded %%X is theirs):\n%s", got)
	}
	res, err = merge(t, r, "not a ledger\nours\n", "not a ledger\ntheirs\n")
	if err != nil || res.ByLine == "" || res.Conflicts != 1 || !strings.Contains(r.Read("ours.md"), "<<<<<<< ours") {
		t.Errorf("line merge: %+v, %v\n%s", res, err, r.Read("ours.md"))
	}
}

func TestMergeMissingSide(t *testing.T) {
	r := testkit.New(t, true)
	_, err := Merge(MergeOptions{Base: "nosuch.md", Ours: "o", Theirs: "t", Path: "L.md", Dir: r.Dir, Getenv: r.Getenv})
	if err == nil || err.Error() != "merge L.md: nosuch.md: no such file" {
		t.Errorf("missing base: %v", err)
	}
}

// bigLedger is a valid ledger of at least n bytes: a long next list, then
// tail.
func bigLedger(n int, tail string) string {
	var b strings.Builder
	b.WriteString("---\nsession: auth\nnext:\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "  - item %d of a list nobody should keep this long\n", i)
	}
	return b.String() + tail + "---\n# Notes\n"
}

// TestMergeBoundsMemory: sides past the bound are not parsed (a YAML tree
// of megabytes takes fifty times its size): the driver leaves git-style
// conflict markers around the two whole sides, exits with one conflict,
// and allocates a small part of one side's size, whatever the sides hold.
func TestMergeBoundsMemory(t *testing.T) {
	r := testkit.New(t, true)
	const size = 12 << 20
	baseText := bigLedger(size, "")
	r.Write("base.md", baseText)
	r.Write("ours.md", bigLedger(size, "done:\n  - ours\n"))
	r.Write("theirs.md", bigLedger(size, "done:\n  - theirs\n"))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := Merge(MergeOptions{Base: "base.md", Ours: "ours.md", Theirs: "theirs.md", Path: "CONTINUITY_auth.md", Dir: r.Dir,
		Getenv: r.Getenv, Now: time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC), OursLabel: "main"})
	runtime.ReadMemStats(&after)
	if err != nil || res.Conflicts != 1 {
		t.Fatalf("merge: %+v, %v", res, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
		t.Errorf("allocated %d MiB for sides of %d MiB", alloc>>20, size>>20)
	}
	got := readFile(t, r, "ours.md")
	want := "<<<<<<< main\n" + bigLedger(size, "done:\n  - ours\n") + "=======\n" + bigLedger(size, "done:\n  - theirs\n") + ">>>>>>> theirs\n"
	if got != want {
		t.Errorf("merged: %d bytes, want %d; starts %.40q", len(got), len(want), got)
	}
	// One side changed, the other not: that side, cleanly.
	if err := os.WriteFile(filepath.Join(r.Dir, "ours.md"), []byte(baseText), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = Merge(MergeOptions{Base: "base.md", Ours: "ours.md", Theirs: "theirs.md", Path: "CONTINUITY_auth.md", Dir: r.Dir, Getenv: r.Getenv})
	if err != nil || res.Conflicts != 0 || readFile(t, r, "ours.md") != bigLedger(size, "done:\n  - theirs\n") {
		t.Errorf("theirs only: %+v, %v", res, err)
	}
}

func readFile(t *testing.T, r *testkit.Repo, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.Dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
