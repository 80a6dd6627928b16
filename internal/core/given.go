package core

import (
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/inject"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
)

// What a session start gives the model of a stream's handoffs: the latest
// one with substance (never a chat-only one that came after it), and a
// line for each other session that ended since the stream was last given
// to a model. When that was is local state (givenFile).

// maxWalk bounds the handoffs read back in search of one with substance,
// and the lines given to the others.
const (
	maxWalk   = 20
	maxOthers = 5
)

// givenFile keeps when stream name was last given to a model, in local
// state.
func givenFile(p *workspace.Workspace, name string) string {
	return filepath.Join(p.Local.Dir, "given", name)
}

// lastGiven is when stream name was last given to a model (zero: never
// recorded): the modification time of its marker file.
func lastGiven(p *workspace.Workspace, name string) time.Time {
	fi, err := os.Lstat(givenFile(p, name))
	if err != nil || !fi.Mode().IsRegular() {
		return time.Time{}
	}
	return fi.ModTime()
}

// markGiven records that stream name was given to a model at now, as the
// marker file's modification time: one call that changes no file's bytes,
// so nothing can be torn and a start writes no new file for it (best
// effort: without it, the next start gives lines to fewer sessions). A
// marker that is not a regular file (a link planted there) is left alone.
func markGiven(p *workspace.Workspace, name string, now time.Time) {
	path := givenFile(p, name)
	if p.Local.Mkdir(filepath.Dir(path)) != nil {
		return
	}
	_ = safefile.Touch(path, now, p.Local.Options())
}

// chooseHandoff returns the handoff to give for stream name, starting from
// the latest (at latest, parsed as parsed): itself when it has substance,
// else the newest earlier one that has (nil when none within maxWalk);
// and the other sessions' handoffs written since the stream was last
// given to a model, newest first. The directory is listed only when the
// latest has no substance or is newer than the last time the stream was
// given: a start otherwise stays flat in the number of handoffs.
func chooseHandoff(p *workspace.Workspace, name, latest string, parsed *handoff.Parsed, since time.Time) (string, *handoff.Parsed, []inject.EndedSession) {
	substantial := handoff.Substantial(parsed)
	if substantial && (since.IsZero() || !handoff.Time(latest).After(since)) {
		return latest, parsed, nil
	}
	files := handoff.Files(filepath.Dir(latest))
	slices.Reverse(files)
	if len(files) > maxWalk {
		files = files[:maxWalk]
	}
	chosen, chosenParsed := "", (*handoff.Parsed)(nil)
	if substantial {
		chosen, chosenParsed = latest, parsed
	}
	var others []inject.EndedSession
	for _, f := range files {
		if f == chosen {
			continue
		}
		h := readParsed(p, f)
		if h == nil {
			continue
		}
		if chosen == "" && handoff.Substantial(h) {
			chosen, chosenParsed = f, h
			continue
		}
		newer := !since.IsZero() && handoff.Time(f).After(since) || since.IsZero() && chosen == ""
		if newer && len(others) < maxOthers {
			others = append(others, inject.EndedSession{Meta: h.Meta, Summary: h.Sections[handoff.HeadingSummary], Path: p.Rel(f)})
		}
		if chosen != "" && (since.IsZero() || !handoff.Time(f).After(since)) {
			break
		}
	}
	return chosen, chosenParsed, others
}

// readParsed reads and parses the handoff at path (nil when it cannot).
func readParsed(p *workspace.Workspace, path string) *handoff.Parsed {
	src, err := safefile.Read(path, p.WriteOptions())
	if err != nil {
		return nil
	}
	h, err := compat.ParseHandoff(src)
	if err != nil {
		return nil
	}
	return h
}
