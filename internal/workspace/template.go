package workspace

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/safefile"
)

// MaxTemplateSize bounds a project's handoff template.
const MaxTemplateSize = 64 << 10

// HandoffTemplate returns the text of the handoff template the
// configuration names (handoff.template), or "" when it names none. The
// template must be a regular file of at most MaxTemplateSize bytes that git
// tracks in this repository: a gitignored file (.env) or one outside the
// repository would otherwise be copied into every committed handoff. On a
// problem it returns "" and an error saying why; the caller then renders
// with the built-in template.
func (p *Workspace) HandoffTemplate() (string, error) {
	name := p.Config.Handoff.Template
	if name == "" {
		return "", nil
	}
	rel := path.Clean(filepath.ToSlash(name))
	if path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("handoff template %s: not inside the repository", name)
	}
	if p.Repo.Root == "" {
		return "", fmt.Errorf("handoff template %s: not in a git repository, so not a tracked file", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	tracked, err := gitfacts.Tracked(ctx, p.Repo, rel)
	if err != nil {
		return "", fmt.Errorf("handoff template %s: %w", name, err)
	}
	if !tracked {
		return "", fmt.Errorf("handoff template %s: not a file git tracks (an untracked or ignored file is never copied into handoffs)", name)
	}
	src, err := safefile.Read(filepath.Join(p.Root, filepath.FromSlash(rel)), safefile.Options{Root: p.Root, MaxSize: MaxTemplateSize})
	if err != nil {
		return "", fmt.Errorf("handoff template: %w", errors.Unwrap(err))
	}
	return string(src), nil
}
