package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/continuity-md/continuity/internal/core"
)

// payloadWait bounds how long a hook waits for its payload. Hosts write it
// at once; one that never closes stdin, or writes nothing, must not hold
// the session.
const payloadWait = 3 * time.Second

// payloadGrace is how long a hook waits for the end of stdin once a whole
// JSON object has arrived: a host closes stdin right after its payload,
// and one that leaves it open costs only this.
const payloadGrace = 100 * time.Millisecond

// readPayload reads one hook payload from r, as core.ReadPayload does
// (at most core.MaxPayload bytes, refused when empty), within wait. A
// payload whose JSON object is whole, with stdin still open after the
// grace, is taken as it is; anything else still open at the deadline is
// refused.
func readPayload(r io.Reader, wait time.Duration) ([]byte, error) {
	type chunk struct {
		b   []byte
		err error
	}
	chunks := make(chan chunk, 4)
	go func() {
		for {
			buf := make([]byte, 64<<10)
			n, err := r.Read(buf)
			chunks <- chunk{buf[:n], err}
			if err != nil {
				return // the goroutine may stay blocked in Read: the process ends soon
			}
		}
	}()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	var grace <-chan time.Time
	var data []byte
	var obj objectScan
	for {
		select {
		case c := <-chunks:
			end := obj.feed(c.b, len(data))
			data = append(data, c.b...)
			switch {
			case errors.Is(c.err, io.EOF) || len(data) > core.MaxPayload:
				return core.ReadPayload(bytes.NewReader(data))
			case c.err != nil:
				return nil, fmt.Errorf("read payload: %w", c.err)
			case end > 0 && grace == nil:
				grace = time.After(payloadGrace)
			}
		case <-grace:
			return core.ReadPayload(bytes.NewReader(data[:obj.end]))
		case <-deadline.C:
			return nil, fmt.Errorf("no complete payload on stdin within %v", wait)
		}
	}
}

// objectScan finds where the JSON object input starts with ends: end is
// the offset just past its closing brace, 0 while it is open or when the
// input does not start with '{'.
type objectScan struct {
	started, plain bool // the first byte other than white space was seen; it was not '{'
	depth          int
	inStr, esc     bool
	end            int
}

// feed scans b, found at offset off of the input, and returns end.
func (o *objectScan) feed(b []byte, off int) int {
	for i := 0; i < len(b) && o.end == 0 && !o.plain; i++ {
		if o.step(b[i]) {
			o.end = off + i + 1
		}
	}
	return o.end
}

// step takes one byte and reports whether it closed the object.
func (o *objectScan) step(c byte) bool {
	switch {
	case !o.started:
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			return false
		}
		o.started, o.plain, o.depth = true, c != '{', 1
	case o.esc:
		o.esc = false
	case o.inStr:
		o.esc = c == '\\'
		o.inStr = c != '"'
	case c == '"':
		o.inStr = true
	case c == '{' || c == '[':
		o.depth++
	case c == '}' || c == ']':
		o.depth--
		return o.depth == 0
	}
	return false
}
