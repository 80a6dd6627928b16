package core

import (
	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/continuity-md/continuity/internal/workspace"
)

// openProject opens r's project, failing the test when it cannot.
func openProject(r *testkit.Repo) *workspace.Workspace {
	r.T.Helper()
	p, err := workspace.OpenWith(r.Dir, r.Getenv)
	if err != nil {
		r.T.Fatal(err)
	}
	return p
}
