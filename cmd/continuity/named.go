package main

import (
	"fmt"
	"io"

	"github.com/continuity-md/continuity/internal/safefile"
)

// readNamed reads a file a person named on the command line: anywhere,
// and of any size, but only a regular file (never a FIFO, a device or a
// /proc file, which could block or never end), symlinks resolved first.
func readNamed(path string) ([]byte, error) {
	f, _, err := safefile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// maxSettingsSize bounds an agent's settings file read: a committed one
// (a project's) could be a symlink to a device or a huge file.
const maxSettingsSize = 4 << 20

// readSettings reads an agent's settings file: a regular file only (never
// a FIFO, a device or a /proc file), at most maxSettingsSize bytes. A
// missing file gives an error wrapping fs.ErrNotExist.
func readSettings(path string) ([]byte, error) {
	f, _, err := safefile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSettingsSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxSettingsSize {
		return nil, fmt.Errorf("%s: more than %d bytes: %w", path, maxSettingsSize, safefile.ErrTooLarge)
	}
	return b, nil
}
