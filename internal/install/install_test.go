package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/rogpeppe/go-internal/txtar"
)

// testHook is the hook the golden files are written with unless they hold a
// "command" section.
// testEvents are the events the tests register (Claude Code's, whose
// settings the goldens come from).
var testEvents = []string{"SessionStart", "PreCompact", "PostCompact", "SessionEnd"}

var testHook = Hook{Command: "/usr/local/bin/continuity hook", Events: testEvents, Timeouts: map[string]int{"SessionEnd": 30}}

// goldenCase is one testdata/*.txtar archive.
type goldenCase struct {
	name    string
	path    string
	archive *txtar.Archive
	in      []byte // settings.json
	hook    Hook
	remove  []byte // remove.json, or in when absent: what Remove(Add(in)) must give
}

func (c *goldenCase) section(name string) ([]byte, bool) { return section(c.archive, name) }

func loadCases(t testing.TB) []*goldenCase {
	t.Helper()
	paths, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	var cases []*goldenCase
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c := &goldenCase{name: strings.TrimSuffix(filepath.Base(p), ".txtar"), path: p, archive: ar, hook: testHook}
		in, ok := c.section("settings.json")
		if !ok {
			t.Fatalf("%s: no settings.json section", p)
		}
		c.in = in
		if cmd, ok := c.section("command"); ok {
			c.hook.Command = strings.TrimSuffix(string(cmd), "\n")
		}
		c.remove = in
		if r, ok := c.section("remove.json"); ok {
			c.remove = r
		}
		cases = append(cases, c)
	}
	return cases
}

func TestGolden(t *testing.T) {
	for _, c := range loadCases(t) {
		t.Run(c.name, func(t *testing.T) {
			got := map[string][]byte{}
			out, changed, err := Add(c.in, c.hook)
			if err != nil {
				got["error"] = []byte(err.Error() + "\n")
				checkRefused(t, c.in, err, out)
			} else {
				got["add.json"] = out
				checkAdd(t, c.in, out, changed, c.hook)
				removed, _, err := Remove(out, testEvents...)
				if err != nil {
					t.Fatalf("Remove(Add(settings)): %v", err)
				}
				if !bytes.Equal(removed, c.remove) {
					t.Errorf("Remove(Add(settings)) =\n%s\nwant\n%s", removed, c.remove)
				}
				st, err := Status(c.in, testEvents...)
				if err != nil {
					t.Fatalf("Status(settings): %v", err)
				}
				got["status"] = formatStatus(st)
			}
			compareGolden(t, c, got)
		})
	}
}

// checkRefused checks that malformed settings are refused by every entry point
// with a positioned error and no output.
func checkRefused(t *testing.T, in []byte, addErr error, out []byte) {
	t.Helper()
	if out != nil {
		t.Errorf("Add returned output with its error: %q", out)
	}
	var pe *Error
	if !errors.As(addErr, &pe) || pe.Line < 1 || pe.Column < 1 {
		t.Errorf("Add error %v is not a positioned *Error", addErr)
	}
	if r, _, err := Remove(in, testEvents...); err == nil || err.Error() != addErr.Error() || r != nil {
		t.Errorf("Remove = %q, %v; want no output and %v", r, err, addErr)
	}
	if _, err := Status(in, testEvents...); err == nil || err.Error() != addErr.Error() {
		t.Errorf("Status error = %v, want %v", err, addErr)
	}
}

// checkAdd checks the properties every successful Add must have.
func checkAdd(t *testing.T, in, out []byte, changed bool, h Hook) {
	t.Helper()
	if !json.Valid(out) {
		t.Fatalf("Add output is not valid JSON:\n%s", out)
	}
	if changed == bytes.Equal(in, out) {
		t.Errorf("changed = %v, but input and output equal: %v", changed, bytes.Equal(in, out))
	}
	again, changed2, err := Add(out, h)
	if err != nil || changed2 || !bytes.Equal(again, out) {
		t.Errorf("Add is not idempotent: changed=%v err=%v\nonce:\n%s\ntwice:\n%s", changed2, err, out, again)
	}
	st, err := Status(out, testEvents...)
	if err != nil {
		t.Fatalf("Status(Add(settings)): %v", err)
	}
	for _, ev := range testEvents {
		if st[ev] != h.Command {
			t.Errorf("after Add, Status[%s] = %q, want %q", ev, st[ev], h.Command)
		}
	}
	if before, err := Status(in, testEvents...); err == nil && noContinuity(before) && !hasEmptyTarget(in) {
		if !insertionsOnly(in, out) {
			t.Errorf("Add changed bytes outside what it inserted:\nin:\n%s\nout:\n%s", in, out)
		}
	}
}

// compareGolden compares the computed sections with the archive's, or
// rewrites the archive with -update.
func compareGolden(t *testing.T, c *goldenCase, got map[string][]byte) {
	t.Helper()
	compareSections(t, c.path, c.archive, []string{"add.json", "status", "error"}, got)
}

// compareSections compares the sections names of archive ar (read from
// path) with got, or with -update rewrites them from got (a section
// missing from got is dropped).
func compareSections(t *testing.T, path string, ar *txtar.Archive, names []string, got map[string][]byte) {
	t.Helper()
	if *testkit.Update {
		var files []txtar.File
		for _, f := range ar.Files {
			if !contains(names, f.Name) {
				files = append(files, f)
			}
		}
		for _, n := range names {
			if data, ok := got[n]; ok {
				files = append(files, txtar.File{Name: n, Data: data})
			}
		}
		ar.Files = files
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, n := range names {
		want, ok := section(ar, n)
		data, have := got[n]
		switch {
		case ok != have:
			t.Errorf("section %s: in archive %v, produced %v (run go test -update)", n, ok, have)
		case !bytes.Equal(normalizeTxtar(data), want):
			t.Errorf("%s =\n%s\nwant\n%s", n, data, want)
		}
	}
}

// section returns the archive's file called name.
func section(ar *txtar.Archive, name string) ([]byte, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

// normalizeTxtar adds the final newline txtar always stores.
func normalizeTxtar(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return append(b[:len(b):len(b)], '\n')
	}
	return b
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func formatStatus(st map[string]string) []byte {
	var b bytes.Buffer
	for _, ev := range testEvents {
		fmt.Fprintf(&b, "%s\t%q\n", ev, st[ev])
	}
	return b.Bytes()
}

func noContinuity(st map[string]string) bool {
	for _, c := range st {
		if c != "" {
			return false
		}
	}
	return true
}

// hasEmptyTarget reports settings holding an empty container Add would fill:
// an empty root, hooks object or event list. Add replaces such a container's
// inside, and Remove cannot know it was there before.
func hasEmptyTarget(settings []byte) bool {
	if len(bytes.TrimSpace(settings)) == 0 {
		return true
	}
	d, err := parse(settings)
	if err != nil {
		return false
	}
	if d.root.kind == '{' && len(d.root.vals) == 0 {
		return true
	}
	if h, err := d.hooks(); err == nil && h != nil && len(h.vals) == 0 {
		return true
	}
	for _, ev := range testEvents {
		if arr, err := d.event(ev); err == nil && arr != nil && len(arr.vals) == 0 {
			return true
		}
	}
	return false
}

// insertionsOnly reports whether out is in with text inserted: in is a
// subsequence of out and Remove takes the insertions out again.
func insertionsOnly(in, out []byte) bool {
	i := 0
	for j := 0; j < len(out) && i < len(in); j++ {
		if out[j] == in[i] {
			i++
		}
	}
	return i == len(in)
}

// TestLayoutVariants runs every golden case again without the final newline
// and with CRLF line ends: Add and Remove must keep those exactly.
func TestLayoutVariants(t *testing.T) {
	variants := []struct {
		name string
		conv func([]byte) []byte
	}{
		{"no final newline", func(b []byte) []byte { return bytes.TrimSuffix(b, []byte("\n")) }},
		{"crlf", func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) }},
	}
	for _, c := range loadCases(t) {
		want, ok := c.section("add.json")
		if !ok || len(bytes.TrimSpace(c.in)) == 0 {
			continue
		}
		for _, v := range variants {
			t.Run(c.name+"/"+v.name, func(t *testing.T) {
				in := v.conv(c.in)
				out, changed, err := Add(in, c.hook)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out, v.conv(want)) {
					t.Errorf("Add =\n%q\nwant\n%q", out, v.conv(want))
				}
				checkAdd(t, in, out, changed, c.hook)
				removed, _, err := Remove(out, testEvents...)
				if err != nil || !bytes.Equal(removed, v.conv(c.remove)) {
					t.Errorf("Remove(Add) = %q, %v; want %q", removed, err, v.conv(c.remove))
				}
			})
		}
	}
}

func TestRemoveWithoutContinuity(t *testing.T) {
	for _, c := range loadCases(t) {
		st, err := Status(c.in, testEvents...)
		if err != nil || !noContinuity(st) {
			continue
		}
		out, changed, err := Remove(c.in, testEvents...)
		if err != nil || changed || !bytes.Equal(out, c.in) {
			t.Errorf("%s: Remove on settings without continuity = %q, %v, %v; want the input unchanged", c.name, out, changed, err)
		}
	}
}

func TestAddTimeoutsAndCommandUpdate(t *testing.T) {
	h := Hook{Command: "continuity hook", Events: testEvents, Timeouts: map[string]int{"PreCompact": 20, "SessionEnd": 30}}
	out, _, err := Add(nil, h)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout *int   `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatal(err)
	}
	for _, ev := range testEvents {
		groups := s.Hooks[ev]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Fatalf("%s: %+v", ev, groups)
		}
		hk := groups[0].Hooks[0]
		if hk.Type != "command" || hk.Command != h.Command || groups[0].Matcher != "" {
			t.Errorf("%s: %+v", ev, hk)
		}
		want, ok := h.Timeouts[ev]
		if ok != (hk.Timeout != nil) || (ok && *hk.Timeout != want) {
			t.Errorf("%s: timeout %v, want %d (set %v)", ev, hk.Timeout, want, ok)
		}
	}

	moved := Hook{Command: "/opt/bin/continuity hook", Events: testEvents}
	out2, changed, err := Add(out, moved)
	if err != nil || !changed {
		t.Fatalf("Add with a new path: changed=%v err=%v", changed, err)
	}
	want := bytes.ReplaceAll(out, []byte(`"continuity hook"`), []byte(`"/opt/bin/continuity hook"`))
	if !bytes.Equal(out2, want) {
		t.Errorf("path update is not in place:\n%s\nwant\n%s", out2, want)
	}
}

func TestAddRejectsOtherCommands(t *testing.T) {
	for _, cmd := range []string{"", "continuity", "echo continuity hook", "continuity-hook", "/bin/continuity lint"} {
		if out, _, err := Add([]byte("{}"), Hook{Command: cmd, Events: testEvents}); err == nil {
			t.Errorf("Add with command %q = %q, want an error", cmd, out)
		}
	}
}

func TestIsContinuityHook(t *testing.T) {
	tests := map[string]bool{
		"continuity hook":                          true,
		"/usr/local/bin/continuity hook":           true,
		"~/go/bin/continuity hook --debug":         true,
		`"/opt/My Tools/continuity" hook`:          true,
		`'/opt/My Tools/continuity' hook`:          true,
		`/opt/My\ Tools/continuity hook`:           true,
		"CONTINUITY_DEBUG=1 continuity hook":       true,
		`C:\Tools\continuity.exe hook`:             true,
		"continuity  \t hook":                      true,
		"continuity":                               false,
		"continuity lint":                          false,
		"continuityd hook":                         false,
		"/usr/bin/continuity/other hook":           false,
		"echo continuity hook":                     false,
		"continuity 'hook x'":                      false,
		"bash -c 'continuity hook'":                false,
		"$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh":   false,
		"A=1 B=2 /x/continuity hook 2>>/tmp/e.log": true,
	}
	for cmd, want := range tests {
		if got := IsContinuityHook(cmd); got != want {
			t.Errorf("IsContinuityHook(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestStatusEmpty(t *testing.T) {
	for _, in := range [][]byte{nil, []byte(""), []byte(" \n"), []byte("{}")} {
		st, err := Status(in, testEvents...)
		if err != nil || len(st) != len(testEvents) || !noContinuity(st) {
			t.Errorf("Status(%q) = %v, %v", in, st, err)
		}
	}
}

// FuzzAddRemove checks, on any input, that Add and Remove either refuse it
// or produce valid JSON, that Add is idempotent, and that Remove takes away
// exactly what Add put.
func FuzzAddRemove(f *testing.F) {
	for _, c := range loadCases(f) {
		f.Add(c.in)
		f.Add(bytes.TrimSuffix(c.in, []byte("\n")))
		f.Add(bytes.ReplaceAll(c.in, []byte("\n"), []byte("\r\n")))
		if out, _, err := Add(c.in, testHook); err == nil {
			f.Add(out)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		before, statusErr := Status(in, testEvents...)
		out, changed, err := Add(in, testHook)
		if err != nil {
			if out != nil {
				t.Fatalf("Add returned output with its error %v", err)
			}
			if _, _, rerr := Remove(in, testEvents...); rerr == nil && statusErr == nil {
				t.Fatalf("Add refused (%v) but Remove and Status accepted", err)
			}
			return
		}
		if statusErr != nil {
			t.Fatalf("Add accepted what Status refused: %v", statusErr)
		}
		checkAdd(t, in, out, changed, testHook)
		removed, _, err := Remove(out, testEvents...)
		if err != nil {
			t.Fatalf("Remove(Add): %v", err)
		}
		if !json.Valid(removed) {
			t.Fatalf("Remove output is not valid JSON: %q", removed)
		}
		if st, err := Status(removed, testEvents...); err != nil || !noContinuity(st) {
			t.Fatalf("after Remove, Status = %v, %v", st, err)
		}
		if hasEmptyTarget(in) {
			return
		}
		if noContinuity(before) {
			if !bytes.Equal(removed, in) {
				t.Fatalf("Remove(Add(in)) != in\nin:  %q\nout: %q\nrem: %q", in, out, removed)
			}
			return
		}
		direct, _, err := Remove(in, testEvents...)
		if err != nil || !bytes.Equal(direct, removed) {
			t.Fatalf("Remove(Add(in)) = %q, Remove(in, testEvents...) = %q, %v", removed, direct, err)
		}
	})
}

func TestErrorPositions(t *testing.T) {
	tests := []struct {
		in   string
		line int
		col  int
		msg  string
	}{
		{`{"a":`, 1, 6, "unexpected end"},
		{"{\n  \"a\": 1", 2, 9, "unexpected end"},
		{`{"a": [1,]}`, 1, 10, "trailing comma"},
		{"{\n  \"é\": x}", 2, 8, "invalid character 'x'"}, // columns count characters, not bytes
		{`{"a":1}}`, 1, 8, "after top-level value"},
		{"{\n\t\"hooks\": 5\n}", 2, 11, `"hooks" must be an object`},
		{`{"hooks":{"SessionEnd":"x"}}`, 1, 24, "hooks.SessionEnd must be an array"},
		{"\"x\"", 1, 1, "must be a JSON object"},
	}
	for _, tt := range tests {
		_, _, err := Add([]byte(tt.in), testHook)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("Add(%q) error = %v, want *Error", tt.in, err)
			continue
		}
		if pe.Line != tt.line || pe.Column != tt.col || !strings.Contains(pe.Msg, tt.msg) {
			t.Errorf("Add(%q) error = %v, want %d:%d: …%s…", tt.in, err, tt.line, tt.col, tt.msg)
		}
	}
}

// TestAddNeedsEvents: a hook names the host's events; none is an error,
// never a guess at some host's.
func TestAddNeedsEvents(t *testing.T) {
	if out, _, err := Add([]byte("{}"), Hook{Command: "continuity hook"}); err == nil || out != nil {
		t.Errorf("Add with no events = %q, %v", out, err)
	}
}
