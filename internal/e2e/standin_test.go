package e2e

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
)

type req struct {
	N    int
	Path string
}

// server is a minimal stand-in: it answers /ask from the script, anything
// else with 404, and logs both.
type server struct{ Script[string, req] }

func newServer(replies ...string) *server {
	s := &server{}
	s.Start(func(w http.ResponseWriter, r *http.Request) {
		_, next, ok, summary := s.Take(func(n int) req { return req{n, r.URL.Path} }, func(q req) bool { return q.Path == "/ask" })
		switch {
		case r.URL.Path == "/summary":
			fmt.Fprint(w, summary)
		case ok:
			fmt.Fprint(w, next)
		default:
			http.NotFound(w, r)
		}
	}, "sum", replies...)
	return s
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Error(err) // not Fatal: called from goroutines too
		return ""
	}
	defer resp.Body.Close()
	var b [64]byte
	n, _ := resp.Body.Read(b[:])
	return string(b[:n])
}

// TestScriptQueueAndLog: replies go out in order only to the requests the
// API answers from its script; every request is logged, numbered by
// arrival; Push and SetSummary take effect.
func TestScriptQueueAndLog(t *testing.T) {
	s := newServer("one", "two")
	defer s.Close()
	if got := get(t, s.URL+"/ask"); got != "one" {
		t.Errorf("first reply %q", got)
	}
	get(t, s.URL+"/other") // logged, takes no reply
	if s.Pending() != 1 {
		t.Errorf("pending %d, want 1", s.Pending())
	}
	s.Push("three")
	s.SetSummary("new summary")
	if got := get(t, s.URL+"/summary"); got != "new summary" {
		t.Errorf("summary %q", got)
	}
	for _, want := range []string{"two", "three"} {
		if got := get(t, s.URL+"/ask"); got != want {
			t.Errorf("reply %q, want %q", got, want)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 5 || reqs[1] != (req{2, "/other"}) || reqs[4].N != 5 {
		t.Errorf("log %+v", reqs)
	}
	if s.Pending() != 0 {
		t.Errorf("pending %d after the script ran out", s.Pending())
	}
}

// TestScriptConcurrent: concurrent requests each get a distinct number and
// a distinct reply (run with -race).
func TestScriptConcurrent(t *testing.T) {
	replies := make([]string, 20)
	for i := range replies {
		replies[i] = fmt.Sprint(i)
	}
	s := newServer(replies...)
	defer s.Close()
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[string]bool{}
	for range replies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := get(t, s.URL+"/ask")
			mu.Lock()
			got[r] = true
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(got) != len(replies) {
		t.Errorf("%d distinct replies, want %d", len(got), len(replies))
	}
	seen := map[int]bool{}
	for _, r := range s.Requests() {
		seen[r.N] = true
	}
	if len(seen) != len(replies) {
		t.Errorf("%d distinct numbers, want %d", len(seen), len(replies))
	}
}
