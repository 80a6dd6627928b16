package project

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/continuity-md/continuity/internal/safefile"
)

// A session start reads the same ledger and latest handoff as the start
// before it, as a rule: what parsing them made is remembered in local
// state, so that the next start decodes a few fields (Codec) instead of
// parsing YAML and markdown again (and never touches the parsers' code, whose page
// faults are much of what a parse costs a short-lived process).
//
// A memo holds the path, the file's version (safefile.Version) and the
// value parsed from it, and is used only for that very version of that
// file, by the very binary that made it (another build may parse
// differently). A memo made within racyWindow of the version's change
// time (both by the file system's clock) is not trusted: a second write
// within one tick of a coarse clock could leave the version as it was. A
// system that keeps no change time gets no memo.
//
// What a memo holds comes from the work tree's own files (a person's
// ledger, a handoff written redacted), in local state, which is never
// committed.

// memoNow is the clock the racy window is judged by (tests move it on).
var memoNow = time.Now

// binaryVersion is the version of the running executable (zero when it
// cannot be known: nothing is then remembered).
var binaryVersion = sync.OnceValue(func() safefile.Version {
	exe, err := os.Executable()
	if err != nil {
		return safefile.Version{}
	}
	v, err := safefile.Stat(exe, safefile.Options{})
	if err != nil {
		return safefile.Version{}
	}
	return v
})

// Parsed returns what parse makes of the file at path (read as
// safefile.Read reads within the project), from the memo in slot when
// that holds this version of the file, else by reading and parsing it,
// remembering the result (through codec) when parse succeeds. slot names
// the memo (one per slot, the latest file's: "ledger-NAME"); a slot that
// is not a plain name is never remembered. Errors are the read's (wrapping
// fs.ErrNotExist for a missing file) and parse's, as they are.
func Parsed[T any](p *Project, slot, path string, parse func(src []byte) (T, error), codec Codec[T]) (T, error) {
	var zero T
	file := ""
	if plainToken(slot, 120, "_-.", false) {
		file = filepath.Join(p.StateDir, "parsed", slot)
	}
	bin := binaryVersion()
	if file != "" && !bin.IsZero() {
		if v, err := safefile.Stat(path, p.WriteOptions()); err == nil {
			if b, made, err := p.readMemo(file); err == nil && made.Sub(time.Unix(0, v.Change)) >= racyWindow {
				d := &Dec{b: b}
				if d.Str() == memoMagic && d.version() == bin && d.Str() == path && d.version() == v {
					if val := codec.Decode(d); d.OK() {
						return val, nil
					}
				}
			}
		}
	}
	src, v, err := safefile.ReadVersion(path, p.WriteOptions())
	if err != nil {
		return zero, err
	}
	val, err := parse(src)
	if err != nil {
		return val, err
	}
	if file != "" && !bin.IsZero() && !v.IsZero() && v.Change != 0 && memoNow().Sub(time.Unix(0, v.Change)) >= racyWindow {
		e := &Enc{}
		e.Str(memoMagic)
		e.version(bin)
		e.Str(path)
		e.version(v)
		codec.Encode(e, val)
		_ = p.writeMemo(file, string(e.b)) // best effort: a cache
	}
	return val, nil
}

// readMemo returns a memo's bytes and when it was written, by the file
// system's clock (the one the file's change time is on, whatever the
// local clock says), through the one reader: a regular file inside local
// state, bounded.
func (p *Project) readMemo(file string) ([]byte, time.Time, error) {
	b, v, err := safefile.ReadVersion(file, safefile.Options{Root: p.StateDir, MaxSize: maxMemo})
	if err == nil && v.IsZero() {
		err = fs.ErrInvalid // written while read: not vouched for
	}
	return b, time.Unix(0, v.Mod), err
}

// maxMemo bounds a memo read back.
const maxMemo = 4 << 20

// memoMagic starts every memo; it changes when the envelope does.
const memoMagic = "continuity parsed 1"

func (e *Enc) version(v safefile.Version) {
	e.Int(int64(v.Dev))
	e.Int(int64(v.Ino))
	e.Int(v.Size)
	e.Int(v.Mod)
	e.Int(v.Change)
}

func (d *Dec) version() safefile.Version {
	return safefile.Version{Dev: uint64(d.Int()), Ino: uint64(d.Int()), Size: d.Int(), Mod: d.Int(), Change: d.Int()}
}
