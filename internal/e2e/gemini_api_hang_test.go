package e2e

import (
	"encoding/json"
	"testing"
	"time"
)

// TestGeminiHangDelay: a Delay reply comes after its delay; a Hang reply never
// comes while the calls after it (another client's, a utility call) are
// answered; Close releases the hanging request.
func TestGeminiHangDelay(t *testing.T) {
	s := NewGemini(GeminiText("slow").After(300*time.Millisecond), GeminiHang(), GeminiText("after"))
	url := s.URL + "/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse"

	start := time.Now()
	if r := parse(t, geminiPost(t, url, `{}`)); time.Since(start) < 300*time.Millisecond || r.Candidates[0].Content.Parts[0].Text != "slow" {
		t.Errorf("the delayed reply: %+v after %v", r, time.Since(start))
	}
	CheckHang(t, url, `{}`, func() int { return len(s.Requests()) }, func() {
		geminiPost(t, s.URL+"/v1beta/models/gemini-3.8-flash:generateContent", `{}`) // a utility call takes no scripted reply
		if r := parse(t, geminiPost(t, url, `{}`)); r.Candidates[0].Content.Parts[0].Text != "after" {
			t.Errorf("the request after the hanging one got %+v", r)
		}
	}, s.Close)
}

// TestGeminiSaying: a reply with text and a call has both parts, the text first.
func TestGeminiSaying(t *testing.T) {
	s := NewGemini(GeminiTool("run_shell_command", map[string]any{"command": "make"}).Saying("Building now.").Tokens(42000))
	defer s.Close()
	var r reply
	if err := json.Unmarshal(geminiPost(t, s.URL+"/v1beta/models/m:streamGenerateContent?alt=sse", `{}`), &r); err != nil {
		t.Fatal(err)
	}
	parts := r.Candidates[0].Content.Parts
	if len(parts) != 2 || parts[0].Text != "Building now." || parts[1].FunctionCall == nil || parts[1].FunctionCall.Name != "run_shell_command" || r.Usage.PromptTokenCount != 42000 {
		t.Errorf("reply %+v", r)
	}
}
