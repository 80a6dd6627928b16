package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/testkit"
)

func gitRepo(t *testing.T) string {
	t.Helper()
	return testkit.New(t, false).Dir
}

func TestHandoffTemplateOnlyTracked(t *testing.T) {
	root := gitRepo(t)
	outside := filepath.Join(t.TempDir(), "t.tmpl")
	files := map[string]string{
		"tmpl/handoff.tmpl": "tracked {{.Summary}}",
		".env":              "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"untracked.tmpl":    "untracked",
		".gitignore":        ".env\n",
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(outside, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link.tmpl")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", root, "add", "tmpl/handoff.tmpl", ".gitignore", "link.tmpl").CombinedOutput(); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	for name, want := range map[string]string{
		"tmpl/handoff.tmpl": "", "./tmpl/handoff.tmpl": "",
		".env": "not a file git tracks", "untracked.tmpl": "not a file git tracks",
		"../t.tmpl": "not inside the repository", outside: "not inside the repository",
		"link.tmpl": "outside",
	} {
		p, err := Open(root)
		if err != nil {
			t.Fatal(err)
		}
		p.Config.Config.Handoff.Template = name
		text, err := p.HandoffTemplate()
		if want == "" {
			if err != nil || text != files["tmpl/handoff.tmpl"] {
				t.Errorf("%s: %q, %v", name, text, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) || text != "" {
			t.Errorf("%s: %q, %v; want an error saying %q", name, text, err, want)
		}
	}
}
