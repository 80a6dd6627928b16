package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestPrecedence(t *testing.T) {
	root, user := t.TempDir(), t.TempDir()
	write(t, filepath.Join(user, "continuity", "config.yaml"), "budget: 7000\nstale_after: 3d\nretention:\n  days: 10\n")
	write(t, filepath.Join(root, ConfigFile), "# team settings\nbudget: 8000\nsources:\n  resume: full\n")
	l := loadConfig(root, user, env(map[string]string{"CONTINUITY_STALE_AFTER": "36h"}))
	if len(l.Problems) > 0 {
		t.Fatal(l.Problems)
	}
	if l.Budget != 8000 || !strings.HasSuffix(l.From["budget"], ".continuity.yaml:2") {
		t.Errorf("project should win over user: budget %d from %s", l.Budget, l.From["budget"])
	}
	if time.Duration(l.StaleAfter) != 36*time.Hour || l.From["stale_after"] != "$CONTINUITY_STALE_AFTER" {
		t.Errorf("env should win: stale_after %v from %s", time.Duration(l.StaleAfter), l.From["stale_after"])
	}
	if l.Retention.Days != 10 || l.Retention.Max != 200 {
		t.Errorf("user retention.days with default max: %+v", l.Retention)
	}
	if l.Sources["resume"] != "full" || l.Sources["fork"] != "short" {
		t.Errorf("sources should merge key by key: %v", l.Sources)
	}
	if _, set := l.From["ledger_dir"]; set || l.LedgerDir != "thoughts/ledgers" {
		t.Errorf("ledger_dir should be the default: %q %v", l.LedgerDir, l.From)
	}
}

func TestBadConfigKeepsDefaults(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ConfigFile), "budget: 12000\nledger_dir: ../outside\nsources:\n  resume: everything\nhandoff:\n  colour: red\nbogus: 1\nstale_after: soon\nhandoff_dir: notes/handoffs\n")
	l := loadConfig(root, "", nil)
	want := []string{
		".continuity.yaml:1: budget must be from 500 to 9,900",
		".continuity.yaml:2: ledger_dir must be a directory inside the repository",
		".continuity.yaml:4: sources.resume must be full, short or none",
		".continuity.yaml:6: handoff: unknown key \"colour\"",
		".continuity.yaml:7: bogus: unknown key",
		".continuity.yaml:8: stale_after:",
	}
	if len(l.Problems) != len(want) {
		t.Fatalf("problems = %v", l.Problems)
	}
	for i, w := range want {
		if !strings.Contains(l.Problems[i].Error(), w) {
			t.Errorf("problem %d = %q, want it to contain %q", i, l.Problems[i], w)
		}
	}
	d := DefaultConfig()
	if l.Budget != d.Budget || l.LedgerDir != d.LedgerDir || l.Sources["resume"] != "short" {
		t.Errorf("bad values must leave the defaults: %+v", l.Config)
	}
	if l.HandoffDir != "notes/handoffs" {
		t.Errorf("a good key after bad ones still applies: %q", l.HandoffDir)
	}
}

func TestSyntaxErrorHasLine(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ConfigFile), "budget: 8000\nsources: [unclosed\n")
	l := loadConfig(root, "", nil)
	if len(l.Problems) != 1 || !strings.Contains(l.Problems[0].Error(), ".continuity.yaml:") {
		t.Fatalf("problems = %v", l.Problems)
	}
	if l.Budget != 9000 {
		t.Errorf("a file that does not parse applies nothing: budget %d", l.Budget)
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, "36h": 36 * time.Hour, "90m": 90 * time.Minute, "1.5d": 36 * time.Hour} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "soon", "-1d", "7x"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) should fail", bad)
		}
	}
}

// TestHostileConfigFile: a committed configuration that is not a small
// regular file inside the repository is refused quickly, as one problem,
// with the defaults kept.
func TestHostileConfigFile(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "elsewhere.yaml")
	write(t, outside, "budget: 1234\n")
	cases := map[string]func(path string){
		"symlink to /dev/zero":           func(path string) { must(t, os.Symlink("/dev/zero", path)) },
		"symlink outside the repository": func(path string) { must(t, os.Symlink(outside, path)) },
		"a named pipe":                   func(path string) { must(t, mkfifo(path)) },
		"a directory":                    func(path string) { must(t, os.Mkdir(path, 0o755)) },
		"larger than the bound": func(path string) {
			write(t, path, "budget: 8000\n# "+strings.Repeat("x", MaxConfigSize)+"\n")
		},
	}
	for name, plant := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			plant(filepath.Join(root, ConfigFile))
			done := make(chan *LoadedConfig, 1)
			go func() { done <- loadConfig(root, "", env(nil)) }()
			var l *LoadedConfig
			select {
			case l = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("Load did not return")
			}
			if len(l.Problems) != 1 {
				t.Fatalf("problems = %v, want one", l.Problems)
			}
			if !strings.Contains(l.Problems[0].Error(), ConfigFile) {
				t.Errorf("problem %q does not name the file", l.Problems[0])
			}
			if l.Config.Budget != DefaultConfig().Budget {
				t.Errorf("budget = %d, want the default", l.Config.Budget)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestSummaryIsOneLine(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ConfigFile), "budget: x\nstale_after: y\nretention: 3\n")
	l := loadConfig(root, "", env(nil))
	if len(l.Problems) < 3 {
		t.Fatalf("problems = %v", l.Problems)
	}
	s := l.Summary()
	if strings.Contains(s, "\n") || !strings.HasPrefix(s, fmt.Sprintf("%d problems", len(l.Problems))) || !strings.Contains(s, l.Problems[0].Error()) {
		t.Errorf("summary = %q", s)
	}
	if (&LoadedConfig{}).Summary() != "" {
		t.Error("no problems should say nothing")
	}
}
