package claude

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTranscriptDirs: the directory of a project's sessions is named as
// the client names it (every UTF-16 unit not an ASCII letter or digit a
// '-', cut at 200), under CLAUDE_CONFIG_DIR or HOME/.claude; the roots add
// the directories of sessions started in the project's subdirectories and
// of a long path's hashed name, and nothing else.
func TestTranscriptDirs(t *testing.T) {
	cfg := t.TempDir()
	home := t.TempDir()
	getenv := func(k string) string {
		return map[string]string{"CLAUDE_CONFIG_DIR": cfg, "HOME": home}[k]
	}
	for root, want := range map[string]string{
		"/home/dev/proj":               "-home-dev-proj",
		"/home/dev/my_proj.v2":         "-home-dev-my-proj-v2",
		"/home/dév/p":                  "-home-d-v-p",                  // one UTF-16 unit, one '-'
		"/home/\U0001F600/p":           "-home----p",                   // outside the BMP: two units
		"/" + strings.Repeat("a", 300): "-" + strings.Repeat("a", 199), // cut at 200
	} {
		if got := (Host{}).TranscriptDir(getenv, root); got != filepath.Join(cfg, "projects", want) {
			t.Errorf("TranscriptDir(%q) = %q, want projects/%s", root, got, want)
		}
	}
	noCfg := func(k string) string { return map[string]string{"HOME": home}[k] }
	if got := (Host{}).TranscriptDir(noCfg, "/p"); got != filepath.Join(home, ".claude", "projects", "-p") {
		t.Errorf("without CLAUDE_CONFIG_DIR: %q", got)
	}
	projects := filepath.Join(cfg, "projects")
	for _, d := range []string{"-home-dev-proj", "-home-dev-proj-src", "-home-dev-projects", "-home-dev-other", "-" + strings.Repeat("a", 199) + "-1x2y3z"} {
		if err := os.MkdirAll(filepath.Join(projects, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got := (Host{}).TranscriptRoots(getenv, "/home/dev/proj")
	if want := []string{filepath.Join(projects, "-home-dev-proj-src")}; !slices.Equal(got, want) {
		t.Errorf("TranscriptRoots = %q, want %q", got, want)
	}
	got = (Host{}).TranscriptRoots(getenv, "/"+strings.Repeat("a", 300))
	if want := []string{filepath.Join(projects, "-"+strings.Repeat("a", 199)+"-1x2y3z")}; !slices.Equal(got, want) {
		t.Errorf("TranscriptRoots of a long path = %q, want %q", got, want)
	}
}
