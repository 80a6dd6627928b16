package core

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/continuity-md/continuity/internal/safefile"
)

// MaxFieldMerge bounds the size of a side merged field by field: parsing
// YAML takes some fifty times the text's size, and a ledger is a few
// kilobytes. Past it, the sides are merged as whole files, streamed.
const MaxFieldMerge = 2 << 20

// oversized reports whether a side is too large to merge by field.
func oversized(paths ...string) (bool, error) {
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return false, err
		}
		if st.Size() > MaxFieldMerge {
			return true, nil
		}
	}
	return false, nil
}

// mergeWhole merges sides too large to parse, reading each in pieces: a
// side unchanged from base gives the other side; otherwise the two whole
// sides go between git's conflict markers, one conflict.
func mergeWhole(o MergeOptions, base, ours, theirs string) (int, error) {
	if same, err := sameContent(base, theirs); err != nil || same {
		return 0, err
	}
	if same, err := sameContent(ours, theirs); err != nil || same {
		return 0, err
	}
	if same, err := sameContent(base, ours); err != nil || same {
		return 0, replaceFileWith(ours, theirs)
	}
	return 1, writeConflict(o, ours, theirs)
}

// sameContent compares two files in pieces.
func sameContent(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		endA := errors.Is(ea, io.EOF) || errors.Is(ea, io.ErrUnexpectedEOF)
		endB := errors.Is(eb, io.EOF) || errors.Is(eb, io.ErrUnexpectedEOF)
		switch {
		case ea != nil && !endA:
			return false, ea
		case eb != nil && !endB:
			return false, eb
		case endA || endB:
			return endA && endB, nil
		}
	}
}

// replaceFileWith atomically replaces path with the bytes of from.
func replaceFileWith(path, from string) error {
	return safefile.WriteStream(path, func(w io.Writer) error { return copyFile(w, from) })
}

// writeConflict replaces ours with both whole sides between markers.
func writeConflict(o MergeOptions, ours, theirs string) error {
	return safefile.WriteStream(ours, func(w io.Writer) error {
		parts := []func() error{
			func() error { _, err := fmt.Fprintf(w, "<<<<<<< %s\n", mergeLabel(o.OursLabel, "ours")); return err },
			func() error { return copyLines(w, ours) },
			func() error { _, err := io.WriteString(w, "=======\n"); return err },
			func() error { return copyLines(w, theirs) },
			func() error {
				_, err := fmt.Fprintf(w, ">>>>>>> %s\n", mergeLabel(o.TheirsLabel, "theirs"))
				return err
			},
		}
		for _, part := range parts {
			if err := part(); err != nil {
				return err
			}
		}
		return nil
	})
}

func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// copyLines copies a side, ending it with a line break so the marker
// after it starts a line.
func copyLines(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	last := make([]byte, 1)
	buf := make([]byte, 64<<10)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
			last[0] = buf[n-1]
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	if last[0] != '\n' && last[0] != 0 {
		_, err := w.Write([]byte{'\n'})
		return err
	}
	return nil
}
