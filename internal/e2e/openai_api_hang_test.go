package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestOpenAIHangDelay: a Delay reply comes after its delay; a Hang reply never
// comes while the replies after it (another client's) do; Close releases
// the hanging request.
func TestOpenAIHangDelay(t *testing.T) {
	s := NewOpenAI(OpenAIText("slow").After(300*time.Millisecond), OpenAIHang(), OpenAIText("after"))
	url := s.URL + "/v1/responses"
	const body = `{"model":"m","stream":true}`

	start := time.Now()
	_, data := openAISse(t, openAIPost(t, url, body).Body)
	if took := time.Since(start); took < 300*time.Millisecond || data[2]["delta"] != "slow" {
		t.Errorf("the delayed reply: %v after %v", data[2], took)
	}

	CheckHang(t, url, body, func() int { return len(s.Requests()) }, func() {
		if _, data := openAISse(t, openAIPost(t, url, body).Body); data[2]["delta"] != "after" {
			t.Errorf("the request after the hanging one got %v", data[2])
		}
	}, s.Close)
}

// TestOpenAISaying: a reply with text and a tool call streams both items, the
// message first, at output indexes 0 and 1, and completes with both.
func TestOpenAISaying(t *testing.T) {
	s := NewOpenAI(Exec("make").Saying("Building now."))
	defer s.Close()
	events, data := openAISse(t, openAIPost(t, s.URL+"/v1/responses", `{"model":"m","stream":true}`).Body)
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
