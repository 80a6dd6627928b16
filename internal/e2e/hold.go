package e2e

import (
	"net/http"
	"sync"
	"time"
)

// Hold keeps requests waiting, as a slow or stalled model does, until the
// client gives up or the server closes. Its zero value is ready to use.
type Hold struct {
	once   sync.Once
	closed chan struct{}
}

func (h *Hold) init() { h.once.Do(func() { h.closed = make(chan struct{}) }) }

// Wait holds request r for d, forever when d < 0, and reports whether the
// time ran out (false: the client went away or Release was called, and the
// request is not to be answered).
func (h *Hold) Wait(r *http.Request, d time.Duration) bool {
	h.init()
	var after <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		after = t.C
	}
	select {
	case <-after:
		return true
	case <-r.Context().Done():
	case <-h.closed:
	}
	return false
}

// Release lets every waiting request go, now and later. Call it before the
// server's Close, which waits for them.
func (h *Hold) Release() {
	h.init()
	select {
	case <-h.closed:
	default:
		close(h.closed)
	}
}
