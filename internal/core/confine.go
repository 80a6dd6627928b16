package core

import (
	"errors"
	"fmt"
	"strings"

	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
)

// ErrTranscriptOutside reports a transcript, named by a hook's payload,
// that does not lie inside the host's own session directory once symlinks
// are resolved.
var ErrTranscriptOutside = errors.New("lies outside the agent's own session directory")

// transcriptFiles checks the transcript at path before anything reads it
// and returns the files to read: the transcript, then the host's other
// files of that session (a Claude Code session's subagents). Every file is
// a regular file, never under /proc, /sys or /dev; for a hook (named false)
// each must also lie inside the host's own session directory for the
// project, symlinks resolved first (the directory's and the path's), so that
// a payload cannot make a hook copy a file from anywhere into a handoff. A
// subagent file that fails the check is left out; the transcript failing
// it is an error whose text carries the path cut and redacted. A path a
// person named on the command line (named true) may lie anywhere.
func transcriptFiles(p *workspace.Workspace, e Env, path string, named bool) ([]string, error) {
	var roots []string
	if !named {
		if d := e.Host.TranscriptDir(e.Getenv, p.Root); d != "" {
			roots = append(roots, d)
		}
		roots = append(roots, e.Roots...)
	}
	err := checkTranscript(path, roots)
	if e.Host.TranscriptRoots != nil && !named && (len(roots) == 0 || errors.Is(err, safefile.ErrOutsideRoot)) {
		// The project's other directories are listed only when needed.
		for _, d := range e.Host.TranscriptRoots(e.Getenv, p.Root) {
			if d != "" {
				roots = append(roots, d)
			}
		}
		if len(roots) > 0 {
			err = checkTranscript(path, roots)
		}
	}
	if !named && len(roots) == 0 {
		return nil, fmt.Errorf("%s: %w (%s keeps none this process can find)", shownPath(p, path), ErrTranscriptOutside, e.Host.Title())
	}
	if err != nil {
		if errors.Is(err, safefile.ErrOutsideRoot) {
			return nil, fmt.Errorf("%s: %w", shownPath(p, path), ErrTranscriptOutside)
		}
		if named {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %s", shownPath(p, path), causeOf(err))
	}
	files := []string{path}
	if e.Host.TranscriptFiles != nil {
		files = e.Host.TranscriptFiles(path)
	}
	if named {
		return files, nil
	}
	kept := files[:0:0]
	for i, f := range files {
		if i == 0 || f == path || checkTranscript(f, roots) == nil {
			kept = append(kept, f)
		}
	}
	return kept, nil
}

// checkTranscript opens nothing that could block: OpenRegular resolves
// symlinks and refuses pseudo files, non-regular files and targets outside
// roots (when any) before opening.
func checkTranscript(path string, roots []string) error {
	f, _, err := safefile.OpenRegular(path, roots...)
	if err != nil {
		return err
	}
	return f.Close()
}

// shownPath is path as a stderr line may show it: redacted, on one line,
// cut to its last 80 characters or so.
func shownPath(p *workspace.Workspace, path string) string {
	s := path
	if p != nil {
		s = p.Redact(s)
	}
	r := []rune(s)
	if len(r) > 80 {
		s = "…" + string(r[len(r)-79:])
	}
	return oneLineCut(s, 80)
}

// causeOf is why OpenRegular refused a path, without the paths its error
// names (the caller names the path once, redacted): "is a named pipe: not
// a regular file", "is a kernel or device file", "no such file or
// directory".
func causeOf(err error) string {
	switch {
	case errors.Is(err, safefile.ErrPseudoFile):
		return safefile.ErrPseudoFile.Error()
	case errors.Is(err, safefile.ErrNotRegular):
		// "open PATH: TARGET is a named pipe: not a regular file"
		msg := err.Error()
		if i := strings.LastIndex(msg, " is "); i >= 0 {
			return msg[i+1:]
		}
		return safefile.ErrNotRegular.Error()
	}
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}

// readWarnings are what readFacts says went wrong short of failing: a line
// each, and whether the transcript was refused.
type readWarnings struct {
	lines []string
	// refused: the transcript lay outside the host's directory, was not a
	// regular file, or was a kernel file. The session's activity is then
	// unknown, not none, so a session end hands off from git and the
	// ledger and says why, instead of taking the session for idle.
	refused bool
}

// isRefusal reports an error that refuses a transcript for where it lies
// or what kind of file it is.
func isRefusal(err error) bool {
	return errors.Is(err, ErrTranscriptOutside) || errors.Is(err, safefile.ErrPseudoFile) || errors.Is(err, safefile.ErrNotRegular)
}
