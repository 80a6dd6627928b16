package core

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/agent/claude"
	"github.com/continuity-md/continuity/internal/agent/codex"
	"github.com/continuity-md/continuity/internal/install"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/testkit"
)

func options(r *testkit.Repo, hs ...agent.Host) SetupOptions {
	served := make([]agent.Served, len(hs))
	for i, h := range hs {
		served[i] = agent.Serve(h)
	}
	return SetupOptions{Dir: r.Dir, Getenv: r.Getenv, Hosts: served, All: []agent.Served{agent.Serve(claude.Host{}), agent.Serve(codex.Host{})}, Program: "continuity"}
}

// TestInitUninstall: init registers the hooks, creates the directories and
// the merge driver; again, it changes nothing; uninstall removes what it
// added, and the merge driver once no host is left.
func TestInitUninstall(t *testing.T) {
	r := testkit.New(t, false)
	o := options(r, claude.Host{}, codex.Host{})
	res, err := Init(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hosts) != 2 || res.Hosts[0].Action != "registered" || res.Hosts[1].Action != "registered" {
		t.Fatalf("init: %+v", res.Hosts)
	}
	if res.LedgerDir != "thoughts/ledgers" || res.MergeDriver != "registered" || res.PreCommit != "none" {
		t.Errorf("init: %+v", res)
	}
	if !strings.Contains(r.Read(".gitattributes"), install.MergeDriver) {
		t.Errorf(".gitattributes: %q", r.Read(".gitattributes"))
	}
	if last := res.Lines[len(res.Lines)-1]; !strings.HasPrefix(last, "next: continuity new NAME") {
		t.Errorf("last line %q", last)
	}
	again, err := Init(o)
	if err != nil || again.Hosts[0].Action != "unchanged" || again.MergeDriver != "unchanged" {
		t.Errorf("init again: %+v, %v", again, err)
	}

	// One host removed: the other keeps the repository's installers.
	un, err := Uninstall(options(r, claude.Host{}))
	if err != nil || un.Hosts[0].Action != "removed" || un.MergeDriver != "kept" {
		t.Fatalf("uninstall claude: %+v, %v", un, err)
	}
	un, err = Uninstall(options(r, codex.Host{}))
	if err != nil || un.Hosts[0].Action != "removed" || un.MergeDriver != "removed" {
		t.Fatalf("uninstall codex: %+v, %v", un, err)
	}
	if strings.Contains(r.Read(".gitattributes"), install.MergeDriver) {
		t.Errorf(".gitattributes still names the driver: %q", r.Read(".gitattributes"))
	}
}

// TestInitRefusesMalformedSettings: a settings file that does not parse
// stops init before any file is written, and is named with its line.
func TestInitRefusesMalformedSettings(t *testing.T) {
	r := testkit.New(t, false)
	h := claude.Host{}
	path, err := h.SettingsPath(r.Getenv, r.Dir, agent.Project)
	if err != nil {
		t.Fatal(err)
	}
	rel := strings.TrimPrefix(path, r.Dir+"/")
	r.Write(rel, "{\n  \"hooks\": [,\n}\n")
	_, err = Init(options(r, codex.Host{}, h))
	var ie *install.Error
	if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), path+":2:") {
		t.Fatalf("init: %v, want %s:2:…", err, path)
	}
	if r.Read(rel) != "{\n  \"hooks\": [,\n}\n" {
		t.Error("the malformed file was rewritten")
	}
	if r.Read(".gitattributes") != "" {
		t.Error("init wrote .gitattributes after refusing")
	}
	cp, _ := codex.Host{}.SettingsPath(r.Getenv, r.Dir, agent.Project)
	if r.Read(strings.TrimPrefix(cp, r.Dir+"/")) != "" {
		t.Error("init registered the other host after refusing")
	}
}

func TestProgram(t *testing.T) {
	for in, want := range map[string]string{
		"continuity":                    "continuity",
		"/opt/bin/continuity hook":      "/opt/bin/continuity",
		"continuity hook --agent codex": "continuity",
		"'/my dir/continuity' hook":     "'/my dir/continuity'",
		"  /usr/local/bin/continuity  ": "/usr/local/bin/continuity",
		"/opt/hooky/continuity":         "/opt/hooky/continuity",
	} {
		if got := Program(in); got != want {
			t.Errorf("Program(%q) = %q, want %q", in, got, want)
		}
	}
	if Program("") == "" {
		t.Error("Program(\"\") is empty: it must name this binary")
	}
}

func TestAgentArg(t *testing.T) {
	if got := AgentArg(claude.Host{}, "claude"); got != "" {
		t.Errorf("default host: %q", got)
	}
	if got := AgentArg(codex.Host{}, "claude"); got != " --agent codex" {
		t.Errorf("codex: %q", got)
	}
}

// TestPreCommitSymlinkOutsideTree: with core.hooksPath in the working tree
// (husky's .husky) and a committed pre-commit that is a symlink to a script
// outside the tree, init --pre-commit refuses the write instead of
// following the link; the script outside is left as it was. A hook in the
// git directory, the user's own, is still written.
func TestPreCommitSymlinkOutsideTree(t *testing.T) {
	r := testkit.New(t, false)
	outside := filepath.Join(t.TempDir(), "shared-hook.sh")
	const script = "#!/bin/sh\necho shared\n"
	if err := os.WriteFile(outside, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Mkdir(".husky")
	if err := os.Symlink(outside, r.Path(".husky/pre-commit")); err != nil {
		t.Fatal(err)
	}
	r.Git("config", "core.hooksPath", ".husky")
	o := options(r)
	o.PreCommit = true
	_, err := Init(o)
	if !errors.Is(err, safefile.ErrOutsideRoot) {
		t.Errorf("init --pre-commit through a symlink out of the tree: %v, want %v", err, safefile.ErrOutsideRoot)
	}
	if b, _ := os.ReadFile(outside); string(b) != script {
		t.Errorf("the script outside the tree was changed:\n%s", b)
	}
	if fi, _ := os.Stat(outside); fi.Mode().Perm() != 0o644 {
		t.Errorf("the script outside the tree was made %v", fi.Mode().Perm())
	}

	// The default hooks directory, in .git: written as before.
	r.Git("config", "--unset", "core.hooksPath")
	res, err := Init(o)
	if err != nil || res.PreCommit != "installed" {
		t.Fatalf("init --pre-commit in .git/hooks: %+v, %v", res.PreCommit, err)
	}
	if !strings.Contains(r.Read(".git/hooks/pre-commit"), "scan --staged") {
		t.Errorf(".git/hooks/pre-commit: %q", r.Read(".git/hooks/pre-commit"))
	}
}
