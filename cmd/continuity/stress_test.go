package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/testkit"
)

// These tests run the real binary as many processes at once, and kill it
// mid-write, to check that ledgers survive what hooks and people do to them.

// buildBinary builds the real binary into a test's temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "continuity")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// stressRepo builds the binary and makes a git repository with an active
// ledger x; run executes the binary there.
func stressRepo(t *testing.T) (dir string, run func(args ...string) *exec.Cmd) {
	t.Helper()
	if testkit.Short() {
		t.Skip("builds the binary and spawns many processes")
	}
	bin := buildBinary(t)
	dir = t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	env := append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"), "CLAUDE_CONFIG_DIR="+filepath.Join(home, "claude"),
		"GIT_CONFIG_NOSYSTEM=1", "CONTINUITY_DISABLE=", "CONTINUITY_DEBUG=")
	run = func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		return cmd
	}
	git := exec.Command("git", "init", "-q", "-b", "main")
	git.Dir, git.Env = dir, env
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	if out, err := run("new", "x", "--goal", "survive").CombinedOutput(); err != nil {
		t.Fatalf("continuity new: %v\n%s", err, out)
	}
	return dir, run
}

func ledgerPath(dir string) string {
	return filepath.Join(dir, "thoughts", "ledgers", "CONTINUITY_x.md")
}

// lint runs `continuity lint` and fails the test if it finds a problem.
func lint(t *testing.T, run func(args ...string) *exec.Cmd, when string) {
	t.Helper()
	if out, err := run("lint").CombinedOutput(); err != nil {
		t.Fatalf("%s: continuity lint: %v\n%s", when, err, out)
	}
}

// nextItems returns the ledger's next list items (YAML block list lines).
func nextItems(t *testing.T, src []byte) []string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^next:\n((?:  - .*\n)*)`).FindSubmatch(src)
	if m == nil {
		t.Fatalf("no next list in the ledger:\n%s", src)
	}
	var items []string
	for _, l := range strings.Split(strings.TrimSuffix(string(m[1]), "\n"), "\n") {
		if l != "" {
			items = append(items, strings.TrimPrefix(l, "  - "))
		}
	}
	return items
}

func TestStressConcurrentNext(t *testing.T) {
	dir, run := stressRepo(t)
	const procs, each = 8, 25
	start := time.Now()
	errs := make(chan error, procs)
	for p := range procs {
		go func() {
			for i := range each {
				if out, err := run("next", fmt.Sprintf("item P%d-%d", p, i)).CombinedOutput(); err != nil {
					errs <- fmt.Errorf("next P%d-%d: %v\n%s", p, i, err, out)
					return
				}
			}
			errs <- nil
		}()
	}
	for range procs {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if t.Failed() {
		return
	}
	src, err := os.ReadFile(ledgerPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, it := range nextItems(t, src) {
		seen[it]++
	}
	for p := range procs {
		for i := range each {
			if it := fmt.Sprintf("item P%d-%d", p, i); seen[it] != 1 {
				t.Errorf("%q present %d times", it, seen[it])
			}
		}
	}
	if len(seen) != procs*each {
		t.Errorf("%d distinct next items, want %d", len(seen), procs*each)
	}
	lint(t, run, "after the appends")
	t.Logf("%d processes x %d `continuity next` in %v", procs, each, time.Since(start).Round(time.Millisecond))
}

func TestStressKilledNext(t *testing.T) {
	dir, run := stressRepo(t)
	path := ledgerPath(dir)
	// A big notes section makes each write take longer, so more kills land
	// in the middle of one.
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var notes bytes.Buffer
	for i := range 3000 {
		fmt.Fprintf(&notes, "Note line %d, kept verbatim by every write of the ledger.\n", i)
	}
	if err := os.WriteFile(path, append(src, notes.Bytes()...), 0o644); err != nil {
		t.Fatal(err)
	}
	lint(t, run, "before")

	// How long one uninterrupted `continuity next` takes here: kills are
	// spread over that span.
	var spans []time.Duration
	for i := range 5 {
		t0 := time.Now()
		if out, err := run("next", fmt.Sprintf("warm-%d", i)).CombinedOutput(); err != nil {
			t.Fatalf("next: %v\n%s", err, out)
		}
		spans = append(spans, time.Since(t0))
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i] < spans[j] })
	span := spans[len(spans)/2]

	const kills = 300
	start := time.Now()
	landed, midWrite := 0, 0
	itemRE := regexp.MustCompile(`^(warm-\d+|kill-\d+-[a-z]+-end)$`)
	tmpDir := filepath.Join(dir, ".git", "continuity", "locks", "tmp")
	for k := range kills {
		item := fmt.Sprintf("kill-%d-%s-end", k, strings.Repeat("abcdefgh", 8))
		cmd := run("next", item)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rand.Int64N(int64(span + span/4))))
		_ = cmd.Process.Kill()
		err := cmd.Wait()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("kill %d: %v", k, err)
		}
		if temps, _ := filepath.Glob(filepath.Join(tmpDir, "*", "*")); len(temps) > 0 {
			midWrite++
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("after kill %d: %v", k, err)
		}
		if !bytes.HasSuffix(src, notes.Bytes()) {
			t.Fatalf("after kill %d the notes are not whole", k)
		}
		for _, it := range nextItems(t, src) {
			if !itemRE.MatchString(it) {
				t.Fatalf("after kill %d: partial item %q", k, it)
			}
			if it == item {
				landed++
			}
		}
		ents, err := os.ReadDir(filepath.Dir(path))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.Name() != "CONTINUITY_x.md" && e.Name() != ".gitkeep" {
				t.Fatalf("after kill %d: stray %s in the ledger directory", k, e.Name())
			}
		}
		lint(t, run, fmt.Sprintf("after kill %d", k))
	}
	// One more write clears what killed writers left in the temp dir.
	if out, err := run("next", "final").CombinedOutput(); err != nil {
		t.Fatalf("next: %v\n%s", err, out)
	}
	if temps, _ := filepath.Glob(filepath.Join(tmpDir, "*", "*")); len(temps) > 0 {
		t.Errorf("temporary files left: %v", temps)
	}
	t.Logf("%d kills in %v (one run takes %v): %d items landed, %d kills left a temp file (mid-write)",
		kills, time.Since(start).Round(time.Millisecond), span.Round(time.Microsecond), landed, midWrite)
	if landed == 0 || landed == kills {
		t.Errorf("%d of %d killed writers finished: the kills did not spread over the run", landed, kills)
	}
}
