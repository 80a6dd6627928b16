package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/safefile"
)

// MaxLineBytes is the longest transcript line the reader decodes. Longer
// lines (a huge tool result or request blob) are skipped as they stream
// past, never held in memory, and counted in Facts.SkippedLines.
const MaxLineBytes = 8 << 20

// readBufferSize is the bufio buffer: lines up to this size are decoded in
// place, without a copy, and a line's head is always seen whole before the
// reader decides whether to keep the rest of it.
const readBufferSize = 256 << 10

// ErrNotTranscript says that a non-empty input held no record the decoder
// recognised: another agent's JSON, a markdown file, anything but a
// transcript of this host. See Recognised.
var ErrNotTranscript = errors.New("not a transcript: no record recognised")

// Recognised returns ErrNotTranscript, wrapped with what was read, when
// facts read from a non-empty input hold no recognised record
// (Facts.Records, which the decoder counts), and nil otherwise.
func Recognised(f *handoff.Facts) error {
	if f == nil || f.Bytes == 0 || f.Records > 0 {
		return nil
	}
	return fmt.Errorf("%w (%d lines, %d bytes read)", ErrNotTranscript, f.Lines, f.Bytes)
}

// Read reads a transcript from r as a stream and feeds each record the
// decoder wants to d. A truncated or garbage record is the decoder's to
// skip, never fatal.
//
// Memory stays bounded whatever the input: at most one record of
// MaxLineBytes is held, and records d does not want stream past, counted
// but never copied. The facts returned are d's, with the lines and bytes
// read. Only an error from r itself is returned.
func Read(r io.Reader, d Decoder) (*handoff.Facts, error) {
	res, err := stream(r, d, time.Time{})
	if err != nil {
		err = fmt.Errorf("read transcript: %w", err)
	}
	res.feedTail(d)
	f := d.Facts()
	f.Lines += res.lines + res.tailLines()
	f.SkippedLines += res.skipped + res.tailSkipped()
	f.Bytes += res.whole + res.tailLen
	return f, err
}

// ReadFile opens path (a regular file only) and reads it with d.
func ReadFile(path string, d Decoder) (*handoff.Facts, error) {
	return ReadFiles([]string{path}, d)
}

// ReadFiles reads the files of one session with d, one after the other: a
// transcript and, for a host that keeps them apart, its subagents' files.
// The first must be a regular file; a later one that has gone is passed over.
func ReadFiles(paths []string, d Decoder) (*handoff.Facts, error) {
	f, _, err := ReadFrom(paths, d, nil, time.Time{})
	return f, err
}

// streamResult says what one pass over a file read.
type streamResult struct {
	whole       int64  // bytes of the newline-terminated lines read
	lines       int    // those lines
	skipped     int    // of those, lines over MaxLineBytes
	tail        []byte // the last line when it has no line break yet and was wanted (a copy)
	tailLen     int64  // that line's length (0: none)
	tailTooLong bool
	stopped     bool // the deadline passed before the end
}

func (r *streamResult) tailLines() int {
	if r.tailLen > 0 {
		return 1
	}
	return 0
}

func (r *streamResult) tailSkipped() int {
	if r.tailTooLong {
		return 1
	}
	return 0
}

// feedTail gives d the last line, which has no line break: it may be a
// whole record the client has not finished the line of, or one cut short
// (the decoder tells). It is fed after the checkpoint is taken, so that a
// later read, which starts where the line starts, does not count it twice.
func (r *streamResult) feedTail(d Decoder) {
	if r.tail != nil {
		d.Record(trimEOL(r.tail))
	}
}

// The clock is looked at every deadlineLines lines, or sooner when
// deadlineBytes have passed (lines can be megabytes long).
const (
	deadlineLines = 64
	deadlineBytes = 4 << 20
)

// stream reads r to its end (or until the deadline, when not zero) and
// feeds d the newline-terminated lines it wants; the last line, when it has
// no line break, is kept aside (see feedTail).
func stream(r io.Reader, d Decoder, deadline time.Time) (streamResult, error) {
	var res streamResult
	lr := lineReader{br: bufio.NewReaderSize(r, readBufferSize), max: MaxLineBytes, wants: d.Wants}
	var sinceCheck int64
	for n := 1; ; n++ {
		if !deadline.IsZero() && (n%deadlineLines == 0 || sinceCheck > deadlineBytes) {
			if time.Now().After(deadline) {
				res.stopped = true
				return res, nil
			}
			sinceCheck = 0
		}
		line, st, err := lr.next()
		sinceCheck += st.read
		if err == nil {
			res.lines++
			res.whole += st.read
			if st.tooLong {
				res.skipped++
			} else if line != nil {
				d.Record(trimEOL(line))
			}
			continue
		}
		if st.read > 0 {
			res.tailLen = st.read
			res.tailTooLong = st.tooLong
			if line != nil && !st.tooLong {
				res.tail = bytes.Clone(line)
			}
		}
		if err == io.EOF {
			return res, nil
		}
		return res, err
	}
}

// trimEOL drops a record's line break.
func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// openRegular opens a transcript without blocking: a regular file only,
// never a FIFO, a device or a /proc file (safefile.OpenRegular).
func openRegular(path string) (*os.File, os.FileInfo, error) {
	return safefile.OpenRegular(path)
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
// skipped). The slice is valid until the following call. The error is nil
// exactly when the line ended with a line break.
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
