package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// AnthropicResponse is one scripted model reply: plain text, or one tool call.
type AnthropicResponse struct {
	Text    string   // the assistant's text, when ToolUse is nil
	ToolUse *ToolUse // one tool call; the client runs it and asks again
	// InputTokens is the prompt size the reply's usage reports (0 = 1000):
	// a size near the model's context window makes the client compact by
	// itself before its next request (an "auto" PreCompact).
	InputTokens int
	// Hang never answers: the request waits until the client goes away or
	// the server closes (a model that stopped responding).
	Hang bool
	// Delay is how long the model takes to answer (0 = at once).
	Delay time.Duration
}

// AnthropicHang returns a response that never comes.
func AnthropicHang() AnthropicResponse { return AnthropicResponse{Hang: true} }

// ToolUse is a tool call the model makes.
type ToolUse struct {
	Name  string         // e.g. "Write"
	Input map[string]any // the tool's arguments
}

// AnthropicText returns a plain text response.
func AnthropicText(s string) AnthropicResponse { return AnthropicResponse{Text: s} }

// AnthropicTool returns a response calling one tool.
func AnthropicTool(name string, input map[string]any) AnthropicResponse {
	return AnthropicResponse{ToolUse: &ToolUse{Name: name, Input: input}}
}

// AnthropicRequest is one request the client sent, as received.
type AnthropicRequest struct {
	N           int    // 1-based arrival order
	Path        string // URL path and query, e.g. "/v1/messages?beta=true"
	Body        []byte // the raw body
	Compaction  bool   // it asked for a conversation summary
	CountTokens bool   // it was a count_tokens call
}

// AnthropicServer is a running stand-in API. Its zero value is not usable; call New.
type AnthropicServer struct {
	// URL (the Script's) is the base URL to give the client as ANTHROPIC_BASE_URL.
	Script[AnthropicResponse, AnthropicRequest]

	closed chan struct{} // closed by Close: hanging requests give up
	once   sync.Once
}

// AnthropicDefaultSummary is the summary compaction requests get unless SetSummary says otherwise.
const AnthropicDefaultSummary = "The user and assistant exchanged greetings while testing hooks."

// NewAnthropic starts a server on 127.0.0.1 that answers ordinary requests with the
// given responses in order (then "OK"). Close it when done.
func NewAnthropic(responses ...AnthropicResponse) *AnthropicServer {
	s := &AnthropicServer{closed: make(chan struct{})}
	s.Start(s.serve, AnthropicDefaultSummary, responses...)
	return s
}

// Close shuts the server down; hanging requests give up.
func (s *AnthropicServer) Close() {
	s.once.Do(func() { close(s.closed) })
	s.Script.Close()
}

var (
	summaryWord  = regexp.MustCompile(`(?i)summar`)
	summaryRules = regexp.MustCompile(`Do NOT call any tools|</summary> tags`)
)

// AnthropicIsCompaction reports whether a request body is Claude Code asking the model
// to summarise the conversation (the /compact and auto-compact prompt).
func AnthropicIsCompaction(body []byte) bool {
	b := string(body)
	return strings.Contains(b, "<summary>") && summaryWord.MatchString(b) && summaryRules.MatchString(b)
}

// block is one content block of a reply, in the API's shape.
type block struct {
	Type  string         `json:"type"`
	Text  string         `json:"text,omitempty"`
	ID    string         `json:"id,omitempty"`
	Name  string         `json:"name,omitempty"`
	Input map[string]any `json:"input,omitempty"`
}

func (s *AnthropicServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	req := AnthropicRequest{Path: r.URL.RequestURI(), Body: body,
		CountTokens: strings.HasPrefix(path, "/v1/messages/count_tokens")}
	req.Compaction = !req.CountTokens && AnthropicIsCompaction(body)

	req, next, haveNext, summary := s.Take(func(n int) AnthropicRequest { req.N = n; return req }, func(r AnthropicRequest) bool {
		return !r.CountTokens && !r.Compaction && strings.HasPrefix(path, "/v1/messages")
	})

	switch {
	case req.CountTokens:
		anthropicWriteJSON(w, map[string]any{"input_tokens": 1000})
		return
	case haveNext && next.Hang:
		select {
		case <-r.Context().Done():
		case <-s.closed:
		}
		return
	case haveNext && next.Delay > 0:
		select {
		case <-time.After(next.Delay):
		case <-r.Context().Done():
			return
		case <-s.closed:
			return
		}
	case !strings.HasPrefix(path, "/v1/messages"):
		http.Error(w, "{}", http.StatusNotFound)
		return
	}

	var parsed struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(body, &parsed)
	if parsed.Model == "" {
		parsed.Model = "mock-model"
	}
	id := fmt.Sprintf("msg_mock_%d", req.N)
	stop := "end_turn"
	inTokens := 1000
	if haveNext && next.InputTokens > 0 {
		inTokens = next.InputTokens
	}
	var content block
	switch {
	case req.Compaction:
		content = block{Type: "text", Text: "<analysis>mock</analysis>\n<summary>\n" + summary + "\n</summary>"}
	case haveNext && next.ToolUse != nil:
		input := next.ToolUse.Input
		if input == nil {
			input = map[string]any{}
		}
		content = block{Type: "tool_use", ID: fmt.Sprintf("toolu_mock_%d", req.N), Name: next.ToolUse.Name, Input: input}
		stop = "tool_use"
	case haveNext && next.Text != "":
		content = block{Type: "text", Text: next.Text}
	default:
		content = block{Type: "text", Text: "OK"}
	}
	if parsed.Stream {
		anthropicStream(w, id, parsed.Model, content, stop, inTokens)
		return
	}
	anthropicWriteJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": parsed.Model,
		"content": []block{content}, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": inTokens, "output_tokens": 20}})
}

func anthropicWriteJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// anthropicStream writes one reply as server-sent events, the way the real API streams it.
func anthropicStream(w http.ResponseWriter, id, model string, b block, stop string, inTokens int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	event := func(typ string, data map[string]any) {
		data["type"] = typ
		j, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, j)
	}
	event("message_start", map[string]any{"message": map[string]any{"id": id, "type": "message",
		"role": "assistant", "model": model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": inTokens, "output_tokens": 1}}})
	if b.Type == "text" {
		event("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		event("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": b.Text}})
	} else {
		input, _ := json.Marshal(b.Input)
		event("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{
			"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
		event("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{
			"type": "input_json_delta", "partial_json": string(input)}})
	}
	event("content_block_stop", map[string]any{"index": 0})
	event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": 20}})
	event("message_stop", map[string]any{})
}
