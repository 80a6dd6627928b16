package handoff

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxLineBytes is the longest transcript line the reader decodes. Longer
// lines (a huge tool result or request blob) are skipped as they stream
// past, never held in memory, and counted in Facts.SkippedLines.
const MaxLineBytes = 8 << 20

// readBufferSize is the bufio buffer: lines up to this size are decoded in
// place, without a copy, and a line's head is always seen whole before the
// reader decides whether to keep the rest of it.
const readBufferSize = 64 << 10

// ReadTranscript reads a transcript as a stream; root makes file paths relative.
// red, when not nil, redacts secrets from every text kept (prompts,
// commands, errors, tasks, the last assistant text, the compaction summary)
// before it is cut to size. A truncated or garbage line is skipped, never fatal.
//
// Memory stays bounded whatever the input: at most one line of
// MaxLineBytes is held (plus a copy for decoding), and every list in Facts
// keeps only its last entries. Only an error from r itself is returned.
func ReadTranscript(r io.Reader, root string, red func(string) string) (*Facts, error) {
	c := newCollector(root, red)
	lr := lineReader{br: bufio.NewReaderSize(r, readBufferSize), max: MaxLineBytes}
	for {
		line, st, err := lr.next()
		if st.read > 0 {
			c.f.Lines++
			c.f.Bytes += st.read
		}
		switch {
		case st.tooLong:
			c.f.SkippedLines++
		case line != nil:
			c.line(line)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return c.finish(), fmt.Errorf("read transcript: %w", err)
		}
	}
	return c.finish(), nil
}

// ReadTranscriptFile opens path (a regular file only) and reads it.
func ReadTranscriptFile(path, root string, red func(string) string) (*Facts, error) {
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
	facts, err := ReadTranscript(f, root, red)
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
	br  *bufio.Reader
	max int
	buf []byte
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
			keep = relevant(chunk)
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

// relevant decides from the start of a line whether it can hold a fact:
// only user and assistant entries can. It reads the top-level keys in
// order and stops at the first that tells: "type" names the entry (the
// client writes it first for most entries), "attachment" marks an
// attachment, "message" means a conversation entry. When the head does
// not tell, the line is kept, to be decided by decoding it.
func relevant(head []byte) bool {
	const window = 1024
	if len(head) > window {
		head = head[:window]
	}
	s := head
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return i >= len(s) && len(s) == window // all blanks: nothing here
	}
	i++
	for {
		i = skipSpace(s, i)
		if i >= len(s) {
			return true
		}
		if s[i] != '"' {
			return true // malformed or cut: let the decoder judge
		}
		end := stringEnd(s, i)
		if end < 0 {
			return true
		}
		key := s[i+1 : end]
		i = skipSpace(s, end+1)
		if i >= len(s) || s[i] != ':' {
			return true
		}
		i = skipSpace(s, i+1)
		switch string(key) {
		case "type":
			if i >= len(s) || s[i] != '"' {
				return true
			}
			e := stringEnd(s, i)
			if e < 0 {
				return true
			}
			t := string(s[i+1 : e])
			return t == "user" || t == "assistant"
		case "attachment":
			return false
		case "message":
			return true
		}
		i = skipValue(s, i)
		if i < 0 {
			return true
		}
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != ',' {
			return true
		}
		i++
	}
}

func skipSpace(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
		i++
	}
	return i
}

// stringEnd returns the index of the quote closing the string that starts
// at s[i], or -1 when it does not close within s.
func stringEnd(s []byte, i int) int {
	for j := i + 1; j < len(s); {
		k := bytes.IndexAny(s[j:], `"\`)
		if k < 0 {
			return -1
		}
		j += k
		if s[j] == '"' {
			return j
		}
		j += 2
	}
	return -1
}

// skipValue returns the index just past the JSON value at s[i], or -1
// when it does not end within s.
func skipValue(s []byte, i int) int {
	if i >= len(s) {
		return -1
	}
	switch s[i] {
	case '"':
		e := stringEnd(s, i)
		if e < 0 {
			return -1
		}
		return e + 1
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				e := stringEnd(s, j)
				if e < 0 {
					return -1
				}
				j = e
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	default: // number, true, false, null
		for j := i; j < len(s); j++ {
			switch s[j] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return j
			}
		}
		return -1
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
