package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/safefile"
)

// racyWindow is how long after a directory changed its modification time
// may still not tell a later change apart (coarse file system clocks): a
// memo written that soon after is not trusted.
const racyWindow = 2 * time.Second

// LatestHandoff returns the path of work stream name's newest handoff, as
// handoff.Latest does, without listing the directory each time: the answer
// is remembered in local state with the directory's modification time,
// size and inode, and used while they are unchanged (adding, removing or
// renaming a handoff changes them). Listing 100,000 handoffs costs a start
// half a second; the memo keeps a start as fast with them as with 2,000.
// A memo written within racyWindow of the directory's change is not
// trusted, so two changes within one tick of a coarse clock cannot hide
// the second. Errors are handoff.Latest's.
//
// A Continuous-Claude tree also keeps handoffs directly in the handoff
// directory, outside any stream's folder; the newest of those attributed to
// name (see Loose) is compared by date with the folder's newest.
//
// A handoff dated in the future of now (beyond handoff.ClockSkew) is never
// the latest.
func (p *Workspace) LatestHandoff(name string, now time.Time) (string, error) {
	path, err := p.latestInDir(name, now)
	// The stream's folders under other spellings (see StreamKey).
	if dirs := p.streamDirs(name); len(dirs) > 1 || len(dirs) == 1 && filepath.Dir(path) != dirs[0] {
		for _, d := range dirs {
			if d == filepath.Dir(path) {
				continue
			}
			if other, _, e := handoff.LatestAt(d, now); e == nil && (err != nil || handoff.Time(other).After(handoff.Time(path))) {
				path, err = other, nil
			}
		}
	}
	var loose string
	for _, l := range p.Loose(name, 0) {
		if !handoff.FutureAt(l, now) {
			loose = l
			break
		}
	}
	if loose == "" {
		return path, err
	}
	if err != nil || handoff.Time(loose).After(handoff.Time(path)) {
		return loose, nil
	}
	return path, nil
}

// latestInDir is LatestHandoff within the stream's own folder. The memo
// is written only when no handoff was passed over as dated in the future:
// once its date comes, it may be the latest.
func (p *Workspace) latestInDir(name string, now time.Time) (string, error) {
	dir, err := p.StreamHandoffDir(name)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		path, _, err := handoff.LatestAt(dir, now)
		return path, err
	}
	key := dirKey(fi)
	slot := "latest-" + name
	if b, made, err := p.Local.Memo(slot); err == nil && made.Sub(fi.ModTime()) >= racyWindow {
		k, base, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
		if ok && k == key && base == filepath.Base(base) && handoff.IsFile(base) && !handoff.FutureAt(filepath.Join(dir, base), now) {
			return filepath.Join(dir, base), nil
		}
	}
	path, future, err := handoff.LatestAt(dir, now)
	if err != nil || future > 0 {
		return path, err
	}
	// Best effort: without the memo the next call lists the directory again.
	_ = p.Local.SetMemo(slot, []byte(key+" "+filepath.Base(path)+"\n"))
	return path, nil
}

// dirKey identifies a directory's version: modification time, size, inode.
func dirKey(fi os.FileInfo) string {
	_, ino := safefile.FileID(fi)
	return fmt.Sprintf("%d.%d.%d", fi.ModTime().UnixNano(), fi.Size(), ino)
}

// maxLooseRead bounds a loose handoff read to attribute it.
const maxLooseRead = 256 << 10

// Loose returns the handoffs kept directly in the handoff directory (not
// in a stream's folder) that belong to work stream name, newest first, at
// most limit of them (0: all). A loose handoff belongs to the stream its
// front matter names (session, or Continuous-Claude's session_name; a
// "CLAUDE-" prefix aside); one that names none belongs to the stream whose
// ledger it mentions (CONTINUITY_CLAUDE-name.md or CONTINUITY_name.md);
// one that does neither belongs to the only stream, when there is one.
func (p *Workspace) Loose(name string, limit int) []string {
	ents, err := os.ReadDir(p.HandoffDir)
	if err != nil {
		return nil
	}
	type cand struct {
		path string
		t    time.Time
	}
	var cs []cand
	for _, e := range ents {
		if !e.Type().IsRegular() || !handoff.IsFile(e.Name()) {
			continue
		}
		path := filepath.Join(p.HandoffDir, e.Name())
		cs = append(cs, cand{path, handoff.Time(path)})
	}
	if len(cs) == 0 {
		return nil
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].t.After(cs[j].t) })
	only := ""
	if streams := p.StreamNames(); len(streams) == 1 {
		only = streams[0]
	}
	var out []string
	key := StreamKey(name)
	for _, c := range cs {
		if StreamKey(p.looseOwner(c.path, only)) != key {
			continue
		}
		out = append(out, c.path)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}

// looseOwner names the stream a loose handoff belongs to, or "".
func (p *Workspace) looseOwner(path, only string) string {
	src, err := safefile.Read(path, safefile.Options{Root: p.Root, MaxSize: maxLooseRead})
	if err != nil { // a file larger than any handoff is none of a stream's
		return ""
	}
	if h, err := compat.ParseHandoff(src); err == nil && h.Meta.Stream != "" {
		return strings.TrimPrefix(h.Meta.Stream, "CLAUDE-")
	}
	for _, m := range ledgerMention().FindAllSubmatch(src, -1) {
		if n := strings.TrimPrefix(string(m[1]), "CLAUDE-"); CheckName(n) == nil {
			return n
		}
	}
	return only
}

var ledgerMention = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`CONTINUITY_([A-Za-z0-9][A-Za-z0-9._-]*?)\.md`)
})

// StreamNames lists the work streams: ledgers (the most recently modified
// first) and handoff folders, one name a stream however others spelled it
// (see StreamKey): a ledger's name over a folder's.
func (p *Workspace) StreamNames() []string {
	seen := map[string]bool{}
	var names []string
	ls, _ := p.Ledgers()
	for _, l := range ls {
		if k := StreamKey(l.Name); !seen[k] {
			seen[k] = true
			names = append(names, l.Name)
		}
	}
	if ents, err := os.ReadDir(p.HandoffDir); err == nil {
		for _, e := range ents {
			if n := e.Name(); e.IsDir() && !seen[StreamKey(n)] && CheckName(n) == nil {
				seen[StreamKey(n)] = true
				names = append(names, n)
			}
		}
	}
	return names
}

// Spellings lists the streams whose files use more than one spelling of
// their name (Beat_Studio/ and CONTINUITY_CLAUDE-beat-studio.md): for each,
// the files and folders, relative to the project root. Continuous-Claude's
// own pair, CONTINUITY_CLAUDE-x.md with the folder x, is one spelling.
func (p *Workspace) Spellings() [][]string {
	type place struct{ spelling, rel string }
	byKey := map[string][]place{}
	var keys []string
	add := func(name, path string) {
		k := StreamKey(name)
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], place{name, p.Rel(path)})
	}
	if ents, err := os.ReadDir(p.LedgerDir); err == nil {
		for _, e := range ents {
			if name, _ := ledgerName(e.Name()); name != "" && !e.IsDir() && CheckName(name) == nil {
				add(name, filepath.Join(p.LedgerDir, e.Name()))
			}
		}
	}
	if ents, err := os.ReadDir(p.HandoffDir); err == nil {
		for _, e := range ents {
			if n := e.Name(); e.IsDir() && CheckName(n) == nil {
				add(n, filepath.Join(p.HandoffDir, n)+"/")
			}
		}
	}
	var out [][]string
	for _, k := range keys {
		ps := byKey[k]
		differ := false
		for _, pl := range ps {
			differ = differ || pl.spelling != ps[0].spelling
		}
		if !differ {
			continue
		}
		var rels []string
		for _, pl := range ps {
			rels = append(rels, pl.rel)
		}
		out = append(out, rels)
	}
	return out
}

// HandoffFiles returns work stream name's handoffs, oldest first: those in
// its folders (one a spelling, see StreamKey) and the loose ones attributed
// to it (see Loose).
func (p *Workspace) HandoffFiles(name string) []string {
	dir, err := p.StreamHandoffDir(name)
	if err != nil {
		return nil
	}
	files := handoff.Files(dir)
	merged := false
	for _, other := range p.streamDirs(name) {
		if other != dir {
			files, merged = append(files, handoff.Files(other)...), true
		}
	}
	loose := p.Loose(name, 0)
	if len(loose) == 0 && !merged {
		return files
	}
	all := append(files, loose...)
	times := make(map[string]time.Time, len(all))
	for _, f := range all {
		times[f] = handoff.Time(f)
	}
	sort.SliceStable(all, func(i, j int) bool { return times[all[i]].Before(times[all[j]]) })
	return all
}
