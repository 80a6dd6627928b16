package core

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/continuity-md/continuity/internal/safefile"
)

// disableLine is a top-level "disable:" line of a configuration file.
var disableLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^disable[ \t]*:.*(\r?\n|$)`) })

// SetDisabled switches continuity off (on true) or back on in the
// configuration file at path, written with opts (opts.Root bounds it): off writes "disable: true" (in
// place of a disable line there is, else as a last line); on removes the
// disable line, and the file with it when nothing else is left. Every
// other byte of the file stays. It reports whether the file changed.
func SetDisabled(path string, opts safefile.Options, off bool) (changed bool, err error) {
	if !off {
		if _, err := os.Lstat(path); os.IsNotExist(err) {
			return false, nil
		}
	}
	if err := safefile.MkdirAll(filepath.Dir(path), opts.Root, 0o755); err != nil {
		return false, err
	}
	empty := false
	err = safefile.Update(path, opts, func(old []byte) ([]byte, error) {
		var out []byte
		if off {
			out = switchOff(old)
		} else {
			out = disableLine().ReplaceAll(old, nil)
		}
		changed = !bytes.Equal(out, old)
		empty = len(bytes.TrimSpace(out)) == 0
		return out, nil
	})
	if err == nil && !off && changed && empty {
		err = os.Remove(path)
	}
	return changed, err
}

// switchOff sets the disable line of src to true, or adds one.
func switchOff(src []byte) []byte {
	if loc := disableLine().FindSubmatchIndex(src); loc != nil {
		eol := src[loc[2]:loc[3]]
		return append(append(append([]byte{}, src[:loc[0]]...), "disable: true"+string(eol)...), src[loc[1]:]...)
	}
	out := append([]byte{}, src...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return append(out, "disable: true\n"...)
}
