package install

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
)

func TestSettingsPath(t *testing.T) {
	s := Settings{Agent: "x", Project: filepath.Join(".x", "p.json"), User: "u.json", Home: filepath.Join("h", ".x"), HomeVar: "X_HOME"}
	if got, err := s.Path(agent.Project, "root"); err != nil || got != filepath.Join("root", ".x", "p.json") {
		t.Errorf("project: %q, %v", got, err)
	}
	if got, err := s.Path(agent.User, "root"); err != nil || got != filepath.Join("h", ".x", "u.json") {
		t.Errorf("user: %q, %v", got, err)
	}
	if _, err := s.Path(agent.Project, ""); err == nil || !strings.HasPrefix(err.Error(), "x: ") {
		t.Errorf("no root: %v", err)
	}
	s.Home = ""
	if _, err := s.Path(agent.User, "root"); err == nil || !strings.Contains(err.Error(), "X_HOME") {
		t.Errorf("no home: %v", err)
	}
}

func TestAgentStatus(t *testing.T) {
	settings := []byte(`{"hooks": {
  "SessionStart": [{"hooks": [{"type": "command", "command": "continuity hook"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "continuity hook --agent x"}]}]
}}`)
	st, err := AgentStatus(settings, "x", "SessionStart", "Stop", "SessionEnd")
	if err != nil {
		t.Fatal(err)
	}
	if st.Events["SessionStart"] != "continuity hook" || st.Events["Stop"] != "continuity hook --agent x" || st.Events["SessionEnd"] != "" {
		t.Errorf("events: %q", st.Events)
	}
	if want := []string{`SessionStart runs "continuity hook", without --agent x`}; !slices.Equal(st.Stale, want) {
		t.Errorf("stale: %q, want %q", st.Stale, want)
	}
	if _, err := AgentStatus([]byte(`{"hooks": [`), "x", "Stop"); err == nil {
		t.Error("unparsable settings: no error")
	}
}
