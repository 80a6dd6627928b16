package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// CheckHang checks a stand-in's never-answered reply, for the stand-ins'
// own tests: a POST of body to url is answered with it, requests counts
// the requests received, answered sends the next request (checking its
// answer), and closeServer closes the server. The hanging request must get
// no answer while the next one (another client's) gets its own, and
// closing the server must let it go.
func CheckHang(t testing.TB, url, body string, requests func() int, answered func(), closeServer func()) {
	t.Helper()
	before := requests()
	ended := make(chan struct{})
	go func() {
		if resp, err := http.Post(url, "application/json", strings.NewReader(body)); err == nil {
			resp.Body.Close()
		}
		close(ended)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for requests() == before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	answered()
	select {
	case <-ended:
		t.Fatal("the hanging request was answered")
	case <-time.After(300 * time.Millisecond):
	}
	closed := make(chan struct{})
	go func() { closeServer(); close(closed) }()
	for _, c := range []chan struct{}{ended, closed} {
		select {
		case <-c:
		case <-time.After(5 * time.Second):
			t.Fatal("closing the server did not release the hanging request")
		}
	}
}
