package handoff

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// nameTime is the time layout of a handoff's file name: UTC, to the
// second, with dashes where RFC 3339 has colons (portable file names).
const nameTime = "2006-01-02T15-04-05Z"

// FileName is the handoff's file name: <UTC time>_<event>_<id8>.md.
// The event and the first 8 characters of the agent session id are
// lowercased and reduced to [a-z0-9-]; an empty one becomes "none".
func FileName(created time.Time, event, agentSession string) string {
	id := agentSession
	if r := []rune(id); len(r) > 8 {
		id = string(r[:8])
	}
	return created.UTC().Format(nameTime) + "_" + nameSlug(event) + "_" + nameSlug(id) + ".md"
}

// nameSlug lowercases s and turns every run of other characters than
// [a-z0-9-] into one "-".
func nameSlug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			b.WriteRune(r)
			dash = r == '-'
			continue
		}
		if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if out == "" {
		return "none"
	}
	return out
}

// handoffName matches the names FileName makes, and the "~N" suffix a
// writer adds when a name is taken.
var handoffName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z_[a-z0-9-]+_[a-z0-9-]+)(?:~(\d{1,9}))?\.md$`)
})

// ccName matches the dated names other tools give handoffs:
// Continuous-Claude's "2026-01-08_13-55-22_slug.md" (v2) and
// "2026-01-08_16-30_slug.yaml" (v3), "handoff_2026-01-08_13-55-22_x.md",
// "HANDOFF-2026-06-28-x.md": a date, then maybe a time of day.
var ccName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(\d{4}-\d{2}-\d{2})(?:[_T ](\d{2})[-:h](\d{2})(?:[-:](\d{2}))?)?`)
})

// knownEvent reports whether rest (a name after its time) is "_EVENT.md"
// or "_EVENT_…" for an event continuity writes.
func knownEvent(rest string) bool {
	for _, ev := range []string{"pre-compact", "session-end", "manual", "recovered"} {
		if rest == "_"+ev+".md" || strings.HasPrefix(rest, "_"+ev+"_") {
			return true
		}
	}
	return false
}

// continuityLike matches names that start with continuity's UTC time.
var continuityLike = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z`)
})

// IsFile reports whether name is a handoff file's name: continuity's own,
// or a markdown or YAML file (Continuous-Claude writes both) other than a
// directory's README or index.
func IsFile(name string) bool {
	// Every name handoffName matches (continuity's own) passes the test
	// below too, so the pattern is not compiled here: the hook checks its
	// memo of the latest handoff with this on every session start.
	ext := strings.ToLower(filepath.Ext(name))
	if ext != ".md" && ext != ".yaml" && ext != ".yml" {
		return false
	}
	base := strings.ToLower(strings.TrimSuffix(name, filepath.Ext(name)))
	return base != "readme" && base != "index" && !strings.HasPrefix(name, ".")
}

// NameTime returns the time a handoff's name carries. exact is true for
// continuity's names (UTC to the second); other tools write the local
// time of day, or only a date, so their times are approximate (the file's
// own date, when it has one, decides).
func NameTime(name string) (t time.Time, exact, ok bool) {
	if t, ok := ownNameTime(name); ok {
		return t, true, true
	}
	if m := handoffName().FindStringSubmatch(name); m != nil {
		t, err := time.Parse(nameTime, m[1][:len(nameTime)])
		return t, err == nil, err == nil
	}
	m := ccName().FindStringSubmatch(name)
	if m == nil {
		return time.Time{}, false, false
	}
	s, layout := m[1], "2006-01-02"
	if m[2] != "" {
		s += " " + m[2] + ":" + m[3]
		layout += " 15:04"
		if m[4] != "" {
			s += ":" + m[4]
			layout += ":05"
		}
	}
	t, err := time.Parse(layout, s)
	return t, false, err == nil
}

// ownNameTime reads the time of a name in continuity's own form (what
// handoffName matches) without the regular expression, which a start
// would otherwise compile for the one name it checks.
func ownNameTime(name string) (time.Time, bool) {
	if len(name) < len(nameTime) {
		return time.Time{}, false
	}
	t, err := time.Parse(nameTime, name[:len(nameTime)])
	if err != nil {
		return time.Time{}, false
	}
	rest, found := strings.CutSuffix(name[len(nameTime):], ".md")
	if !found {
		return time.Time{}, false
	}
	if i := strings.LastIndexByte(rest, '~'); i >= 0 {
		n := rest[i+1:]
		if len(n) < 1 || len(n) > 9 || strings.Trim(n, "0123456789") != "" {
			return time.Time{}, false
		}
		rest = rest[:i]
	}
	event, id, ok := strings.Cut(strings.TrimPrefix(rest, "_"), "_")
	if !strings.HasPrefix(rest, "_") || !ok || !nameWord(event) || !nameWord(id) {
		return time.Time{}, false
	}
	return t, true
}

// nameWord reports a non-empty run of [a-z0-9-].
func nameWord(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// entry is one handoff file with the time it is ordered by.
type entry struct {
	name  string
	t     time.Time
	exact bool // the time is the file's own (created or date), or a continuity name's
	n     int  // a continuity name's "~N" suffix
}

// zoneSlack is how far a name's local time of day may be from UTC.
const zoneSlack = 26 * time.Hour

// entries reads the handoff names in dir with their name times. Names
// without a time are dated by their front matter.
func entries(dir string) ([]entry, error) {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoHandoff)
	}
	if err != nil {
		return nil, fmt.Errorf("list handoffs: %w", err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("list handoffs %s: %w", dir, err)
	}
	var out []entry
	for _, name := range names {
		if !IsFile(name) {
			continue
		}
		e := entry{name: name}
		if m := handoffName().FindStringSubmatch(name); m != nil {
			e.t, _ = time.Parse(nameTime, m[1][:len(nameTime)])
			e.exact = true
			if m[2] != "" {
				e.n, _ = strconv.Atoi(m[2])
			}
			out = append(out, e)
			continue
		}
		if continuityLike().MatchString(name) {
			// Continuity's time format in a name of another shape: a
			// handoff only when an event follows the time (one named by
			// hand without an id, "…Z_manual.md"); other files there are
			// notes, not handoffs.
			if t, err := time.Parse(nameTime, name[:len(nameTime)]); err == nil && knownEvent(name[len(nameTime):]) {
				e.t, e.exact = t, true
				out = append(out, e)
			}
			continue
		}
		if t, _, ok := NameTime(name); ok {
			e.t = t
		} else if t := createdOf(filepath.Join(dir, name)); !t.IsZero() {
			e.t, e.exact = t, true
		} else {
			continue // no date in its name or its front matter: not a handoff
		}
		out = append(out, e)
	}
	return out, nil
}

// later orders entries: time, then a continuity name's suffix, then name.
func later(a, b entry) bool {
	if !a.t.Equal(b.t) {
		return a.t.After(b.t)
	}
	if a.n != b.n {
		return a.n > b.n
	}
	return a.name > b.name
}

// settle replaces the approximate times of the entries near the newest by
// the times their files give (created, or Continuous-Claude's date), and
// the times of continuity handoffs written within the newest second by
// their created milliseconds.
func settle(dir string, es []entry) {
	var newest time.Time
	for _, e := range es {
		if e.t.After(newest) {
			newest = e.t
		}
	}
	for i := range es {
		e := &es[i]
		near := newest.Sub(e.t) <= zoneSlack
		sameSecond := e.exact && newest.Sub(e.t) < time.Second
		if !near || (e.exact && !sameSecond) {
			continue
		}
		if t := createdOf(filepath.Join(dir, e.name)); !t.IsZero() {
			// A date alone (no time of day) is no better than the name's.
			if t.Equal(t.Truncate(24*time.Hour)) && !e.t.Equal(e.t.Truncate(24*time.Hour)) && e.t.Sub(t) < 24*time.Hour && e.t.Sub(t) >= 0 {
				continue
			}
			e.t = t
		}
	}
}

// Latest returns the path of the newest handoff in dir (one session's
// directory). Continuity's names start with the UTC time and order by it
// (among equal names the greatest "~N" suffix); within the newest second
// the created times decide. Other tools' dated names (Continuous-Claude's
// v2 markdown and v3 YAML handoffs) carry a local time or only a date, so
// the files near the newest are dated by their own front matter. Files
// without a date in their name are dated by their front matter. It returns
// an error wrapping ErrNoHandoff when dir is missing or holds none.
func Latest(dir string) (string, error) {
	es, err := entries(dir)
	if err != nil {
		return "", err
	}
	if len(es) == 0 {
		return "", fmt.Errorf("%s: %w", dir, ErrNoHandoff)
	}
	settle(dir, es)
	best := es[0]
	for _, e := range es[1:] {
		if later(e, best) {
			best = e
		}
	}
	return filepath.Join(dir, best.name), nil
}

// Files returns the handoffs in dir, oldest first, dated as Latest dates
// them (every file's own date is read: for listing, not the hook path).
func Files(dir string) []string {
	es, err := entries(dir)
	if err != nil {
		return nil
	}
	for i := range es {
		if !es[i].exact {
			if t := createdOf(filepath.Join(dir, es[i].name)); !t.IsZero() {
				es[i].t = t
			}
		}
	}
	settle(dir, es)
	sort.Slice(es, func(i, j int) bool { return later(es[j], es[i]) })
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = filepath.Join(dir, e.name)
	}
	return out
}

// Time returns when the handoff at path was written: its created time,
// else its date (Continuous-Claude), else the time in its name; zero when
// none says.
func Time(path string) time.Time {
	nt, _, ok := NameTime(filepath.Base(path))
	if t := createdOf(path); !t.IsZero() {
		// A date alone (Continuous-Claude's auto handoffs write one) is
		// less than the time of day its name carries for that day.
		if ok && t.Equal(t.Truncate(24*time.Hour)) && !nt.Before(t) && nt.Sub(t) < 24*time.Hour {
			return nt
		}
		return t
	}
	return nt
}

// CreatedLayout is how a handoff's created time is written: UTC with
// milliseconds, so handoffs written within one second still order.
const CreatedLayout = "2006-01-02T15:04:05.000Z07:00"

// createdOf reads the created time from a handoff's first lines, or a
// Continuous-Claude handoff's date (zero when it has neither).
func createdOf(path string) time.Time {
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return time.Time{} // a FIFO or a device would block the read
	}
	f, err := os.Open(path)
	if err != nil {
		return time.Time{}
	}
	defer f.Close()
	buf := make([]byte, 2048)
	n, _ := io.ReadFull(f, buf)
	var date time.Time
	for _, line := range strings.Split(string(buf[:n]), "\n") {
		line = strings.TrimRight(line, "\r")
		if v, ok := strings.CutPrefix(line, "created:"); ok {
			t, err := time.Parse(time.RFC3339, strings.Trim(strings.TrimSpace(v), `"'`))
			if err == nil {
				return t
			}
		}
		if v, ok := strings.CutPrefix(line, "date:"); ok && date.IsZero() {
			date = LooseTime(v)
		}
	}
	return date
}

// looseLayouts are the ways people and tools write a handoff's date.
var looseLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05 MST", "2006-01-02 15:04:05", "2006-01-02 15:04 MST", "2006-01-02 15:04", "2006-01-02",
}

// LooseTime reads a date as Continuous-Claude and people write it
// ("2026-01-12T13:45:26Z", "2026-06-06T00:13:00-05:00", "2026-01-08 16:30",
// "2026-01-08"); zero when it is none of these.
func LooseTime(s string) time.Time {
	s = strings.Trim(strings.TrimSpace(s), `"'`)
	if i := strings.Index(s, " #"); i > 0 {
		s = strings.TrimSpace(s[:i])
	}
	for _, layout := range looseLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
