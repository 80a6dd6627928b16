package ledger

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/rogpeppe/go-internal/txtar"
)

var mergeNow = time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC)

var conflictsRE = regexp.MustCompile(`(?m)^conflicts: (\d+)$`)

// mergeCase is one testdata/ledger/merge/*.txtar golden.
type mergeCase struct {
	name                     string
	file                     string
	archive                  *txtar.Archive
	base, ours, theirs, want []byte
	wantErr                  string
	conflicts                int
}

func mergeCases(t testing.TB) []mergeCase {
	var out []mergeCase
	for _, file := range goldenFiles(t, "merge") {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		c := mergeCase{name: strings.TrimSuffix(filepath.Base(file), ".txtar"), file: file, archive: a}
		var ok [3]bool
		c.base, ok[0] = archiveFile(a, "base.md")
		c.ours, ok[1] = archiveFile(a, "ours.md")
		c.theirs, ok[2] = archiveFile(a, "theirs.md")
		if ok != [3]bool{true, true, true} {
			t.Fatalf("%s: needs base.md, ours.md and theirs.md", file)
		}
		c.want, _ = archiveFile(a, "want.md")
		if e, ok := archiveFile(a, "error"); ok {
			c.wantErr = strings.TrimSpace(string(e))
		}
		if m := conflictsRE.FindSubmatch(a.Comment); m != nil {
			c.conflicts, _ = strconv.Atoi(string(m[1]))
		}
		out = append(out, c)
	}
	return out
}

// TestMergeGoldens runs each testdata/ledger/merge/*.txtar: merging ours
// and theirs from base gives want.md with the conflicts the comment names
// ("conflicts: N", else none), or the error in section "error".
func TestMergeGoldens(t *testing.T) {
	for _, c := range mergeCases(t) {
		t.Run(c.name, func(t *testing.T) {
			got, n, err := Merge(c.base, c.ours, c.theirs, mergeNow)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v; want one containing %q", err, c.wantErr)
				}
				if got != nil {
					t.Errorf("error with bytes: %q", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n != c.conflicts {
				t.Errorf("%d conflicts; want %d", n, c.conflicts)
			}
			if n == 0 {
				if _, err := Parse("CONTINUITY_x.md", got); err != nil {
					t.Errorf("clean merge does not parse: %v\n%s", err, got)
				}
				checkMergeKeepsChanges(t, c.base, c.ours, c.theirs, got)
			} else if !bytes.Contains(got, []byte(markerOurs)) {
				t.Errorf("conflicts reported but no markers:\n%s", got)
			}
			if *testkit.Update {
				setSection(c.archive, "want.md", got)
				if err := os.WriteFile(c.file, txtar.Format(c.archive), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if c.want == nil {
				t.Fatal("no want.md (run with -update)")
			}
			if !bytes.Equal(got, c.want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// TestMergeSymmetric checks that swapping ours and theirs in a clean merge
// gives the same fields (list order aside).
func TestMergeSymmetric(t *testing.T) {
	for _, c := range mergeCases(t) {
		if c.wantErr != "" || c.conflicts > 0 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			ab, n1, err1 := Merge(c.base, c.ours, c.theirs, mergeNow)
			ba, n2, err2 := Merge(c.base, c.theirs, c.ours, mergeNow)
			if err1 != nil || err2 != nil || n1 != 0 || n2 != 0 {
				t.Fatalf("merges: %v, %v, conflicts %d, %d", err1, err2, n1, n2)
			}
			l1, err1 := Parse("x.md", ab)
			l2, err2 := Parse("x.md", ba)
			if err1 != nil || err2 != nil {
				t.Fatalf("parse: %v, %v", err1, err2)
			}
			for _, l := range []*Ledger{l1, l2} {
				for _, s := range [][]string{l.Constraints, l.Done, l.Next, l.Questions, l.Files} {
					sort.Strings(s)
				}
				sort.Slice(l.Decisions, func(i, j int) bool { return l.Decisions[i].Decision < l.Decisions[j].Decision })
				l.Src, l.Body, l.Present, l.Extra = nil, nil, nil, "" // the model only: unknown keys keep each side's order
			}
			if !reflect.DeepEqual(l1, l2) {
				t.Errorf("ours+theirs:\n%+v\ntheirs+ours:\n%+v", l1, l2)
			}
		})
	}
}

// checkMergeKeepsChanges checks a clean merge against its sides: every list
// item a side added is present, every base item a side removed is absent,
// and decisions a side added are present.
func checkMergeKeepsChanges(t testing.TB, base, ours, theirs, merged []byte) {
	t.Helper()
	lb := &Ledger{}
	if len(bytes.TrimSpace(base)) > 0 {
		var err error
		if lb, err = Parse("x.md", base); err != nil {
			t.Fatalf("base: %v", err)
		}
	}
	lo, err1 := Parse("x.md", ours)
	lt, err2 := Parse("x.md", theirs)
	lm, err3 := Parse("x.md", merged)
	if err1 != nil || err2 != nil || err3 != nil {
		t.Fatalf("parse: %v, %v, %v", err1, err2, err3)
	}
	lists := func(l *Ledger) map[string][]string {
		return map[string][]string{KeyConstraints: l.Constraints, KeyDone: l.Done, KeyNext: l.Next, KeyQuestions: l.Questions, KeyFiles: l.Files}
	}
	b, o, th, m := lists(lb), lists(lo), lists(lt), lists(lm)
	for key := range b {
		inB, inM := setOf(b[key]), setOf(m[key])
		for _, side := range []map[string][]string{o, th} {
			inS := setOf(side[key])
			for _, it := range side[key] {
				if !inB[it] && !inM[it] {
					t.Errorf("%s: added item %q lost", key, it)
				}
			}
			for _, it := range b[key] {
				if !inS[it] && inM[it] {
					t.Errorf("%s: removed item %q is back", key, it)
				}
			}
		}
	}
	decs := func(l *Ledger) map[string]bool {
		s := map[string]bool{}
		for _, d := range l.Decisions {
			s[d.Decision] = true
		}
		return s
	}
	db, dm := decs(lb), decs(lm)
	for _, side := range []*Ledger{lo, lt} {
		for _, d := range side.Decisions {
			if !db[d.Decision] && !dm[d.Decision] {
				t.Errorf("added decision %q lost", d.Decision)
			}
		}
	}
}

func TestMergeUpdated(t *testing.T) {
	doc := func(updated string) []byte { return []byte("---\ngoal: G\nupdated: " + updated + "\n---\n") }
	for _, c := range []struct{ base, ours, theirs, want string }{
		{"2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z", "2026-11-03T00:00:00Z", "2026-11-03T00:00:00Z"},
		{"2026-11-01T00:00:00Z", "2026-11-03T00:00:00Z", "2026-11-02T00:00:00Z", "2026-11-03T00:00:00Z"},
		{"2026-11-01T00:00:00Z", "2026-11-02T02:00:00+03:00", "2026-11-02T00:00:00Z", "2026-11-02T00:00:00Z"},
		{"soon", "soon", "later", "later"},
		{"soon", "now", "soon", "now"},
		{"soon", "now", "later", FormatTime(mergeNow)},
		{"soon", "2026-11-02T00:00:00Z", "later", FormatTime(mergeNow)},
	} {
		got, n, err := Merge(doc(c.base), doc(c.ours), doc(c.theirs), mergeNow)
		if err != nil || n != 0 {
			t.Errorf("%+v: %v, %d conflicts", c, err, n)
			continue
		}
		l, err := Parse("x.md", got)
		if err != nil {
			t.Fatal(err)
		}
		if l.Updated != c.want {
			t.Errorf("%+v: updated %q", c, l.Updated)
		}
	}
}

func TestMergeCRLF(t *testing.T) {
	crlf := func(s string) []byte { return []byte(strings.ReplaceAll(s, "\n", "\r\n")) }
	base := crlf("---\nnow: A\nnext:\n  - x\n---\nbody\n")
	ours := crlf("---\nnow: B\nnext:\n  - x\n  - y\n---\nbody\n")
	theirs := crlf("---\nnow: C\nnext:\n  - x\n  - z\n---\nbody\n")
	got, n, err := Merge(base, ours, theirs, mergeNow)
	if err != nil {
		t.Fatal(err)
	}
	want := crlf("---\n<<<<<<< ours\nnow: B\n=======\nnow: C\n>>>>>>> theirs\nnext:\n  - x\n  - y\n  - z\n---\nbody\n")
	if n != 1 || !bytes.Equal(got, want) {
		t.Errorf("%d conflicts, got:\n%q\nwant:\n%q", n, got, want)
	}
}

func TestMerge3(t *testing.T) {
	for _, c := range []struct {
		name, base, ours, theirs, want string
		conflicts                      int
	}{
		{"one side", "a\nb\nc\n", "a\nB\nc\n", "a\nb\nc\n", "a\nB\nc\n", 0},
		{"other side", "a\nb\nc\n", "a\nb\nc\n", "a\nb\nC\n", "a\nb\nC\n", 0},
		{"both apart", "a\nb\nc\nd\ne\n", "A\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n", "A\nb\nc\nd\nE\n", 0},
		{"same change", "a\nb\n", "a\nX\n", "a\nX\n", "a\nX\n", 0},
		{"both insert at end", "a\n", "a\nb\n", "a\nc\n", "a\n<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\n", 1},
		{"delete vs edit", "a\nb\nc\n", "a\nc\n", "a\nB\nc\n", "a\n<<<<<<< ours\n=======\nB\n>>>>>>> theirs\nc\n", 1},
		{"no final newline", "a\nb", "a\nB", "a\nC", "a\n<<<<<<< ours\nB\n=======\nC\n>>>>>>> theirs\n", 1},
		{"two conflicts", "a\nb\nc\nd\ne\n", "A1\nb\nc\nd\nE1\n", "A2\nb\nc\nd\nE2\n",
			"<<<<<<< ours\nA1\n=======\nA2\n>>>>>>> theirs\nb\nc\nd\n<<<<<<< ours\nE1\n=======\nE2\n>>>>>>> theirs\n", 2},
		{"inserts at both ends", "a\nb\nc\n", "x\na\nb\nc\n", "a\nb\nc\ny\n", "x\na\nb\nc\ny\n", 0},
		// As git merge-file: a block one side moved next to the other's edit conflicts.
		{"moved block", "a\nb\nc\nd\n", "c\nd\na\nb\n", "a\nb\nc\nd\nz\n", "c\nd\n<<<<<<< ours\na\nb\n=======\nz\n>>>>>>> theirs\n", 1},
	} {
		got, n := merge3([]byte(c.base), []byte(c.ours), []byte(c.theirs), "\n")
		if string(got) != c.want || n != c.conflicts {
			t.Errorf("%s: got %d conflicts:\n%s\nwant %d:\n%s", c.name, n, got, c.conflicts, c.want)
		}
	}
}

// TestMatchLinesIsLCS compares matchLines with a dynamic-programming LCS
// length on random small inputs, and checks the matches are real and
// increasing.
func TestMatchLinesIsLCS(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for iter := 0; iter < 2000; iter++ {
		a := make([]int, r.Intn(12))
		b := make([]int, r.Intn(12))
		for i := range a {
			a[i] = r.Intn(4)
		}
		for i := range b {
			b[i] = r.Intn(4)
		}
		m := matchLines(a, b)
		got, last := 0, -1
		for i, j := range m {
			if j < 0 {
				continue
			}
			if j <= last || a[i] != b[j] {
				t.Fatalf("%v %v: bad match %v", a, b, m)
			}
			last = j
			got++
		}
		if want := lcsLen(a, b); got != want {
			t.Fatalf("%v %v: %d matches, LCS is %d (%v)", a, b, got, want, m)
		}
	}
}

func lcsLen(a, b []int) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// TestMergeLargeBody merges bodies past the diff's memory bound: the result
// is still a merge (one conflict for the unmatched middle), not a panic.
func TestMergeLargeBody(t *testing.T) {
	var base, ours, theirs strings.Builder
	for i := 0; i < 6000; i++ {
		fmt.Fprintf(&base, "line %d\n", i)
		fmt.Fprintf(&ours, "ours %d\n", i)
		fmt.Fprintf(&theirs, "line %d\n", i)
	}
	theirs.WriteString("theirs' last line\n")
	fm := "---\ngoal: G\n---\n"
	got, n, err := Merge([]byte(fm+base.String()), []byte(fm+ours.String()), []byte(fm+theirs.String()), mergeNow)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 || !bytes.Contains(got, []byte("theirs' last line")) || !bytes.Contains(got, []byte("ours 5999\n")) {
		t.Errorf("%d conflicts, %d bytes", n, len(got))
	}
}

// FuzzMerge merges fuzzed ledgers: no panic; an error returns no bytes; a
// clean merge parses and keeps every side's additions and removals.
func FuzzMerge(f *testing.F) {
	for _, c := range mergeCases(f) {
		f.Add(c.base, c.ours, c.theirs)
	}
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		got, n, err := Merge(base, ours, theirs, mergeNow)
		if err != nil {
			if got != nil {
				t.Fatalf("error %v with bytes", err)
			}
			return
		}
		if n > 0 {
			return
		}
		if _, err := Parse("x.md", got); err != nil {
			t.Fatalf("clean merge does not parse: %v\nbase %q\nours %q\ntheirs %q\ngot %q", err, base, ours, theirs, got)
		}
		checkMergeKeepsChanges(t, base, ours, theirs, got)
	})
}
