package handoff

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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

// Latest returns the path of the newest handoff in dir (one session's
// directory) without reading or stat-ing every file.
// Only the directory's names are read; names that are not handoff names
// are ignored. Newest means the greatest name (names start with the UTC
// time), and among equal names the greatest "~N" suffix. It returns an
// error wrapping ErrNoHandoff when dir is missing or holds none.
func Latest(dir string) (string, error) {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: %w", dir, ErrNoHandoff)
	}
	if err != nil {
		return "", fmt.Errorf("list handoffs: %w", err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return "", fmt.Errorf("list handoffs %s: %w", dir, err)
	}
	best, bestBase, bestN := "", "", -1
	for _, name := range names {
		m := handoffName().FindStringSubmatch(name)
		if m == nil {
			continue
		}
		n := 0
		if m[2] != "" {
			n, _ = strconv.Atoi(m[2])
		}
		if m[1] > bestBase || m[1] == bestBase && n > bestN {
			best, bestBase, bestN = name, m[1], n
		}
	}
	if best == "" {
		return "", fmt.Errorf("%s: %w", dir, ErrNoHandoff)
	}
	// Names order handoffs by the second; within the newest second (two
	// events of one session, or two sessions) the created times decide.
	second := bestBase[:len("2006-01-02T15-04-05Z")]
	var same []string
	for _, name := range names {
		if strings.HasPrefix(name, second) && handoffName().MatchString(name) {
			same = append(same, name)
		}
	}
	if len(same) > 1 {
		bestT := createdOf(filepath.Join(dir, best))
		for _, name := range same {
			if t := createdOf(filepath.Join(dir, name)); t.After(bestT) {
				best, bestT = name, t
			}
		}
	}
	return filepath.Join(dir, best), nil
}

// CreatedLayout is how a handoff's created time is written: UTC with
// milliseconds, so handoffs written within one second still order.
const CreatedLayout = "2006-01-02T15:04:05.000Z07:00"

// createdOf reads the created time from a handoff's first lines (zero when
// it has none).
func createdOf(path string) time.Time {
	f, err := os.Open(path)
	if err != nil {
		return time.Time{}
	}
	defer f.Close()
	buf := make([]byte, 2048)
	n, _ := io.ReadFull(f, buf)
	for _, line := range strings.Split(string(buf[:n]), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "created:"); ok {
			t, err := time.Parse(time.RFC3339, strings.Trim(strings.TrimSpace(v), `"'`))
			if err == nil {
				return t
			}
		}
	}
	return time.Time{}
}
