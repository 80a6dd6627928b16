package transcript

import (
	"bufio"
	"io"
	"path/filepath"
	"strings"

	"github.com/continuity-md/continuity/internal/safefile"
)

// headMax bounds how much of a transcript's beginning HeadValue reads.
const headMax = 1 << 20

// HeadValue returns the first value find returns ("" for none) among the
// records in the first MiB of the file at path: where a session ran is
// written at its start (its cwd), and a file that hides it deeper is not
// taken for one of the project's.
func HeadValue(path string, find func(rec []byte) string) string {
	f, _, err := safefile.OpenRegular(path) // never a FIFO or a device
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, headMax))
	sc.Buffer(make([]byte, 0, 64<<10), headMax)
	for sc.Scan() {
		if v := find(sc.Bytes()); v != "" {
			return v
		}
	}
	return ""
}

// Within reports whether dir is one of dirs or lies inside one of them.
func Within(dir string, dirs []string) bool {
	if dir == "" || !filepath.IsAbs(dir) {
		return false
	}
	dir = filepath.Clean(dir)
	for _, d := range dirs {
		d = filepath.Clean(d)
		if dir == d || strings.HasPrefix(dir, strings.TrimSuffix(d, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
