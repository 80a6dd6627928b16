package safefile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gofrs/flock"
)

// ErrNoChange may be returned by an Update function to skip the write.
var ErrNoChange = errors.New("no change")

// Errors a caller may test for with errors.Is. Each is returned wrapped with
// the operation and the path.
var (
	// ErrTooLarge: the existing file is bigger than Options.MaxSize; it was
	// neither read in full nor written.
	ErrTooLarge = errors.New("file too large")
	// ErrOutsideRoot: the path resolves (through symlinks) outside Options.Root.
	ErrOutsideRoot = errors.New("resolves outside the project")
	// ErrNotRegular: the path is a directory, device, socket or pipe.
	ErrNotRegular = errors.New("not a regular file")
)

// DefaultMaxSize is the read bound used when Options.MaxSize is 0.
const DefaultMaxSize int64 = 16 << 20

// newFilePerm is the mode of a file this package creates (before umask).
const newFilePerm fs.FileMode = 0o644

// Options says where locks and temporary files live and what may be written.
type Options struct {
	// LockDir holds the lock files (local state, never committed). Required.
	LockDir string
	// Root, when set, confines writes: a target (after resolving symlinks)
	// outside Root is refused.
	Root string
	// MaxSize bounds how much of an existing target is read (0: 16 MiB).
	MaxSize int64
	// Avoid lists directories a write must not land in, once every
	// symlink is resolved (a repository's git directories): the write
	// fails with ErrInGitDir.
	Avoid []string
	// NoSync skips fsync in Update: the replace stays atomic for readers and
	// writers, but a crash may lose it (the file is then its old version,
	// or empty). For local state that is cheap to lose and written on a
	// latency-critical path; a person's files are always synced. Unsynced
	// writes lock their target's directory, not the target: a target must
	// be written either always with NoSync or always without.
	NoSync bool
}

func (o Options) maxSize() int64 {
	if o.MaxSize > 0 {
		return o.MaxSize
	}
	return DefaultMaxSize
}

// Update locks path, reads its current bytes (nil when it does not exist),
// calls fn with them and atomically writes what fn returns. A symlinked path
// is resolved and its target written. fn returning ErrNoChange skips the write.
//
// The write is also skipped when fn returns the bytes it was given. An
// existing file keeps its permission bits; a new one gets 0644 less the umask.
// Errors from fn are returned as they are; the package's own errors are
// wrapped as "write PATH: ...".
//
// Programs that do not take the lock (a person's editor) can still save in
// between the read and the rename. Just before renaming, Update checks that
// the target is the file it read (same inode, size and modification time)
// and otherwise starts over, calling fn again with the new bytes: fn must be
// a function of old alone. That leaves a window of microseconds, not one of
// a whole read, edit and fsync.
func Update(path string, opts Options, fn func(old []byte) ([]byte, error)) error {
	w, err := begin(path, opts)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer w.unlock()

	start := time.Now()
	attempt := 0
	for ; attempt < minAttempts || time.Since(start) < retryFor; attempt++ {
		if attempt > 0 {
			// Something keeps saving (an editor, a formatter, an
			// autosave): start over a moment later, at a jittered time,
			// to land between its saves.
			time.Sleep(rand.N(time.Duration(min(attempt, 4)) * 500 * time.Microsecond))
		}
		old, fi, err := readRegular(w.target, opts.maxSize())
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("write %s: %w", path, err)
		}
		data, err := fn(old)
		if errors.Is(err, ErrNoChange) {
			return nil
		}
		if err != nil {
			return err
		}
		perm := permission{mode: newFilePerm}
		if old != nil {
			if bytes.Equal(old, data) {
				return nil
			}
			perm = permission{mode: fi.Mode().Perm(), exact: true}
		}
		if opts.NoSync {
			err = w.replaceNoSync(data, fi)
		} else {
			err = w.replace(data, perm, fi)
		}
		if errors.Is(err, errChanged) {
			continue
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return nil
	}
	return fmt.Errorf("write %s: %w %d times while being written; not written", path, errChanged, attempt)
}

// Update starts over when something that does not take the lock (a
// person's editor) changes the target between its read and its rename: at
// least minAttempts times, and for retryFor, then it gives up and says so.
const (
	minAttempts = 8
	retryFor    = time.Second
)

// permission is the mode a temporary file gets: mode less the umask, or
// exactly mode (an existing target's bits, kept). Windows keeps no Unix
// modes: there it is not applied (see newTemp).
type permission struct {
	mode  fs.FileMode
	exact bool
}

// tempFile is a temporary file being written, to be put in place of its
// target by name (renameio's PendingFile on Unix; see newTemp).
type tempFile interface {
	io.Writer
	Sync() error
	// Close closes the file; its name stays until Cleanup.
	Close() error
	// Name is the temporary file's path.
	Name() string
	// Cleanup closes the file if open and removes whatever is at its name.
	Cleanup() error
}

// errChanged says the target changed between the read and the rename.
var errChanged = errors.New("changed by another program")

// Create atomically writes a new file at path; it fails if path exists.
//
// The error then wraps fs.ErrExist. The file appears whole or not at all:
// the data is written to a temporary file that is hard-linked to path, which
// never replaces an existing file (only on file systems without hard links
// does Create fall back to writing path directly with O_EXCL).
func Create(path string, data []byte, opts Options) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("create %s: %w", path, fs.ErrExist)
	}
	w, err := begin(path, opts)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer w.unlock()
	if err := w.create(data); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return nil
}

// Read returns the bytes of the regular file at path, reading at most
// Options.MaxSize bytes (ErrTooLarge beyond). It takes no lock: writers
// replace files atomically, so a read sees a whole version. With Options.Root
// set, a path resolving outside it is refused, so a symlink planted in a
// repository cannot make continuity read (and inject) a file from elsewhere.
// A missing file gives an error wrapping fs.ErrNotExist. LockDir is not used.
func Read(path string, opts Options) ([]byte, error) {
	target, err := resolve(path)
	if err == nil {
		err = checkRoot(target, opts.Root)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	data, _, err := readRegular(target, opts.maxSize())
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return data, nil
}

// maxLinks bounds how many symlinks resolve follows, like the kernel's ELOOP.
const maxLinks = 40

// resolve returns the absolute path path finally names, with every symlink
// (in the directories and in the last element) resolved. Unlike
// filepath.EvalSymlinks it accepts a last element that does not exist, and a
// dangling symlink resolves to the missing file it points at, which is
// where a write will go.
func resolve(path string) (string, error) {
	p, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	for range maxLinks {
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			return "", err
		}
		p = filepath.Join(dir, filepath.Base(p))
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(dir, link)
		}
		p = link
	}
	return "", &fs.PathError{Op: "resolve", Path: path, Err: syscall.ELOOP}
}

// checkRoot refuses target (already resolved) when it is not inside root.
// root's own symlinks are resolved too, so a root reached through a symlink
// (macOS's /tmp, a symlinked checkout) still contains its files.
func checkRoot(target, root string) error {
	if root == "" {
		return nil
	}
	r, err := filepath.Abs(root)
	if err == nil {
		r, err = filepath.EvalSymlinks(r)
	}
	if err != nil {
		return fmt.Errorf("resolve root: %w", err)
	}
	rel, err := filepath.Rel(r, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%s %w %s", target, ErrOutsideRoot, r)
	}
	return nil
}

// readRegular reads the regular file at path, at most max bytes, and returns
// its bytes (never nil for an existing file) and what fstat said about it.
func readRegular(path string, max int64) ([]byte, fs.FileInfo, error) {
	// Lstat first: opening a FIFO or a device could block or have effects.
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, nil, err
	}
	// /proc and /sys hold "regular" files that never end or change as
	// they are read; /dev, devices.
	if pseudoFile(path, "/proc", "/sys", "/dev") {
		return nil, nil, fmt.Errorf("%s %w: %w", path, ErrPseudoFile, ErrNotRegular)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is %s: %w", path, kind(fi.Mode()), ErrNotRegular)
	}
	f, err := openNoFollow(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	// Stat the open file again: path may have been swapped since the Lstat.
	if fi, err = f.Stat(); err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is %s: %w", path, kind(fi.Mode()), ErrNotRegular)
	}
	if fi.Size() > max {
		return nil, nil, fmt.Errorf("%d bytes, limit %d: %w", fi.Size(), max, ErrTooLarge)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, nil, err
	}
	if int64(len(data)) > max {
		return nil, nil, fmt.Errorf("more than %d bytes: %w", max, ErrTooLarge)
	}
	if data == nil {
		data = []byte{}
	}
	return data, fi, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// A writer holds the lock for one resolved target.
//
// Where temporary files go: renameio writes the new content to a temporary
// file, fsyncs it and renames it over the target; the rename is atomic only
// within one file system. By default renameio would put that file beside the
// target as "." + base + random digits, and a writer killed mid-write would
// leave it in the user's directory (often a git work tree) for good. So the
// temporary file goes to LockDir/tmp/<hash of target>/ when that directory is
// on the same file system as the target (same device number; a rename that
// still fails with EXDEV, as across bind mounts, is retried below), and beside
// the target only otherwise. Either way, under the lock and before writing,
// leftovers of an earlier killed writer for the same target are removed from
// both places: only writers holding this lock ever create them, so none of
// them can be in use.
type writer struct {
	target  string // resolved absolute path
	dir     string // filepath.Dir(target)
	tmpDir  string // per-target temp dir under LockDir, "" when unusable
	tmpPath string // that directory's path, usable or not
	lock    *flock.Flock
	noSync  bool // writes go through noSyncTemp, never renameio's names
}

func begin(path string, opts Options) (*writer, error) {
	if opts.LockDir == "" {
		return nil, errors.New("safefile: Options.LockDir is required")
	}
	target, err := resolve(path)
	if err != nil {
		return nil, err
	}
	if err := checkRoot(target, opts.Root); err != nil {
		return nil, err
	}
	if err := checkAvoid(target, opts.Avoid); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.LockDir, 0o700); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	sum := sha256.Sum256([]byte(target))
	id := hex.EncodeToString(sum[:16])
	lockID := id
	if opts.NoSync {
		// Unsynced writes (local state: a small file per agent session)
		// lock their directory, not each file: a session's first write
		// would otherwise create a lock file of its own (a new inode, on
		// the path of every session start) and leave it for good. A
		// target is written either always synced or always unsynced.
		d := sha256.Sum256([]byte(filepath.Dir(target)))
		lockID = "d" + hex.EncodeToString(d[:16])
	}
	w := &writer{
		target: target,
		noSync: opts.NoSync,
		dir:    filepath.Dir(target),
	}
	lock, _, err := acquire(filepath.Join(opts.LockDir, lockID+".lock"), lockWait)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	w.lock = lock
	tmp := filepath.Join(opts.LockDir, "tmp", id)
	w.tmpPath = tmp
	// An unsynced write puts its temporary file beside the target
	// (replaceNoSync): it needs no temp dir of its own, and making one is
	// a new inode per target on every first write (a hook's session state).
	if !opts.NoSync {
		// Inside the lock directory: a symlink planted at its tmp would
		// have temporary files written wherever it points.
		if err := MkdirAll(tmp, opts.LockDir, 0o700); err == nil && sameDevice(tmp, w.dir) {
			w.tmpDir = tmp
		}
	}
	w.removeLeftovers(tmp)
	return w, nil
}

// unlock lets the target go: its temporary directory goes when empty.
// The lock file stays (see lock.go).
func (w *writer) unlock() {
	if !w.noSync { // an unsynced writer makes no temporary directory
		_ = os.Remove(w.tmpPath) // only when empty
	}
	_ = w.lock.Unlock()
}

// removeLeftovers deletes temporary files a killed writer left for this
// target: everything in its own temp dir, and "." + base + digits (renameio's
// naming) beside the target. Failures are ignored; a later writer retries.
func (w *writer) removeLeftovers(tmp string) {
	if w.noSync {
		// An unsynced writer only ever leaves noSyncTemp, and a target
		// written unsynced (local state: a session's file among hundreds)
		// is never written synced, so nothing else can be left: no listing.
		// (The temp dir is a synced writer's, under the target's own lock.)
		_ = os.Remove(w.noSyncTemp())
		return
	}
	if ents, err := os.ReadDir(tmp); err == nil {
		for _, e := range ents {
			_ = os.Remove(filepath.Join(tmp, e.Name()))
		}
	}
	// Names only, unsorted: the directory may hold many files.
	prefix := "." + filepath.Base(w.target)
	d, err := os.Open(w.dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, name := range names {
		if len(name) > len(prefix) && strings.HasPrefix(name, prefix) && allDigits(name[len(prefix):]) {
			path := filepath.Join(w.dir, name)
			if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
				_ = os.Remove(path)
			}
		}
	}
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// tempDirs lists where to try the temporary file, best first.
func (w *writer) tempDirs() []string {
	if w.tmpDir != "" {
		return []string{w.tmpDir, w.dir}
	}
	return []string{w.dir}
}

// replace atomically replaces the target with data. If by then the target
// is no longer the file described by was (nil: it did not exist), nothing is
// written and the error is errChanged.
func (w *writer) replace(data []byte, perm permission, was fs.FileInfo) error {
	var err error
	for _, dir := range w.tempDirs() {
		err = replaceVia(dir, w.target, data, perm, was)
		if !crossDevice(err) {
			break
		}
	}
	if err != nil {
		return err
	}
	syncDir(w.dir)
	return nil
}

// replaceNoSync is replace without fsync: a temporary file beside the
// target (noSyncTemp, which removeLeftovers removes after a crash) put in
// its place. A new file gets newFilePerm less the umask; an
// existing one keeps its permission bits.
func (w *writer) replaceNoSync(data []byte, was fs.FileInfo) error {
	perm := newFilePerm // less the umask, applied by open(2)
	if was != nil {
		perm = was.Mode().Perm()
	}
	tmp := w.noSyncTemp() // removeLeftovers removed any, under the lock
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // a no-op once renamed
	_, err = f.Write(data)
	if err == nil && was != nil {
		err = f.Chmod(perm) // exactly the old bits, whatever the umask
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return install(tmp, w.target, was)
}

// noSyncTemp is the one temporary name an unsynced write of the target
// uses, beside it: "." + base + "0", a name removeLeftovers of a synced
// writer also recognises. Writers of a target hold its lock, so one name
// is enough, and a writer killed mid-write leaves that name, which the
// next one removes without listing the directory.
func (w *writer) noSyncTemp() string {
	return filepath.Join(w.dir, "."+filepath.Base(w.target)+"0")
}

func replaceVia(dir, target string, data []byte, perm permission, was fs.FileInfo) error {
	pf, err := newTemp(target, dir, perm)
	if err != nil {
		return err
	}
	// Cleanup removes whatever is at the temporary name in the end: the
	// target's old version after a swap, or ours when an editor won.
	defer pf.Cleanup()
	if _, err := pf.Write(data); err != nil {
		return err
	}
	if err := pf.Sync(); err != nil {
		return err
	}
	if err := pf.Close(); err != nil {
		return err
	}
	return install(pf.Name(), target, was)
}

// install puts the finished temporary file tmp in place of target, if
// target is still the file described by was (nil: still missing), and
// otherwise returns errChanged with target left as it is.
//
// Nothing slow stands between the check and the replacement. A new file is
// hard-linked, which fails rather than replace a file that appeared. An
// existing one is swapped with the temporary file in one system call; the
// file that comes out is then checked, and when it is not the one read (an
// editor saved in between) it is swapped back at once, so the editor's save
// stands. Where the file system cannot swap, the check comes immediately
// before the rename.
func install(tmp, target string, was fs.FileInfo) error {
	if was == nil {
		err := os.Link(tmp, target)
		if err == nil || errors.Is(err, fs.ErrExist) {
			if err != nil {
				return errChanged
			}
			return nil
		}
		// No hard links here: a checked rename.
	} else if err := exchange(tmp, target); err == nil {
		out, err := os.Lstat(tmp)
		if err == nil && sameVersion(was, out) {
			return nil
		}
		if err := exchange(tmp, target); err != nil {
			return fmt.Errorf("restore the version saved meanwhile: %w", err)
		}
		return errChanged
	}
	if !unchanged(target, was) {
		return errChanged
	}
	return replaceFile(tmp, target)
}

// sameVersion reports whether now is still the version of a file described
// by was: the same file, size and modification time. (Its change time is
// not compared: a rename updates it.)
func sameVersion(was, now fs.FileInfo) bool {
	return os.SameFile(was, now) && now.Size() == was.Size() && now.ModTime().Equal(was.ModTime())
}

// unchanged reports whether target is still the file described by was (nil:
// still missing).
func unchanged(target string, was fs.FileInfo) bool {
	now, err := os.Lstat(target)
	if was == nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	return err == nil && os.SameFile(was, now) && now.Size() == was.Size() &&
		now.ModTime().Equal(was.ModTime()) && changeTime(now) == changeTime(was)
}

// create writes data to a temporary file and hard-links it to the target,
// which fails rather than replace an existing file.
func (w *writer) create(data []byte) error {
	var err error
	for _, dir := range w.tempDirs() {
		err = linkVia(dir, w.target, data)
		if !crossDevice(err) {
			break
		}
	}
	var le *os.LinkError
	if errors.As(err, &le) && (errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EOPNOTSUPP)) {
		err = createExclusive(w.target, data)
	}
	if err != nil {
		return err
	}
	syncDir(w.dir)
	return nil
}

func linkVia(dir, target string, data []byte) error {
	pf, err := newTemp(target, dir, permission{mode: newFilePerm})
	if err != nil {
		return err
	}
	// Cleanup closes and removes the temporary name, after the link or not.
	defer pf.Cleanup()
	if _, err := pf.Write(data); err != nil {
		return err
	}
	if err := pf.Sync(); err != nil {
		return err
	}
	return os.Link(pf.Name(), target)
}

// createExclusive is Create for file systems without hard links: never
// replaces, but a crash mid-write can leave a short file.
func createExclusive(target string, data []byte) error {
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, newFilePerm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(target)
	}
	return err
}

// syncDir makes a rename or link in dir durable. Best effort: some file
// systems refuse fsync on directories, and the new content is already in place.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
