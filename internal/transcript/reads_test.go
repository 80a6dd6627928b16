package transcript

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/continuity-md/continuity/internal/testkit"
)

// TestReadTargets: the files a command reads, whatever its spelling:
// quoted patterns holding a pipe, escapes, a leading cd, option values,
// redirections, and a search's directory left out.
func TestReadTargets(t *testing.T) {
	for _, c := range []struct {
		cmd, dir string
		want     []string
	}{
		{`cat go.mod`, "", []string{"go.mod"}},
		{`sed -n '1,80p' internal/core/hook.go`, "", []string{"internal/core/hook.go"}},
		{`sed -n 1,80p a.go && sed -i 's/x/y/' b.go`, "", []string{"a.go"}},
		{`head -n 50 README.md | tail -20`, "", []string{"README.md"}},
		{`rg -n "foo|bar" src/main.rs src/lib`, "", []string{"src/main.rs"}},
		{`rg -e pattern -g '*.go' cmd/x.go`, "", []string{"cmd/x.go"}},
		{`grep -rn "a\|b" --include=*.ts web/app.ts 2>&1`, "", []string{"web/app.ts"}},
		{`cd web && cat package.json`, "", []string{"web/package.json"}},
		{`cat Makefile`, "sub", []string{"sub/Makefile"}},
		{`cat "my file.txt" other\ file.md`, "", []string{"my file.txt", "other file.md"}},
		{`FOO=1 env cat x.txt > out.txt`, "", []string{"x.txt"}},
		{`go test ./...`, "", nil},
		{`awk '{print $1}' data.csv`, "", []string{"data.csv"}},
		{`jq .name package.json`, "", []string{"package.json"}},
		{`ls src && find . -name '*.go'`, "", nil},
	} {
		got := ReadTargets(c.cmd, c.dir)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ReadTargets(%q, %q) = %q, want %q", c.cmd, c.dir, got, c.want)
		}
	}
}

// TestWorkingSet: files read count by how often and how recently; a file
// the session changed is listed with the changes, not in the working set;
// a failed read, a directory searched, a pattern and a path outside the
// repository are no part of it.
func TestWorkingSet(t *testing.T) {
	root := testkit.TempDir(t) // absolute on every system
	in := func(p string) string { return filepath.Join(root, p) }
	a := newAccumulator(root, nil)
	n := 0
	call := func(o Observation, failed bool) {
		n++
		o.Kind, o.ID = Call, fmt.Sprint(n)
		a.Add(o)
		a.Add(Observation{Kind: Result, ID: o.ID, Failed: failed})
	}
	call(Observation{Tool: "Read", Reads: []string{in("old.go")}}, false)
	for range 3 {
		call(Observation{Tool: "Read", Reads: []string{in("often.go")}}, false)
	}
	call(Observation{Tool: "Bash", Command: "rg -n x src && cat " + filepath.Join(testkit.TempDir(t), "elsewhere.txt") + " && cat 'lib/*.go'"}, false)
	call(Observation{Tool: "Read", Reads: []string{in("missing.go")}}, true)
	call(Observation{Tool: "Read", Reads: []string{in("edited.go")}}, false)
	call(Observation{Tool: "Edit", Files: []string{in("edited.go")}}, false)
	for range 30 {
		call(Observation{Tool: "Bash", Command: "echo"}, false)
	}
	call(Observation{Tool: "Bash", Command: "sed -n 1,20p recent.go"}, false)
	f := a.Facts()
	if want := []string{"often.go", "recent.go", "old.go"}; !reflect.DeepEqual(f.Read, want) {
		t.Errorf("working set = %q, want %q", f.Read, want)
	}
}
