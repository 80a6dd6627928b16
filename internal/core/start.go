package core

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

// Start creates ledger name at path with goal (redacted) and makes it the
// active one in this worktree; an existing ledger is left as it is.
func Start(p *workspace.Workspace, name, path, goal string, now time.Time) error {
	if err := p.MkdirAll(filepath.Dir(path)); err != nil {
		return fmt.Errorf("create ledger directory: %w", err)
	}
	src := ledger.New(name, p.Redact(goal), now)
	if err := safefile.Create(path, src, p.WriteOptions()); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("ledger %s already exists (make it active with `continuity use %s`)", p.Rel(path), name)
		}
		return err
	}
	return p.SetActive(name)
}

// Use makes the ledger name at path the active one in this worktree.
func Use(p *workspace.Workspace, name, path string) error {
	if _, err := os.Stat(path); err != nil {
		return LedgerNotFound(p, name, path)
	}
	return p.SetActive(name)
}
