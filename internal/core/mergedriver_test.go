package core

import (
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
