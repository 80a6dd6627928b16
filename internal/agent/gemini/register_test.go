package gemini

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/testkit"
)

const hookCommand = "/usr/local/bin/continuity hook --agent gemini"

// TestRegisterGolden registers continuity in settings of several shapes:
// the result is the golden byte for byte, a second Register changes
// nothing, Unregister gives the input back, and Registered sees every event.
func TestRegisterGolden(t *testing.T) {
	h := Host{}
	ins, _ := filepath.Glob(filepath.Join("testdata", "register", "*.in.json"))
	ins = append(ins, "") // no settings file yet
	for _, in := range ins {
		name := strings.TrimSuffix(filepath.Base(in), ".in.json")
		var src []byte
		if in == "" {
			name = "new-file"
		} else {
			var err error
			if src, err = os.ReadFile(in); err != nil {
				t.Fatal(err)
			}
		}
		t.Run(name, func(t *testing.T) {
			out, changed, err := h.Register(src, hookCommand)
			if err != nil || !changed {
				t.Fatalf("Register: changed %v, %v", changed, err)
			}
			golden := filepath.Join("testdata", "register", name+".golden.json")
			if *testkit.Update {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("Register:\n%s\nwant (%s):\n%s", out, golden, want)
			}
			again, changed, err := h.Register(out, hookCommand)
			if err != nil || changed || !bytes.Equal(again, out) {
				t.Errorf("second Register: changed %v, err %v", changed, err)
			}
			st, err := h.Registered(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range events {
				if st.Events[ev] != hookCommand {
					t.Errorf("Registered: %s has %q", ev, st.Events[ev])
				}
			}
			if len(st.Stale) != 0 || len(st.Notes) != 0 {
				t.Errorf("Registered: stale %q notes %q", st.Stale, st.Notes)
			}
			back, changed, err := h.Unregister(out)
			if err != nil || !changed {
				t.Fatalf("Unregister: changed %v, %v", changed, err)
			}
			if in != "" && !bytes.Equal(back, src) {
				t.Errorf("Unregister did not give the input back:\n%s", back)
			}
			if st, _ := h.Registered(back); slices.ContainsFunc(events, func(ev string) bool { return st.Events[ev] != "" }) {
				t.Errorf("after Unregister: %v", st.Events)
			}
		})
	}
}

func TestRegisteredStaleAndNotes(t *testing.T) {
	h := Host{}
	out, _, err := h.Register(nil, hookCommand)
	if err != nil {
		t.Fatal(err)
	}
	// A timeout in seconds, as a Claude Code habit would write it: 10 ms.
	old := bytes.Replace(out, []byte(`"timeout": 10000`), []byte(`"timeout": 10`), 1)
	st, err := h.Registered(old)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Stale) != 0 || len(st.Notes) != 1 || !strings.Contains(st.Notes[0], "SessionStart hook's timeout is 10 ms") {
		t.Errorf("stale %q notes %q, want a note on SessionStart's timeout", st.Stale, st.Notes)
	}
	// The form before hosts had names, and one naming another agent: init
	// rewrites them.
	older := bytes.Replace(out, []byte(hookCommand), []byte("/usr/local/bin/continuity hook"), 1)
	older = bytes.Replace(older, []byte(hookCommand), []byte("/usr/local/bin/continuity hook --agent claude"), 1)
	if st, _ := h.Registered(older); !slices.Equal(st.Stale, []string{evSessionStart, evBeforeAgent}) {
		t.Errorf("stale %q, want SessionStart and BeforeAgent", st.Stale)
	}
	if rewritten, changed, _ := h.Register(older, hookCommand); !changed || !bytes.Equal(rewritten, out) {
		t.Errorf("Register did not rewrite the older forms in place:\n%s", rewritten)
	}
	off := append([]byte(`{"hooksConfig":{"enabled":false},`), bytes.TrimPrefix(out, []byte("{"))...)
	if st, _ := h.Registered(off); len(st.Ignored) != 1 || !strings.Contains(st.Ignored[0], "no hook at all") {
		t.Errorf("hooks off: ignored %q (Gemini CLI runs none: doctor must fail)", st.Ignored)
	}
	if _, err := h.Registered([]byte(`{"hooks": [`)); err == nil {
		t.Errorf("malformed settings: no error")
	}
	if _, _, err := h.Register([]byte(`{"hooks":{"SessionEnd":{}}}`), hookCommand); err == nil {
		t.Errorf("an event that is not an array: no error")
	}
	if _, _, err := h.Register(nil, "echo hi"); err == nil {
		t.Errorf("a command that is not continuity's hook: no error")
	}
}

func TestSettingsPath(t *testing.T) {
	h := Host{}
	getenv := func(k string) string { return map[string]string{"GEMINI_CLI_HOME": "/gh", "HOME": "/home/u"}[k] }
	if p, err := h.SettingsPath(getenv, "/repo", agent.Project); err != nil || p != "/repo/.gemini/settings.json" {
		t.Errorf("project: %q %v", p, err)
	}
	if p, err := h.SettingsPath(getenv, "/repo", agent.User); err != nil || p != "/gh/.gemini/settings.json" {
		t.Errorf("user: %q %v", p, err)
	}
	noHome := func(k string) string { return map[string]string{"HOME": "/home/u"}[k] }
	if p, _ := h.SettingsPath(noHome, "/repo", agent.User); p != "/home/u/.gemini/settings.json" {
		t.Errorf("user without GEMINI_CLI_HOME: %q", p)
	}
	if _, err := h.SettingsPath(getenv, "", agent.Project); err == nil {
		t.Errorf("no root: no error")
	}
}

func TestTrustNotes(t *testing.T) {
	h := Host{}
	home := t.TempDir()
	vars := map[string]string{"GEMINI_CLI_HOME": home}
	getenv := func(k string) string { return vars[k] }
	root := filepath.Join(home, "work", "repo")
	trusted := filepath.Join(home, ".gemini", "trustedFolders.json")
	tests := []struct {
		name, rules string
		want        bool // a note: not trusted
	}{
		{"no file", "", true},
		{"the folder", `{"` + root + `":"TRUST_FOLDER"}`, false},
		{"a parent folder", `{"` + filepath.Join(home, "work") + `":"TRUST_FOLDER"}`, false},
		{"TRUST_PARENT on a sibling", `{"` + filepath.Join(home, "work", "other") + `":"TRUST_PARENT"}`, false},
		{"a more specific DO_NOT_TRUST wins", `{"` + filepath.Join(home, "work") + `":"TRUST_FOLDER","` + root + `":"DO_NOT_TRUST"}`, true},
		{"another folder only", `{"` + filepath.Join(home, "elsewhere") + `":"TRUST_FOLDER"}`, true},
		{"a name that only starts the same", `{"` + root + `-old":"TRUST_FOLDER"}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(trusted)
			if tt.rules != "" {
				writeSettings(t, trusted, tt.rules)
			}
			notes, other := h.TrustNotes(getenv, root)
			if len(other) > 0 {
				t.Errorf("notes %q: an untrusted folder runs no hook, doctor must fail", other)
			}
			if (len(notes) > 0) != tt.want {
				t.Fatalf("notes %q, want a note: %v", notes, tt.want)
			}
			if tt.want && !strings.Contains(notes[0], "do not run") {
				t.Errorf("the note does not say the hooks do not run: %q", notes[0])
			}
		})
	}
	os.Remove(trusted)
	vars["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
	if n, _ := h.TrustNotes(getenv, root); n != nil {
		t.Errorf("GEMINI_CLI_TRUST_WORKSPACE=true: %q", n)
	}
	delete(vars, "GEMINI_CLI_TRUST_WORKSPACE")
	writeSettings(t, filepath.Join(home, ".gemini", "settings.json"), `{"security":{"folderTrust":{"enabled":false}}}`)
	if n, _ := h.TrustNotes(getenv, root); n != nil {
		t.Errorf("folder trust off: %q", n)
	}
}
