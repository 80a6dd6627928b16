package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/ledger"
)

// These tests run the real binary as hooks, CLI edits and an editor all at
// once on one ledger, and SIGKILL hooks and edits at random points, then
// check that every file on disk is whole and nothing written was lost.

// handoffTail ends every complete handoff of ledger x.
const handoffTail = "- Run `continuity resume x` to make this work stream active and print its context.\n"

// raceCmd is the binary, run in e's repository with e's environment.
func raceCmd(e *hEnv, stdin []byte, extraEnv []string, args ...string) *exec.Cmd {
	cmd := exec.Command(e.bin, args...)
	cmd.Dir, cmd.Env = e.repo, e.environ(append([]string{"CONTINUITY_NOW="}, extraEnv...))
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	return cmd
}

// hookPayload is a payload for event from agent session id, with e's
// recorded transcript.
func hookPayload(e *hEnv, event, id string) []byte {
	kv := []any{"hook_event_name", event, "session_id", id}
	if event == "SessionEnd" {
		kv = append(kv, "trigger", nil, "reason", "other")
	}
	return payload(e, kv...)
}

// medianRun is how long one uninterrupted run of mk takes here.
func medianRun(t *testing.T, mk func(i int) *exec.Cmd) time.Duration {
	t.Helper()
	var spans []time.Duration
	for i := range 5 {
		cmd := mk(i)
		t0 := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
		}
		spans = append(spans, time.Since(t0))
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i] < spans[j] })
	return spans[len(spans)/2]
}

// checkRepoFiles parses the ledger and every handoff, and fails for any
// handoff that is not whole and for any file in the work tree that
// continuity did not put there on purpose (a temporary file, a partial
// write). It returns the ledger and the number of handoffs.
func checkRepoFiles(t *testing.T, e *hEnv, known map[string]bool) (*ledger.Ledger, int) {
	t.Helper()
	src := mustRead(t, e.ledger)
	l, err := ledger.Parse("CONTINUITY_x.md", src)
	if err != nil {
		t.Fatalf("ledger does not parse: %v\n%s", err, src)
	}
	handoffName := regexp.MustCompile(`^thoughts/shared/handoffs/x/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ_(pre-compact|session-end)_[a-z0-9-]+(~\d+)?\.md$`)
	n := 0
	err = filepath.WalkDir(e.repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(e.repo, path)
		rel = filepath.ToSlash(rel)
		if rel == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		switch {
		case known[rel]:
		case handoffName.MatchString(rel):
			n++
			b := mustRead(t, path)
			h, err := handoff.Parse(b)
			if err != nil {
				t.Errorf("%s does not parse: %v", rel, err)
			} else if h.Meta.Stream != "x" || h.Meta.Event == "" || !bytes.HasSuffix(b, []byte(handoffTail)) {
				t.Errorf("%s is not whole (session %q, event %q):\n%s", rel, h.Meta.Stream, h.Meta.Event, b)
			}
		default:
			t.Errorf("stray file in the work tree: %s", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return l, n
}

// knownFiles are the work tree's files before the test starts.
func knownFiles(t *testing.T, e *hEnv) map[string]bool {
	t.Helper()
	known := map[string]bool{}
	for p := range snapshot(t, e.repo) {
		if !strings.HasPrefix(p, ".git/") && p != ".git" {
			known[p] = true
		}
	}
	return known
}

// tempFiles lists the files under the local state's temporary directory.
func tempFiles(e *hEnv) []string {
	var out []string
	_ = filepath.WalkDir(filepath.Join(e.repo, ".git", "continuity", "locks", "tmp"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, path)
		}
		return nil
	})
	return out
}

func TestCrashKilledHooksAndEdits(t *testing.T) {
	bin := buildBinary(t)
	e := newHEnv(t, bin, transcriptTemplate(t))
	known := knownFiles(t, e)
	hookSpan := medianRun(t, func(i int) *exec.Cmd {
		return raceCmd(e, hookPayload(e, "PreCompact", fmt.Sprintf("warm-%d", i)), nil, "hook")
	})
	nextSpan := medianRun(t, func(i int) *exec.Cmd { return raceCmd(e, nil, nil, "next", fmt.Sprintf("warm-%d", i)) })

	kills, parallel := 300, 4
	if testkit.Short() {
		kills = 60
	}
	itemRE := regexp.MustCompile(`^(warm-\d+|crash-\d+-[a-z]+-end|final)$`)
	start := time.Now()
	var mu sync.Mutex
	interrupted, finished := map[string]int{}, map[string]int{}
	// round starts parallel writers, hooks and edits by turns, and kills
	// each at a random moment up to scale times its median run.
	round := func(k int, scale float64) {
		var wg sync.WaitGroup
		for j := range parallel {
			n := k + j
			kind, span := "hook", hookSpan
			cmd := raceCmd(e, hookPayload(e, "PreCompact", fmt.Sprintf("crash-%d", n)), nil, "hook")
			if n%2 == 1 {
				kind, span = "next", nextSpan
				cmd = raceCmd(e, nil, nil, "next", fmt.Sprintf("crash-%d-%s-end", n, strings.Repeat("abcdefgh", 8)))
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(rand.Int64N(int64(float64(span) * scale))))
				_ = cmd.Process.Signal(syscall.SIGKILL)
				err := cmd.Wait()
				var ee *exec.ExitError
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					finished[kind]++
				case errors.As(err, &ee) && !ee.Exited():
					interrupted[kind]++
				default:
					t.Errorf("%s %d: %v", kind, n, err)
				}
			}()
		}
		wg.Wait()
	}
	k := 0
	for ; k < kills; k += parallel {
		round(k, 1.25)
		if k%40 == 0 { // a full check now and then; the last one below
			l, _ := checkRepoFiles(t, e, known)
			for _, it := range l.Next {
				if !itemRE.MatchString(it) {
					t.Fatalf("after %d kills: partial next item %q", k+parallel, it)
				}
			}
		}
	}
	// Parallel runs take longer than the median of one; on a busy machine
	// none may finish before its kill. Widen (or narrow) the window until
	// each kind has been both killed mid-run and let finish, so the kills
	// spread over whole runs.
	spread := func() bool {
		return interrupted["hook"] > 0 && finished["hook"] > 0 && interrupted["next"] > 0 && finished["next"] > 0
	}
	for scale := 1.25; !spread() && k < 3*kills; k += parallel {
		if finished["hook"] == 0 || finished["next"] == 0 {
			scale *= 1.5
		} else {
			scale /= 1.5
		}
		round(k, scale)
	}
	kills = k
	if out, err := raceCmd(e, nil, nil, "next", "final").CombinedOutput(); err != nil {
		t.Fatalf("next after the kills: %v\n%s", err, out)
	}
	l, hs := checkRepoFiles(t, e, known)
	for _, it := range l.Next {
		if !itemRE.MatchString(it) {
			t.Errorf("partial next item %q", it)
		}
	}
	if !strings.Contains(strings.Join(l.Next, "\n"), "final") {
		t.Errorf("the last write is missing: %q", l.Next)
	}
	if out, err := raceCmd(e, nil, nil, "lint").CombinedOutput(); err != nil {
		t.Errorf("continuity lint after the kills: %v\n%s", err, out)
	}
	// A killed ledger write leaves its temporary file in the local state;
	// the next write of the same file removes it. A killed handoff write
	// leaves one under a name nobody writes again.
	ledgerTemps, handoffTemps := 0, 0
	for _, p := range tempFiles(e) {
		if strings.Contains(filepath.Base(p), "CONTINUITY_x.md") {
			ledgerTemps++
		} else {
			handoffTemps++
		}
	}
	if ledgerTemps > 0 {
		t.Errorf("%d temporary files of the ledger left after a clean write", ledgerTemps)
	}
	for _, kind := range []string{"hook", "next"} {
		if interrupted[kind] == 0 || finished[kind] == 0 {
			t.Errorf("%s: %d killed mid-run, %d finished: the kills did not spread over the run", kind, interrupted[kind], finished[kind])
		}
	}
	t.Logf("%d kills in %v (hook %v, next %v per run): hook %d killed/%d finished, next %d killed/%d finished; %d handoffs, %d next items; %d handoff temp files left in .git/continuity/locks/tmp",
		kills, time.Since(start).Round(time.Millisecond), hookSpan.Round(time.Millisecond), nextSpan.Round(time.Millisecond),
		interrupted["hook"], finished["hook"], interrupted["next"], finished["next"], hs, len(l.Next), handoffTemps)
}

// span is when a process ran, as the test saw it.
type span struct{ from, to time.Time }

func (s span) overlaps(o span) bool { return s.from.Before(o.to) && o.from.Before(s.to) }

// editorSave is one save by the editor: when it read the file, and when its
// rename was done.
type editorSave struct {
	marker string
	span
}

// editorSaveOnce does what an editor's save does, without continuity's
// lock: read, change, write a temporary file, check the file did not change
// since the read (as vim and VS Code do before overwriting), rename.
func editorSaveOnce(path, marker string) (span, error) {
	for {
		from := time.Now()
		before, err := os.Stat(path)
		if err != nil {
			return span{}, err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return span{}, err
		}
		tmp := filepath.Join(filepath.Dir(path), ".editor-save.tmp")
		if err := os.WriteFile(tmp, append(src, []byte(marker+"\n")...), 0o644); err != nil {
			return span{}, err
		}
		now, err := os.Stat(path)
		if err != nil {
			return span{}, err
		}
		if !os.SameFile(before, now) || !now.ModTime().Equal(before.ModTime()) || now.Size() != before.Size() {
			_ = os.Remove(tmp)
			continue // changed on disk since read: read again
		}
		if err := os.Rename(tmp, path); err != nil {
			return span{}, err
		}
		return span{from, time.Now()}, nil
	}
}

func TestRaceHooksEditsEditor(t *testing.T) {
	bin := buildBinary(t)
	e := newHEnv(t, bin, transcriptTemplate(t))
	// Notes make each write longer, as in a ledger used for weeks.
	var notes bytes.Buffer
	for i := range 2000 {
		fmt.Fprintf(&notes, "Note line %d, kept verbatim by every write of the ledger.\n", i)
	}
	writeFile(t, e.ledger, append(mustRead(t, e.ledger), notes.Bytes()...), 0o644)
	known := knownFiles(t, e)
	runFor := 4 * time.Second
	if testkit.Short() {
		runFor = time.Second
	}
	begin := time.Now()
	deadline := begin.Add(runFor)

	var mu sync.Mutex
	var failures []string
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	type cliOp struct {
		item string
		done bool // removed from next by done (then it is in done)
		next span // when next ran
		fin  span // when done ran
	}
	var ops []*cliOp
	var saves []editorSave
	wrote := map[string]bool{} // handoffs the hooks said they wrote
	hookRuns := map[string]int{}
	var wg sync.WaitGroup
	// An edit that the editor's saves kept overtaking is refused with a
	// clear error and the file untouched: nothing is lost, the caller knows.
	refusals := 0
	refused := func(out []byte) bool {
		ok := bytes.Contains(out, []byte("changed by another program")) && bytes.Contains(out, []byte("not written"))
		if ok {
			mu.Lock()
			refusals++
			mu.Unlock()
		}
		return ok
	}
	// The run lasts runFor, and on a slow or busy machine longer (up to a
	// cap), until enough has happened for the checks below to mean something.
	hardStop := begin.Add(8 * runFor)
	running := func() bool {
		now := time.Now()
		if now.Before(deadline) {
			return true
		}
		mu.Lock()
		defer mu.Unlock()
		// The checks count edits no editor save overlapped: count them
		// the same way, with a margin for saves still in flight.
		clean := 0
		for _, op := range ops {
			hit := false
			for _, sv := range saves {
				if sv.overlaps(op.next) {
					hit = true
					break
				}
			}
			if !hit {
				clean++
			}
		}
		enough := clean >= 15 && len(saves) >= 10 && hookRuns["PreCompact"] >= 2
		return !enough && now.Before(hardStop) && len(failures) == 0
	}

	// Two agent sessions' hooks.
	wroteRE := regexp.MustCompile(`wrote (thoughts/shared/handoffs/\S+\.md)`)
	okLine := regexp.MustCompile(`^continuity hook: (PreCompact|SessionEnd): (wrote thoughts/shared/handoffs/\S+\.md( \(in place of \S+, which said the same but for the summary\))?|nothing new since \S+)$`)
	// A handoff of the same work moments later takes the place of the
	// session's previous one: that one is gone, as reported.
	replacedRE := regexp.MustCompile(`\(in place of (thoughts/shared/handoffs/\S+\.md),`)
	for _, id := range []string{"sess-a", "sess-b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; running(); i++ {
				event := []string{"PreCompact", "SessionEnd"}[i%2]
				cmd := raceCmd(e, hookPayload(e, event, id), []string{"CONTINUITY_DEBUG=1"}, "hook")
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Run(); err != nil {
					fail("hook %s %s: %v\n%s", id, event, err, stderr.Bytes())
					return
				}
				for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
					if !okLine.MatchString(line) {
						fail("hook %s %s: %s", id, event, stderr.Bytes())
					}
				}
				mu.Lock()
				hookRuns[event]++
				for _, m := range replacedRE.FindAllStringSubmatch(stderr.String(), -1) {
					delete(wrote, m[1])
				}
				for _, m := range wroteRE.FindAllStringSubmatch(stderr.String(), -1) {
					wrote[m[1]] = true
				}
				mu.Unlock()
			}
		}()
	}
	// Two CLI writers: next, and now and then done for an earlier item.
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []*cliOp
			for i := 0; running(); i++ {
				op := &cliOp{item: fmt.Sprintf("cli-%d-%d", w, i)}
				from := time.Now()
				if out, err := raceCmd(e, nil, nil, "next", op.item).CombinedOutput(); err != nil {
					if refused(out) {
						continue
					}
					fail("next %s: %v\n%s", op.item, err, out)
					return
				}
				op.next = span{from, time.Now()}
				mu.Lock()
				ops = append(ops, op)
				mu.Unlock()
				mine = append(mine, op)
				if i%3 == 2 {
					d := mine[rand.IntN(len(mine))]
					if d.done {
						continue
					}
					from := time.Now()
					if out, err := raceCmd(e, nil, nil, "done", d.item).CombinedOutput(); err != nil {
						if refused(out) {
							continue
						}
						fail("done %s: %v\n%s", d.item, err, out)
						return
					}
					mu.Lock()
					d.done, d.fin = true, span{from, time.Now()}
					mu.Unlock()
				}
			}
		}()
	}
	// The editor: a full rewrite adding a marker line, every 10-40 ms in
	// bursts of half a second, quiet for the next half second (the edits
	// made then are checked strictly).
	wg.Add(1)
	go func() {
		defer wg.Done()
		const burst = 500 * time.Millisecond
		for i := 0; running(); i++ {
			if phase := time.Since(begin) / burst; phase%2 == 1 {
				time.Sleep(time.Until(begin.Add((phase + 1) * burst)))
				continue
			}
			time.Sleep(time.Duration(10+rand.IntN(30)) * time.Millisecond)
			marker := fmt.Sprintf("editor-marker-%d", i)
			s, err := editorSaveOnce(e.ledger, marker)
			if err != nil {
				fail("editor: %v", err)
				return
			}
			mu.Lock()
			saves = append(saves, editorSave{marker, s})
			mu.Unlock()
		}
	}()
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	if t.Failed() {
		return
	}

	src := mustRead(t, e.ledger)
	l, hs := checkRepoFiles(t, e, known)
	// An editor's save survives the writers that take the lock: each
	// re-reads under it, swaps its file in, and swaps the editor's save back
	// if one landed since the read. Only a save whose editor read the file in
	// the microseconds between the two swaps can be lost (0 of 309 here under
	// a loaded machine, against 3 of 244 with a check before a rename), so
	// more than one in fifty lost fails.
	var lost []string
	for _, s := range saves {
		if !bytes.Contains(src, []byte("\n"+s.marker+"\n")) {
			lost = append(lost, fmt.Sprintf("%s (+%v)", s.marker, s.to.Sub(begin).Round(time.Millisecond)))
		}
	}
	if !bytes.Contains(src, notes.Bytes()) {
		t.Errorf("the notes are not whole")
	}
	if len(lost) > len(saves)/50 {
		t.Errorf("%d of %d editor saves lost: %v", len(lost), len(saves), lost)
	}
	lostMarkers := len(lost)
	// A CLI edit is never lost to another CLI edit or a hook. An editor's
	// save that read the file before the edit and renamed after it
	// overwrites the edit, as it would in any editor: only edits no save
	// overlapped are checked.
	inNext, inDone := map[string]int{}, map[string]int{}
	for _, it := range l.Next {
		inNext[it]++
	}
	for _, it := range l.Done {
		inDone[it]++
	}
	overlapped := func(s span) bool {
		for _, sv := range saves {
			if sv.overlaps(s) {
				return true
			}
		}
		return false
	}
	checked, exempt, exemptLost := 0, 0, 0
	for _, op := range ops {
		last := op.next
		if op.done {
			last = op.fin
		}
		var present bool
		if op.done {
			present = inDone[op.item] == 1 && inNext[op.item] == 0
		} else {
			present = inNext[op.item] == 1 && inDone[op.item] == 0
		}
		if overlapped(op.next) || (op.done && overlapped(last)) {
			exempt++
			if !present {
				exemptLost++
			}
			continue
		}
		checked++
		if !present {
			t.Errorf("%s (done %v): %d times in next, %d in done", op.item, op.done, inNext[op.item], inDone[op.item])
		}
	}
	// Every handoff a hook reported is on disk and whole (checked above).
	for rel := range wrote {
		if _, err := os.Stat(filepath.Join(e.repo, rel)); err != nil {
			t.Errorf("handoff %s reported written: %v", rel, err)
		}
	}
	if len(wrote) != hs {
		t.Errorf("hooks reported %d handoffs, %d on disk", len(wrote), hs)
	}
	if len(saves) < 5 || checked < 10 || hookRuns["PreCompact"] < 2 {
		t.Errorf("too little happened: %d saves, %d checked edits, %v hook runs", len(saves), checked, hookRuns)
	}
	if refusals > len(ops)/4 {
		t.Errorf("%d CLI edits refused for %d made: the retries do not outlast an editor's saves", refusals, len(ops))
	}
	t.Logf("%v: %v hook runs, %d handoffs; %d CLI edits (%d checked, %d overlapped an editor save of which %d were overwritten by it, %d refused); %d editor saves, %d lost",
		time.Since(begin).Round(time.Millisecond), hookRuns, hs, len(ops), checked, exempt, exemptLost, refusals, len(saves), lostMarkers)
}
