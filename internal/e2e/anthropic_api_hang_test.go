package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAnthropicHang: a Hang response never answers, while the requests after it
// (from another client) are answered; Close releases the hanging request.
func TestAnthropicHang(t *testing.T) {
	s := NewAnthropic(AnthropicHang(), AnthropicText("after"))
	url := s.URL + "/v1/messages"
	got := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, url, strings.NewReader(`{"model":"m"}`))
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		got <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for len(s.Requests()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if m := decode(t, anthropicPost(t, url, `{"model":"m"}`).Body); m.Content[0].Text != "after" {
		t.Errorf("the request after the hanging one got %+v", m)
	}
	select {
	case err := <-got:
		t.Fatalf("the hanging request was answered (%v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	s.Close()
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not release the hanging request")
	}
}
