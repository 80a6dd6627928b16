// The chat stand-in is a scripted stand-in for the OpenAI Chat Completions
// API, on 127.0.0.1 only, so that the real Copilot CLI and Droid (in their
// bring-your-own-model modes) can run whole sessions offline in tests:
// hooks, tools, transcripts and Copilot's compaction run for real, only the
// model's replies are scripted. Every request is recorded, so a test can
// assert exactly what the client sent to the model.
//
// A request that offers tools takes the next scripted reply ("OK" when
// none is left); a request without tools (titles, naming) gets "OK"; a
// compaction request (its last message, the user's, asks for a summary of
// the conversation) gets the summary. Neither takes a reply.
package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// ChatResponse is one scripted model reply: text, tool calls, or both.
type ChatResponse struct {
	Text  string
	Calls []ToolCall // the client's own tools
	// InputTokens is the prompt size its usage reports (0 = 1000): near
	// Copilot's COPILOT_PROVIDER_MAX_PROMPT_TOKENS it compacts.
	InputTokens int
	// Hang never answers (a model that stopped responding).
	Hang bool
}

// Text returns a plain text reply.
func ChatText(s string) ChatResponse { return ChatResponse{Text: s} }

// Call returns a reply calling tool name with input.
func ChatCall(name string, input any) ChatResponse {
	return ChatResponse{Calls: []ToolCall{{Name: name, Input: input}}}
}

// Hang returns a reply that never comes.
func ChatHang() ChatResponse { return ChatResponse{Hang: true} }

// Tokens returns r reporting n input tokens.
func (r ChatResponse) Tokens(n int) ChatResponse { r.InputTokens = n; return r }

// ChatRequest is one request the client sent.
type ChatRequest struct {
	N          int
	Method     string
	Path       string
	Body       []byte
	Tools      bool // it offered tools (a turn of the agent)
	Compaction bool // it asked for a summary of the conversation
}

// Server is a running stand-in. Call New.
type ChatServer struct {
	Script[ChatResponse, ChatRequest]
	hold Hold
}

// DefaultSummary is the summary compaction requests get unless SetSummary says otherwise.
const ChatDefaultSummary = "The user and assistant exchanged greetings while testing hooks."

// New starts a server answering with responses in order.
func NewChat(responses ...ChatResponse) *ChatServer {
	s := &ChatServer{}
	s.Start(s.serve, ChatDefaultSummary, responses...)
	return s
}

// Close shuts the server down; hanging requests give up.
func (s *ChatServer) Close() {
	s.hold.Release()
	s.Script.Close()
}

type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Tools    []any  `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// Messages returns the messages of a request body, their text parts joined.
func ChatMessages(body []byte) []Message {
	var req chatRequest
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var out []Message
	for _, m := range req.Messages {
		out = append(out, Message{Role: m.Role, Text: chatContentText(m.Content)})
	}
	return out
}

func chatContentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var texts []string
	for _, p := range parts {
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n")
}

var (
	chatSummaryWord = regexp.MustCompile(`(?i)summar(y|ize|ise)`)
	chatHistoryWord = regexp.MustCompile(`(?i)(conversation|history|compact|session so far|context window)`)
)

// IsCompaction reports whether a request asks for a summary of the
// conversation: its last message is the user's and says so.
func ChatIsCompaction(body []byte) bool {
	msgs := ChatMessages(body)
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != "user" {
		return false
	}
	t := msgs[len(msgs)-1].Text
	return chatSummaryWord.MatchString(t) && chatHistoryWord.MatchString(t)
}

func (s *ChatServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var parsed chatRequest
	_ = json.Unmarshal(body, &parsed)
	isChat := r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions")
	req := ChatRequest{Method: r.Method, Path: r.URL.RequestURI(), Body: body, Tools: len(parsed.Tools) > 0}
	req.Compaction = isChat && ChatIsCompaction(body)
	req, next, haveNext, summary := s.Take(func(n int) ChatRequest { req.N = n; return req }, func(q ChatRequest) bool {
		return isChat && q.Tools && !q.Compaction
	})
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		openAIWriteJSON(w, map[string]any{"object": "list", "data": []any{map[string]any{"id": "mock-model", "object": "model", "owned_by": "e2e"}}})
		return
	case !isChat:
		http.Error(w, "{}", http.StatusNotFound)
		return
	case req.Compaction:
		next = ChatText("<overview>\n" + summary + "\n</overview>\n<summary>\n" + summary + "\n</summary>")
	case !haveNext:
		next = ChatText("OK")
	case next.Hang:
		s.hold.Wait(r, -1)
		return
	}
	tokens := 1000
	if next.InputTokens > 0 {
		tokens = next.InputTokens
	}
	if parsed.Model == "" {
		parsed.Model = "mock-model"
	}
	chatReply(w, req.N, parsed.Model, parsed.Stream, next, tokens)
}

func chatUsage(tokens int) map[string]any {
	return map[string]any{"prompt_tokens": tokens, "completion_tokens": 20, "total_tokens": tokens + 20,
		"prompt_tokens_details": map[string]int{"cached_tokens": 0}, "completion_tokens_details": map[string]int{"reasoning_tokens": 0}}
}

// reply writes one reply, as one JSON object or as server-sent chunks.
func chatReply(w http.ResponseWriter, n int, model string, stream bool, r ChatResponse, tokens int) {
	id := fmt.Sprintf("chatcmpl_mock_%d", n)
	created := time.Now().Unix()
	var calls []map[string]any
	for i, c := range r.Calls {
		args, _ := json.Marshal(c.Input)
		if s, ok := c.Input.(string); ok {
			args = []byte(s)
		}
		calls = append(calls, map[string]any{"id": fmt.Sprintf("call_mock_%d_%d", n, i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": string(args)}})
	}
	var text any = r.Text
	if r.Text == "" {
		text = nil
		if len(calls) == 0 {
			text = "OK"
		}
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	if !stream {
		msg := map[string]any{"role": "assistant", "content": text}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		openAIWriteJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": chatUsage(tokens)})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	chunk := func(choices []any, extra map[string]any) {
		m := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model, "choices": choices}
		for k, v := range extra {
			m[k] = v
		}
		b, _ := json.Marshal(m)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	delta := func(d map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": d, "logprobs": nil, "finish_reason": finish}}
	}
	chunk(delta(map[string]any{"role": "assistant", "content": ""}, nil), nil)
	if s, ok := text.(string); ok && s != "" {
		chunk(delta(map[string]any{"content": s}, nil), nil)
	}
	for i, c := range calls {
		f := c["function"].(map[string]any)
		chunk(delta(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c["id"], "type": "function",
			"function": map[string]any{"name": f["name"], "arguments": ""}}}}, nil), nil)
		chunk(delta(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": f["arguments"]}}}}, nil), nil)
	}
	chunk(delta(map[string]any{}, finish), nil)
	chunk([]any{}, map[string]any{"usage": chatUsage(tokens)})
	fmt.Fprint(w, "data: [DONE]\n\n")
}
