package install

import (
	"path/filepath"
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
