package compat

import (
	"github.com/continuity-md/continuity/internal/project"
	"github.com/continuity-md/continuity/internal/testkit"
)

// openProject opens r's project, failing the test when it cannot.
func openProject(r *testkit.Repo) *project.Project {
	r.T.Helper()
	p, err := project.OpenWith(r.Dir, r.Getenv)
	if err != nil {
		r.T.Fatal(err)
	}
	return p
}
