package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/continuity-md/continuity/handoff"
)

// MaxLineBytes is the longest transcript line the reader decodes. Longer
// lines (a huge tool result or request blob) are skipped as they stream
// past, never held in memory, and counted in Facts.SkippedLines.
const MaxLineBytes = 8 << 20

// readBufferSize is the bufio buffer: lines up to this size are decoded in
// place, without a copy, and a line's head is always seen whole before the
// reader decides whether to keep the rest of it.
const readBufferSize = 64 << 10

// Read reads a transcript from r as a stream and feeds each record the
// decoder wants to d. A truncated or garbage record is the decoder's to
// skip, never fatal.
//
// Memory stays bounded whatever the input: at most one record of
// MaxLineBytes is held, and records d does not want stream past, counted
// but never copied. The facts returned are d's, with the lines and bytes
// read. Only an error from r itself is returned.
func Read(r io.Reader, d Decoder) (*handoff.Facts, error) {
	var lines, skipped int
	var n int64
	lr := lineReader{br: bufio.NewReaderSize(r, readBufferSize), max: MaxLineBytes, wants: d.Wants}
	var rerr error
	for {
		line, st, err := lr.next()
		if st.read > 0 {
			lines++
			n += st.read
		}
		switch {
		case st.tooLong:
			skipped++
		case line != nil:
			d.Record(trimEOL(line))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			rerr = fmt.Errorf("read transcript: %w", err)
			break
		}
	}
	f := d.Facts()
	f.Lines += lines
	f.SkippedLines += skipped
	f.Bytes += n
	return f, rerr
}

// trimEOL drops a record's line break.
func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// ReadFile opens path (a regular file only) and reads it with d.
func ReadFile(path string, d Decoder) (*handoff.Facts, error) {
	// Stat before opening: opening a FIFO would block.
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read transcript %s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	defer f.Close()
	facts, err := Read(f, d)
	if err != nil {
		return facts, fmt.Errorf("%s: %w", path, err)
	}
	return facts, nil
}

// lineStatus says how a line was read.
type lineStatus struct {
	read    int64 // bytes consumed, newline included
	tooLong bool  // over the limit: skipped
}

// lineReader yields the lines that can matter, deciding from each line's
// head; the rest stream past, bytes counted, never copied.
type lineReader struct {
	br    *bufio.Reader
	max   int
	buf   []byte
	wants func(head []byte) bool
}

// next returns the next line worth decoding (nil when the line was
// skipped). The slice is valid until the following call.
func (lr *lineReader) next() ([]byte, lineStatus, error) {
	var st lineStatus
	lr.buf = lr.buf[:0]
	first, keep := true, true
	for {
		chunk, err := lr.br.ReadSlice('\n')
		st.read += int64(len(chunk))
		if first {
			first = false
			keep = lr.wants(chunk)
			if keep && err == nil {
				return chunk, st, nil // whole line in the buffer: no copy
			}
		}
		if keep {
			if len(lr.buf)+len(chunk) > lr.max {
				keep, st.tooLong = false, true
				lr.buf = lr.buf[:0]
			} else {
				lr.buf = appendDoubling(lr.buf, chunk, lr.max)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && st.read == 0 {
			return nil, st, err
		}
		if !keep || len(lr.buf) == 0 {
			return nil, st, err
		}
		return lr.buf, st, err
	}
}

// appendDoubling appends chunk to buf, at least doubling the capacity when
// it must grow (append grows large slices by a quarter, which would
// allocate several times the line's size on the way to a long line).
func appendDoubling(buf, chunk []byte, limit int) []byte {
	need := len(buf) + len(chunk)
	if need > cap(buf) {
		c := min(max(2*cap(buf), need, readBufferSize), max(limit, need))
		grown := make([]byte, len(buf), c)
		copy(grown, buf)
		buf = grown
	}
	return append(buf, chunk...)
}
