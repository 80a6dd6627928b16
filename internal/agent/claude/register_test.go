package claude

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/internal/agent"
)

func TestRegisterRewritesOlderForms(t *testing.T) {
	old := []byte(`{
  "hooks": {
    "SessionStart": [{"matcher": "", "hooks": [{"type": "command", "command": "continuity hook"}]}],
    "PreCompact": [{"matcher": "", "hooks": [{"type": "command", "command": "/home/dev/go/bin/continuity hook"}]}]
  }
}
`)
	st, err := Host{}.Registered(old)
	if err != nil {
		t.Fatal(err)
	}
	want := `SessionStart runs "continuity hook", without --agent claude|PreCompact runs "/home/dev/go/bin/continuity hook", without --agent claude|` +
		`PreCompact: matcher "", which Copilot CLI rejects (init writes "*")`
	if strings.Join(st.Stale, "|") != want {
		t.Errorf("Stale = %q, want %q", st.Stale, want)
	}
	cmd := "continuity hook --agent claude"
	out, changed, err := Host{}.Register(old, cmd)
	if err != nil || !changed {
		t.Fatalf("Register = %v, %v", changed, err)
	}
	if bytes.Contains(out, []byte(`"continuity hook"`)) || bytes.Contains(out, []byte("/home/dev")) {
		t.Errorf("an older form is left:\n%s", out)
	}
	if m := gjson.GetBytes(out, "hooks.PreCompact.0.matcher"); m.Str != "*" || gjson.GetBytes(out, "hooks.PreCompact.#").Int() != 1 {
		t.Errorf("PreCompact's empty matcher is left:\n%s", out)
	}
	st, _ = Host{}.Registered(out)
	if len(st.Stale) != 0 || len(st.Notes) != 0 {
		t.Errorf("after Register: stale %q, notes %q", st.Stale, st.Notes)
	}
	for _, ev := range events {
		if st.Events[ev] != cmd {
			t.Errorf("after Register, %s runs %q", ev, st.Events[ev])
		}
	}
	if len(st.Stale) != 0 {
		t.Errorf("after Register, Stale = %q", st.Stale)
	}
	if again, changed, _ := (Host{}).Register(out, cmd); changed || !bytes.Equal(again, out) {
		t.Error("Register twice changed the settings")
	}
	if back, _, _ := (Host{}).Unregister(out); strings.Contains(string(back), "continuity") {
		t.Errorf("Unregister left: %s", back)
	}
}

func TestRegisteredPlugin(t *testing.T) {
	settings := []byte(`{"enabledPlugins": {"continuity@continuity": true, "other@x": true},
"hooks": {"SessionEnd": [{"matcher": "", "hooks": [{"type": "command", "command": "continuity hook --agent claude"}]}]}}`)
	st, err := Host{}.Registered(settings)
	if err != nil {
		t.Fatal(err)
	}
	if st.Events["SessionEnd"] != "continuity hook --agent claude" {
		t.Errorf("SessionEnd = %q, want the settings' own command", st.Events["SessionEnd"])
	}
	if st.Events["SessionStart"] != "continuity hook --agent claude (plugin continuity@continuity)" {
		t.Errorf("SessionStart = %q, want the plugin", st.Events["SessionStart"])
	}
	if len(st.Stale) != 0 {
		t.Errorf("the plugin counted as stale: %q", st.Stale)
	}
	off, _ := Host{}.Registered([]byte(`{"enabledPlugins": {"continuity@continuity": false}}`))
	if off.Events["SessionStart"] != "" {
		t.Errorf("a disabled plugin counts: %q", off.Events["SessionStart"])
	}
}

func TestSettingsFiles(t *testing.T) {
	getenv := func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return "/cfg"
		}
		return ""
	}
	files, err := Host{}.SettingsFiles(getenv, "/repo")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.FromSlash("/repo/.claude/settings.json"), filepath.FromSlash("/repo/.claude/settings.local.json"), filepath.FromSlash("/cfg/settings.json")}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Errorf("SettingsFiles = %q, want %q", files, want)
	}
	if p, _ := (Host{}).SettingsPath(getenv, "/repo", agent.User); p != want[2] {
		t.Errorf("user SettingsPath = %q", p)
	}
}

// TestRegisteredNotesRejectedFile: a PreCompact group of someone else's
// with an empty matcher makes Copilot CLI reject the file; doctor says so
// and init does not touch the group.
func TestRegisteredNotesRejectedFile(t *testing.T) {
	theirs := []byte(`{"hooks": {"PreCompact": [{"matcher": "", "hooks": [{"type": "command", "command": "./save.sh"}]}]}}`)
	st, err := Host{}.Registered(theirs)
	if err != nil || len(st.Notes) != 1 || !strings.Contains(st.Notes[0], "Copilot CLI rejects this whole file") || len(st.Stale) != 0 {
		t.Errorf("notes %q, stale %q, %v", st.Notes, st.Stale, err)
	}
	out, _, err := Host{}.Register(theirs, "continuity hook --agent claude")
	if err != nil || !bytes.Contains(out, []byte(`"matcher": "", "hooks": [{"type": "command", "command": "./save.sh"}]`)) {
		t.Errorf("their group changed (%v):\n%s", err, out)
	}
}
