//go:build unix

package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/testkit"
)

// TestPathCheck: doctor asks a login shell of $SHELL whether `continuity`
// resolves, as the agent's shell would; a profile whose PATH lacks it fails
// the check with how to fix it, one whose PATH has it passes.
func TestPathCheck(t *testing.T) {
	r := testkit.New(t, true)
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "continuity"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A login shell whose profile sets its own PATH ($PROFILE_PATH).
	shell := filepath.Join(t.TempDir(), "loginsh")
	if err := os.WriteFile(shell, []byte("#!/bin/sh\n[ \"$1\" = -l ] && shift\nPATH=$PROFILE_PATH\nexport PATH\nexec /bin/sh \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := DoctorOptions{Project: openProject(r), Getenv: func(k string) string {
		if k == "SHELL" {
			return shell
		}
		return r.Getenv(k)
	}}
	t.Setenv("PROFILE_PATH", "/usr/bin:/bin")
	c := pathCheck(o)
	if c.OK || !strings.Contains(c.Info, "not found in a login shell") || !strings.Contains(c.Fix, "ln -s ") {
		t.Errorf("without it on the profile's PATH: %+v", c)
	}
	t.Setenv("PROFILE_PATH", bin+":/usr/bin:/bin")
	if c := pathCheck(o); !c.OK || !strings.Contains(c.Info, filepath.Join(bin, "continuity")) {
		t.Errorf("with it: %+v", c)
	}
	o.Getenv = r.Getenv // no $SHELL
	if c := pathCheck(o); !c.OK || !strings.Contains(c.Info, "not checked") {
		t.Errorf("no shell: %+v", c)
	}
}
