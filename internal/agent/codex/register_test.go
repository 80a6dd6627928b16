package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/testkit"
)

const testCommand = "/usr/local/bin/continuity hook --agent codex"

// noEnv is an environment with nothing set.
func noEnv(string) string { return "" }

func section(ar *txtar.Archive, name string) ([]byte, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

func setSection(ar *txtar.Archive, name string, data []byte) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = data
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: data})
}

// TestRegisterGolden registers continuity in each testdata/register case:
// the result is byte-exact against its golden, registering again changes
// nothing, and unregistering gives back the original file.
func TestRegisterGolden(t *testing.T) {
	paths, _ := filepath.Glob("testdata/register/*.txtar")
	if len(paths) == 0 {
		t.Fatal("no testdata/register cases")
	}
	h := Host{}.Situate(noEnv, "").(Host)
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			in, _ := section(ar, "hooks.json")
			got := map[string][]byte{}
			before, serr := h.Registered(in)
			out, changed, err := h.Register(in, testCommand)
			if err != nil {
				got["error"] = []byte(err.Error() + "\n")
				if out != nil || changed {
					t.Errorf("refused Register returned output %q, changed %v", out, changed)
				}
				if serr == nil {
					t.Errorf("Registered accepted what Register refused")
				}
			} else {
				got["registered.json"] = out
				st, _ := json.MarshalIndent(before, "", "  ")
				got["status"] = append(st, '\n')
				if !changed {
					t.Error("Register reported no change")
				}
				again, changed2, err := h.Register(out, testCommand)
				if err != nil || changed2 || !bytes.Equal(again, out) {
					t.Errorf("registering twice changed the file (%v, %v):\n%s", changed2, err, again)
				}
				after, err := h.Registered(out)
				if err != nil {
					t.Fatal(err)
				}
				for _, ev := range events {
					if after.Events[ev] != testCommand {
						t.Errorf("after Register, %s runs %q", ev, after.Events[ev])
					}
				}
				if len(after.Stale) > 0 {
					t.Errorf("after Register, stale: %q", after.Stale)
				}
				removed, _, err := h.Unregister(out)
				if err != nil {
					t.Fatal(err)
				}
				want := in
				if w, ok := section(ar, "unregistered.json"); ok {
					want = w
				}
				if !bytes.Equal(removed, want) && !(len(want) == 0 && len(bytes.TrimSpace(removed)) <= 2) {
					t.Errorf("Unregister(Register(x)) =\n%s\nwant\n%s", removed, want)
				}
			}
			for name, data := range got {
				want, ok := section(ar, name)
				if *testkit.Update {
					setSection(ar, name, data)
					continue
				}
				if !ok || !bytes.Equal(data, want) {
					t.Errorf("%s:\n%s\nwant:\n%s", name, data, want)
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

// TestRegisterValidJSON checks that a fresh registration is the shape
// Codex reads (its hooks.json was verified with the real client in
// internal/e2e): SessionStart matches every source, SessionEnd has the
// 3 s timeout, and the other events match everything.
func TestRegisterValidJSON(t *testing.T) {
	out, _, err := Host{}.Register(nil, testCommand)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	var names []string
	for ev, groups := range doc.Hooks {
		names = append(names, ev)
		if len(groups) != 1 || len(groups[0].Hooks) != 1 || groups[0].Hooks[0].Type != "command" || groups[0].Hooks[0].Command != testCommand {
			t.Errorf("%s: %+v", ev, groups)
			continue
		}
		m, to := groups[0].Matcher, groups[0].Hooks[0].Timeout
		switch ev {
		case "SessionStart":
			if m != "startup|resume|clear|compact" || to != 0 {
				t.Errorf("SessionStart: matcher %q timeout %d", m, to)
			}
		case "SessionEnd":
			if m != "" || to != 3 {
				t.Errorf("SessionEnd: matcher %q timeout %d, want timeout 3", m, to)
			}
		default:
			if m != "" || to != 0 {
				t.Errorf("%s: matcher %q timeout %d", ev, m, to)
			}
		}
	}
	slices.Sort(names)
	if want := []string{"PostCompact", "PreCompact", "SessionEnd", "SessionStart", "Stop"}; !slices.Equal(names, want) {
		t.Errorf("events %q, want %q", names, want)
	}
}

// TestRegisteredStale finds registrations init would rewrite or that keep
// Codex from doing what continuity needs.
func TestRegisteredStale(t *testing.T) {
	in := []byte(`{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"continuity hook --agent codex"}]}],` +
		`"SessionEnd":[{"hooks":[{"type":"command","command":"continuity hook"}]}]}}`)
	st, err := Host{}.Situate(noEnv, "").Registered(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"SessionEnd: the command does not say --agent codex",
		`SessionStart: matcher "startup", not "startup|resume|clear|compact" (some sources get no context)`,
		"SessionEnd: timeout , not 3 (Codex kills the hook after about 1 s without it)",
	}
	if !slices.Equal(st.Stale, want) {
		t.Errorf("Stale =\n%q\nwant\n%q", st.Stale, want)
	}
	if st.Events["SessionStart"] != "continuity hook --agent codex" || st.Events["PreCompact"] != "" {
		t.Errorf("Events = %v", st.Events)
	}
}

// TestTrustNotes reads the trust Codex keeps in $CODEX_HOME/config.toml.
func TestTrustNotes(t *testing.T) {
	root := t.TempDir()
	registered, _, err := Host{}.Register(nil, testCommand)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, config string
		trusted      bool // the project
		hookTrusted  bool
	}{
		{name: "no config"},
		{name: "other project", config: "[projects.\"/elsewhere\"]\ntrust_level = \"trusted\"\n"},
		{name: "untrusted", config: "[projects.\"" + root + "\"]\ntrust_level = \"untrusted\"\n"},
		{name: "table", config: "model = \"gpt-5.5\"\n\n[projects.\"" + root + "\"] # mine\ntrust_level = \"trusted\"\n", trusted: true},
		{name: "literal key", config: "[projects.'" + root + "']\ntrust_level = 'trusted'\n", trusted: true},
		{name: "dotted", config: "[projects]\n\"" + root + "\".trust_level = \"trusted\"\n", trusted: true},
		{name: "inline", config: "projects = { \"" + root + "\" = { trust_level = \"trusted\" } }\n", trusted: true},
		{name: "inside a multi-line string", config: "notes = \"\"\"\n[projects.\"" + root + "\"]\ntrust_level = \"trusted\"\n\"\"\"\n"},
		{name: "hooks trusted", config: "[projects.\"" + root + "\"]\ntrust_level = \"trusted\"\n\n[hooks.state.\"project:" + root + "/.codex/hooks.json:SessionStart:0\"]\ntrusted_hash = \"sha256:ab12\"\n", trusted: true, hookTrusted: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if tc.config != "" {
				if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(tc.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := func(k string) string {
				if k == "CODEX_HOME" {
					return home
				}
				return ""
			}
			st, err := Host{}.Situate(env, root).Registered(registered)
			if err != nil {
				t.Fatal(err)
			}
			notes := strings.Join(st.Notes, "\n")
			// An untrusted project: Codex ignores the hooks, doctor fails.
			ignored := strings.Join(st.Ignored, "\n")
			if got := strings.Contains(ignored, "does not trust "+root); got == tc.trusted {
				t.Errorf("project trusted = %v, but ignored says:\n%s", tc.trusted, ignored)
			}
			if !tc.trusted && !strings.Contains(ignored, "trust_level = \"trusted\"") {
				t.Errorf("the reason does not say what to add:\n%s", ignored)
			}
			if got := strings.Contains(notes, "trusts none yet"); got == tc.hookTrusted {
				t.Errorf("hook trusted = %v, but notes say:\n%s", tc.hookTrusted, notes)
			}
			if !tc.hookTrusted && !strings.Contains(notes, "--dangerously-bypass-hook-trust") {
				t.Errorf("the note does not name the bypass flag:\n%s", notes)
			}
		})
	}
	// Not situated (the registry's zero Host): the repository holding the
	// working directory.
	repo, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, "src", "auth"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(repo, "src", "auth"))
	home := t.TempDir()
	t.Setenv("CODEX_HOME", home)
	st, err := Host{}.Registered(registered)
	if err != nil || !strings.Contains(strings.Join(st.Ignored, "\n"), "Codex does not trust "+repo+",") {
		t.Errorf("unsituated: ignored %q, err %v; want the working directory's repository %s", st.Ignored, err, repo)
	}
	// Nothing registered: nothing to say.
	st, err = Host{}.Situate(noEnv, root).Registered(nil)
	if err != nil || len(st.Notes) != 0 || len(st.Ignored) != 0 {
		t.Errorf("no registration: notes %q ignored %q, err %v", st.Notes, st.Ignored, err)
	}
}

func TestSettingsPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	h := Host{}
	for _, tc := range []struct {
		env   map[string]string
		scope agent.Scope
		want  string
	}{
		{nil, agent.Project, "/repo/.codex/hooks.json"},
		{map[string]string{"CODEX_HOME": "/ch"}, agent.User, "/ch/hooks.json"},
		{map[string]string{"HOME": "/home/kim"}, agent.User, "/home/kim/.codex/hooks.json"},
	} {
		got, err := h.SettingsPath(env(tc.env), "/repo", tc.scope)
		if err != nil || got != tc.want {
			t.Errorf("SettingsPath(%v, %v) = %q, %v; want %q", tc.env, tc.scope, got, err, tc.want)
		}
	}
	if _, err := h.SettingsPath(noEnv, "/repo", agent.User); err == nil {
		t.Error("User scope with no home: no error")
	}
	if got := h.TranscriptDir(env(map[string]string{"HOME": "/home/kim"}), "/repo"); got != "/home/kim/.codex/sessions" {
		t.Errorf("TranscriptDir = %q", got)
	}
	if got := h.TranscriptDir(env(map[string]string{"CODEX_HOME": "/ch", "HOME": "/home/kim"}), "/repo"); got != "/ch/sessions" {
		t.Errorf("TranscriptDir = %q", got)
	}
}
