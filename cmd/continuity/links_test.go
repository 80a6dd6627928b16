package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/testkit"
)

// The link test plants a symbolic link at every path continuity writes, in
// local state and in the repository, pointing outside, and runs the real
// commands and hooks again: nothing outside may change. The paths are not
// listed by hand: a first run of the whole sequence lists what it wrote.

// linkStep is one run of the binary in the sequence.
type linkStep struct {
	args  []string
	stdin func(e *hEnv) []byte
}

// linkSequence is every command and hook event that writes: set-up, the
// hooks of a session's life, the ledger commands, upkeep and uninstall.
func linkSequence() []linkStep {
	hook := func(kv ...any) linkStep {
		return linkStep{args: []string{"hook", "--agent", "claude"}, stdin: pl(kv...)}
	}
	cmd := func(args ...string) linkStep { return linkStep{args: args} }
	return []linkStep{
		cmd("init", "--command", "continuity hook"),
		cmd("disable"),
		cmd("enable"),
		hook("hook_event_name", "SessionStart", "source", "startup", "trigger", nil),
		hook("hook_event_name", "UserPromptSubmit", "prompt", "fix the token refresh", "trigger", nil),
		hook("hook_event_name", "PreCompact"),
		hook("hook_event_name", "SessionStart", "source", "compact", "trigger", nil),
		hook("hook_event_name", "Stop", "trigger", nil),
		hook("hook_event_name", "SessionEnd", "reason", "clear", "trigger", nil),
		hook("hook_event_name", "SessionStart", "source", "startup", "session_id", "hard-0002", "trigger", nil),
		cmd("next", "Logout endpoint"),
		cmd("now", "Refresh tokens"),
		cmd("decide", "JWT over sessions", "--why", "stateless"),
		cmd("question", "Which expiry?"),
		cmd("constraint", "No new dependency"),
		cmd("done", "Refresh tokens"),
		cmd("goal", "Harden the hooks, again"),
		cmd("handoff"),
		cmd("new", "y", "--goal", "Second stream"),
		cmd("use", "x"),
		cmd("resume", "y"),
		cmd("context"),
		cmd("status"),
		cmd("list"),
		cmd("log"),
		cmd("doctor"),
		cmd("scan"),
		cmd("lint"),
		cmd("prune"),
		cmd("init", "--user", "--command", "continuity hook"),
		cmd("uninstall", "--user"),
		cmd("uninstall"),
		cmd("init", "--command", "continuity hook"),
		cmd("uninstall", "--purge"),
	}
}

// runLinkSequence runs steps[from:] in e; exit codes are not checked (a
// refused write is an error), only that every run ends.
func runLinkSequence(t *testing.T, e *hEnv, steps []linkStep) {
	t.Helper()
	for _, s := range steps {
		var in []byte
		if s.stdin != nil {
			in = s.stdin(e)
		}
		runBounded(t, e, e.repo, s.args, in, []string{"CONTINUITY_NOW="}, 30*time.Second)
	}
}

// gitOwn says whether rel (relative to the case's root) is git's own file,
// written by git (a commit, git config, git rm), not by continuity.
func gitOwn(rel string) bool {
	r, ok := strings.CutPrefix(rel, "repo/.git/")
	return ok && !strings.HasPrefix(r, "continuity/") && !strings.HasPrefix(r, "hooks/")
}

// writtenPaths runs the whole sequence in a fresh world and returns what
// it wrote (created or changed), files and directories apart, relative to
// the world's root; git's own files and the outside directory excluded.
func writtenPaths(t *testing.T, bin string, tpl []byte) (files, dirs []string) {
	t.Helper()
	e := newHEnv(t, bin, tpl)
	before := snapshot(t, e.root)
	seen := map[string]fileState{}
	steps := linkSequence()
	for i := range steps {
		runLinkSequence(t, e, steps[i:i+1])
		// After each step, not only at the end: uninstall --purge removes
		// what earlier steps wrote.
		for p, st := range snapshot(t, e.root) {
			if b, ok := before[p]; (!ok || b != st) && !gitOwn(p) && !strings.HasPrefix(p, "outside/") {
				seen[p] = st
			}
		}
	}
	for p, st := range seen {
		switch {
		case p == "home/state" || p == "home/.cache":
			// $XDG_STATE_HOME and the user's cache directory themselves:
			// the user's own settings name them, and a link there is where
			// the user keeps them (continuity's folders in them are tested).
		case st.mode.IsDir():
			dirs = append(dirs, p)
		case st.mode.IsRegular():
			files = append(files, p)
		}
	}
	sort.Strings(files)
	sort.Strings(dirs)
	return files, dirs
}

// outsideState records the outside directory: each entry's bytes and time.
func outsideState(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d %d", path, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			c, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %q", c)
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// plant replaces whatever is at path with a symbolic link to target.
func plant(t *testing.T, path, target string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// TestLinksPlantedEverywhere (issue 39) plants a link at every file and directory
// continuity writes, one at a time, after init (the repository set up, as
// a teammate's commit or another local program would find it) and, for
// all of them at once, before init; the outside files and folders they
// point to must stay exactly as they were: no byte, no time, no new file.
func TestLinksPlantedEverywhere(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows; safefile's reparse-point checks are tested there")
	}
	bin := buildBinary(t)
	tpl := transcriptTemplate(t)
	files, dirs := writtenPaths(t, bin, tpl)
	t.Logf("continuity wrote %d files and %d directories:\n%s\n%s", len(files), len(dirs), strings.Join(files, "\n"), strings.Join(dirs, "\n"))
	for _, want := range []string{"repo/.git/continuity/uninstalled", "repo/.claude/settings.json", "repo/thoughts/ledgers/CONTINUITY_x.md"} {
		if !contains(files, want) {
			t.Fatalf("the walk missed %s: the sequence no longer covers it", want)
		}
	}
	steps := linkSequence()
	check := func(t *testing.T, e *hEnv, before string) {
		t.Helper()
		after := outsideState(t, e.outside)
		was := map[string]bool{}
		for _, l := range strings.Split(before, "\n") {
			was[l] = true
		}
		for _, l := range strings.Split(after, "\n") {
			if !was[l] && l != "" && !strings.HasPrefix(l, e.outside+" ") {
				t.Errorf("changed outside through a planted link: %.300s", strings.TrimPrefix(l, e.outside))
			}
		}
	}
	// One link at a time, planted after init: every written path with the
	// long tests on, else a spread of them and the marks (the whole
	// sequence runs once per path).
	planted := testkit.Sample(append(append([]string(nil), files...), dirs...), 8)
	if testkit.Short() {
		planted = append(planted, "repo/.git/continuity/uninstalled", "repo/.git/continuity/given/x", "repo/.git/continuity/open/.mark")
		t.Logf("planting at %d of the %d paths; CONTINUITY_LONG=1 plants at every one", len(planted), len(files)+len(dirs))
	}
	for _, rel := range planted {
		t.Run(strings.ReplaceAll(rel, "/", "|"), func(t *testing.T) {
			t.Parallel()
			e := newHEnv(t, bin, tpl)
			runLinkSequence(t, e, steps[:1])
			target := filepath.Join(e.outside, "target")
			if contains(dirs, rel) {
				if err := os.Mkdir(target, 0o755); err != nil {
					t.Fatal(err)
				}
			} else {
				writeFile(t, target, []byte("outside, untouched\n"), 0o644)
			}
			old := time.Now().Add(-time.Hour)
			if err := os.Chtimes(target, old, old); err != nil {
				t.Fatal(err)
			}
			plant(t, filepath.Join(e.root, rel), target)
			before := outsideState(t, e.outside)
			runLinkSequence(t, e, steps[1:])
			check(t, e, before)
		})
	}
	// Every file's link at once, before anything ran.
	t.Run("all-before-init", func(t *testing.T) {
		t.Parallel()
		e := newHEnv(t, bin, tpl)
		for i, rel := range files {
			target := filepath.Join(e.outside, fmt.Sprintf("f%03d", i))
			writeFile(t, target, []byte("outside, untouched\n"), 0o644)
			plant(t, filepath.Join(e.root, rel), target)
		}
		before := outsideState(t, e.outside)
		runLinkSequence(t, e, steps)
		check(t, e, before)
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
