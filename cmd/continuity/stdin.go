package main

import (
	"fmt"
	"io"
	"time"

	"github.com/continuity-md/continuity/internal/session"
)

// payloadWait bounds how long a hook waits for its payload. Hosts write it
// at once; one that never closes stdin, or writes nothing, must not hold
// the session.
const payloadWait = 3 * time.Second

// readPayload reads one hook payload from r: up to the end of its first
// JSON object (a host may leave stdin open after it), or the end of input,
// at most session.MaxPayload bytes, within wait.
func readPayload(r io.Reader, wait time.Duration) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		b, err := session.ReadPayload(&objectReader{r: r})
		ch <- result{b, err}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case res := <-ch:
		return res.b, res.err
	case <-timer.C:
		// The reading goroutine stays blocked on stdin; the process ends soon.
		return nil, fmt.Errorf("no complete payload on stdin within %v", wait)
	}
}

// objectReader reads r up to the end of the JSON object it starts with,
// then reports the end of input. Input that does not start with '{' is
// read to its end, for the host's decoder to refuse.
type objectReader struct {
	r       io.Reader
	started bool // the first byte other than white space was seen
	plain   bool // and it was not '{'
	depth   int
	inStr   bool
	esc     bool
	done    bool
}

func (o *objectReader) Read(p []byte) (int, error) {
	if o.done {
		return 0, io.EOF
	}
	n, err := o.r.Read(p)
	for i := 0; i < n && !o.plain; i++ {
		if o.step(p[i]) {
			o.done = true
			return i + 1, nil
		}
	}
	return n, err
}

// step takes one byte and reports whether it closed the object.
func (o *objectReader) step(c byte) bool {
	switch {
	case !o.started:
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			return false
		}
		o.started, o.plain = true, c != '{'
		o.depth = 1
		return false
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
