package e2e

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"
)

// TestHold: Wait holds for its time and says so; a request whose client
// went away, or a Release (before or during the wait), ends it early.
func TestHold(t *testing.T) {
	var h Hold
	r := httptest.NewRequest("POST", "/", nil)
	start := time.Now()
	if !h.Wait(r, 50*time.Millisecond) || time.Since(start) < 50*time.Millisecond {
		t.Errorf("Wait(50ms) = false or early (%v)", time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if h.Wait(r.WithContext(ctx), -1) {
		t.Error("Wait on a request whose client went away = true")
	}
	done := make(chan bool)
	go func() { done <- h.Wait(r, -1) }()
	time.Sleep(50 * time.Millisecond)
	h.Release()
	h.Release() // twice is fine
	select {
	case ok := <-done:
		if ok {
			t.Error("a released Wait = true")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Release did not end a Wait")
	}
	if h.Wait(r, time.Hour) {
		t.Error("Wait after Release = true")
	}
}
