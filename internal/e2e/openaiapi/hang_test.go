package openaiapi

import (
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/e2e/standin"
)

// TestHangDelay: a Delay reply comes after its delay; a Hang reply never
// comes while the replies after it (another client's) do; Close releases
// the hanging request.
func TestHangDelay(t *testing.T) {
	s := New(Text("slow").After(300*time.Millisecond), Hang(), Text("after"))
	url := s.URL + "/v1/responses"
	const body = `{"model":"m","stream":true}`

	start := time.Now()
	_, data := sse(t, post(t, url, body).Body)
	if took := time.Since(start); took < 300*time.Millisecond || data[2]["delta"] != "slow" {
		t.Errorf("the delayed reply: %v after %v", data[2], took)
	}

	standin.CheckHang(t, url, body, func() int { return len(s.Requests()) }, func() {
		if _, data := sse(t, post(t, url, body).Body); data[2]["delta"] != "after" {
			t.Errorf("the request after the hanging one got %v", data[2])
		}
	}, s.Close)
}

// TestSaying: a reply with text and a tool call streams both items, the
// message first, at output indexes 0 and 1, and completes with both.
func TestSaying(t *testing.T) {
	s := New(Exec("make").Saying("Building now."))
	defer s.Close()
	events, data := sse(t, post(t, s.URL+"/v1/responses", `{"model":"m","stream":true}`).Body)
	want := "response.created response.output_item.added response.output_text.delta response.output_item.done " +
		"response.output_item.added response.output_item.done response.completed"
	if got := strings.Join(events, " "); got != want {
		t.Fatalf("events %s, want %s", got, want)
	}
	if data[2]["delta"] != "Building now." || data[3]["output_index"] != 0.0 {
		t.Errorf("the message: %v %v", data[2], data[3])
	}
	if it := data[5]["item"].(map[string]any); it["name"] != "exec_command" || data[5]["output_index"] != 1.0 {
		t.Errorf("the call: %v", data[5])
	}
	if out := data[6]["response"].(map[string]any)["output"].([]any); len(out) != 2 {
		t.Errorf("completed with %d items", len(out))
	}
}
