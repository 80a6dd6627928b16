package handoff

import (
	"errors"
	"fmt"
	"time"
)

// Bounds on rendering with a project's own template: a template that loops
// (nested ranges) or prints without end must not hold a hook past its
// budget or fill the disk.
const (
	TemplateTimeout = 500 * time.Millisecond
	maxTemplateOut  = 4 << 20
)

// errOutput stops a template that prints more than maxTemplateOut bytes.
var errOutput = errors.New("the template printed more than 4 MiB")

// RenderProject renders h with a project's template tmpl ("" for the
// built-in one) within limit bytes. When that template fails, takes longer
// than timeout or prints too much, h is rendered with the built-in template
// and problem says why (one line for stderr); err is for the built-in
// template's own failure only.
func RenderProject(h *Handoff, tmpl string, limit int, timeout time.Duration) (out []byte, problem string, err error) {
	if tmpl == "" {
		out, err = renderLimit(h, "", limit)
		return out, "", err
	}
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	// The view is built from a copy: a render abandoned on timeout goes on
	// in the background until the process exits, and must not share h.
	cp := *h
	go func() {
		o, e := renderLimit(&cp, tmpl, limit)
		done <- result{o, e}
	}()
	select {
	case r := <-done:
		if r.err == nil {
			return r.out, "", nil
		}
		problem = fmt.Sprintf("handoff template not used: %v", r.err)
	case <-time.After(timeout):
		problem = fmt.Sprintf("handoff template not used: it ran past %v", timeout)
	}
	out, err = renderLimit(h, "", limit)
	return out, problem, err
}

// capped is a buffer that refuses to grow past max bytes.
type capped struct {
	b   []byte
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if len(c.b)+len(p) > c.max {
		return 0, errOutput
	}
	c.b = append(c.b, p...)
	return len(p), nil
}
