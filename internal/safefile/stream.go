package safefile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteStream atomically replaces the file at path with what fill writes,
// keeping the file's permission bits (a new file gets 0644 less the umask):
// a temporary file beside it, synced, renamed over it. It takes no lock and
// follows no symlink: it is for a file another program hands over to be
// written, as git hands a merge driver its %A.
func WriteStream(path string, fill func(w io.Writer) error) error {
	perm := permission{mode: newFilePerm}
	if fi, err := os.Stat(path); err == nil {
		perm = permission{mode: fi.Mode().Perm(), exact: true}
	}
	f, err := newTemp(path, filepath.Dir(path), perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer f.Cleanup()
	if err := fill(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := replaceFile(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	syncDir(filepath.Dir(path))
	return nil
}
