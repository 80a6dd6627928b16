package e2e

// The OpenAI stand-in: a scripted stand-in for the OpenAI Responses API, on
// 127.0.0.1 only, so that the real Codex CLI can run whole sessions (hooks,
// exec_command and apply_patch, automatic compaction, resume) offline in
// tests. It answers POST /v1/responses from a script as server-sent events,
// answers Codex's compaction requests with a summary, and records every
// request so a test can assert exactly what the client sent to the model.
//
// Codex reaches it through a custom model provider whose base_url is
// URL + "/v1" with wire_api "responses" (see Args).

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// OpenAIResponse is one scripted model reply: text, one tool call, or both (the
// text first, as a model says what it is about to do).
type OpenAIResponse struct {
	Text string    // the assistant's text
	Call *ToolCall // one tool call; Codex runs it and asks again
	// InputTokens is the prompt size the reply's usage reports (0 = 1000).
	// At or above Codex's model_auto_compact_token_limit it compacts the
	// history before its next request (mid-turn after a tool call, or
	// before the next turn).
	InputTokens int
	// Hang never answers: the request waits until the client goes away or
	// the server closes (a model that stopped responding).
	Hang bool
	// Delay is how long the model takes to answer (0 = at once).
	Delay time.Duration
}

// OpenAIHang returns a reply that never comes.
func OpenAIHang() OpenAIResponse { return OpenAIResponse{Hang: true} }

// ToolCall is a tool call the model makes. A string Input becomes a
// custom (freeform) tool call, as apply_patch is; anything else is a
// function call with Input as its JSON arguments.
type ToolCall struct {
	Name  string
	Input any
}

// OpenAIText returns a plain text reply.
func OpenAIText(s string) OpenAIResponse { return OpenAIResponse{Text: s} }

// Exec returns a reply calling exec_command with cmd.
func Exec(cmd string) OpenAIResponse {
	return OpenAIResponse{Call: &ToolCall{Name: "exec_command", Input: map[string]any{"cmd": cmd}}}
}

// Patch returns a reply calling apply_patch with a patch
// ("*** Begin Patch\n…*** End Patch\n").
func Patch(patch string) OpenAIResponse {
	return OpenAIResponse{Call: &ToolCall{Name: "apply_patch", Input: patch}}
}

// Tokens returns r reporting n input tokens.
func (r OpenAIResponse) Tokens(n int) OpenAIResponse { r.InputTokens = n; return r }

// Saying returns r with text said before its tool call.
func (r OpenAIResponse) Saying(text string) OpenAIResponse { r.Text = text; return r }

// After returns r answered only after d.
func (r OpenAIResponse) After(d time.Duration) OpenAIResponse { r.Delay = d; return r }

// OpenAIRequest is one request the client sent, as received.
type OpenAIRequest struct {
	N          int    // 1-based arrival order
	Method     string // GET, POST
	Path       string // URL path and query, e.g. "/v1/responses"
	Body       []byte // the raw body
	Compaction bool   // Codex asking for a summary of the history
}

// OpenAIServer is a running stand-in API. Its zero value is not usable; call New.
type OpenAIServer struct {
	// URL (the Script's) is the server's root, e.g. http://127.0.0.1:PORT; Codex's
	// base_url is URL + "/v1".
	Script[OpenAIResponse, OpenAIRequest]

	hold Hold // releases hanging and delayed requests on Close
}

// OpenAIDefaultSummary is the summary compaction requests get unless SetSummary says otherwise.
const OpenAIDefaultSummary = "The user and assistant exchanged greetings while testing hooks."

// NewOpenAI starts a server on 127.0.0.1 that answers ordinary requests with the
// given responses in order (then "OK"). Close it when done.
func NewOpenAI(responses ...OpenAIResponse) *OpenAIServer {
	s := &OpenAIServer{}
	s.Start(s.serve, OpenAIDefaultSummary, responses...)
	return s
}

// Close shuts the server down; hanging requests give up.
func (s *OpenAIServer) Close() {
	s.hold.Release()
	s.Script.Close()
}

// Args are the codex command-line options (before the subcommand) that
// point it at this server with the given model: a custom provider with
// plain HTTP and SSE, no websockets, no retries (a scripting mistake fails
// fast), no update check and no analytics.
func (s *OpenAIServer) Args(model string) []string {
	const p = "model_providers.e2e"
	return []string{
		"-c", `model_provider="e2e"`, "-c", fmt.Sprintf("model=%q", model),
		"-c", p + `.name="e2e"`, "-c", fmt.Sprintf("%s.base_url=%q", p, s.URL+"/v1"),
		"-c", p + `.wire_api="responses"`, "-c", p + ".supports_websockets=false",
		"-c", p + ".request_max_retries=0", "-c", p + ".stream_max_retries=0",
		"-c", "check_for_update_on_startup=false", "-c", "analytics.enabled=false",
	}
}

// compactionPrompt is how Codex's summarisation request begins (its last
// input item).
const compactionPrompt = "CONTEXT CHECKPOINT COMPACTION"

// OpenAIIsCompaction reports whether a request body is Codex asking the model to
// summarise the history: its last input item is the compaction prompt.
func OpenAIIsCompaction(body []byte) bool {
	var req struct {
		Input []json.RawMessage `json:"input"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Input) == 0 {
		return false
	}
	return strings.Contains(string(req.Input[len(req.Input)-1]), compactionPrompt)
}

// Message is one message item of a request's input.
type Message struct {
	Role string // developer, user, assistant
	Text string // its text parts joined with "\n"
}

// Messages returns the message items of a request body's input, in order
// (tool calls and their outputs left out). SessionStart hook context is a
// developer message of its own.
func Messages(body []byte) []Message {
	var req struct {
		Input []struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"input"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var out []Message
	for _, it := range req.Input {
		if it.Type != "message" && it.Type != "" {
			continue
		}
		var s string
		if json.Unmarshal(it.Content, &s) == nil {
			out = append(out, Message{Role: it.Role, Text: s})
			continue
		}
		var parts []struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(it.Content, &parts)
		var texts []string
		for _, p := range parts {
			texts = append(texts, p.Text)
		}
		out = append(out, Message{Role: it.Role, Text: strings.Join(texts, "\n")})
	}
	return out
}

func (s *OpenAIServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	req := OpenAIRequest{Method: r.Method, Path: r.URL.RequestURI(), Body: body}
	isResponses := r.Method == http.MethodPost && path == "/v1/responses"
	req.Compaction = isResponses && OpenAIIsCompaction(body)

	req, next, haveNext, summary := s.Take(func(n int) OpenAIRequest { req.N = n; return req }, func(r OpenAIRequest) bool {
		return isResponses && !r.Compaction
	})
	if !haveNext {
		next = OpenAIText("OK")
	}
	if isResponses && !req.Compaction {
		switch {
		case next.Hang:
			s.hold.Wait(r, -1)
			return
		case next.Delay > 0 && !s.hold.Wait(r, next.Delay):
			return
		}
	}

	switch {
	case r.Method == http.MethodGet && path == "/v1/models":
		openAIWriteJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
		return
	case r.Method == http.MethodPost && path == "/v1/responses/compact":
		// Remote compaction (OpenAI's own provider); a custom provider
		// compacts locally, through /v1/responses.
		openAIWriteJSON(w, map[string]any{"output": []any{map[string]any{"type": "message", "role": "user",
			"content": []any{map[string]any{"type": "input_text", "text": summary}}}}})
		return
	case !isResponses:
		http.Error(w, "{}", http.StatusNotFound)
		return
	}
	var parsed struct {
		Model  string `json:"model"`
		Stream *bool  `json:"stream"`
	}
	_ = json.Unmarshal(body, &parsed)
	if parsed.Model == "" {
		parsed.Model = "mock-model"
	}
	if req.Compaction {
		next = OpenAIText(summary)
	}
	tokens := 1000
	if haveNext && next.InputTokens > 0 {
		tokens = next.InputTokens
	}
	its := items(req.N, next)
	resp := map[string]any{"id": fmt.Sprintf("resp_mock_%d", req.N), "object": "response",
		"created_at": time.Now().Unix(), "model": parsed.Model}
	if parsed.Stream != nil && !*parsed.Stream {
		resp["status"], resp["output"], resp["usage"] = "completed", its, usage(tokens)
		openAIWriteJSON(w, resp)
		return
	}
	openAIStream(w, resp, its, tokens)
}

// items are the output items of a reply, in the API's shape: its text
// (unless it only calls a tool), then its tool call.
func items(n int, r OpenAIResponse) []any {
	var out []any
	if r.Text != "" || r.Call == nil {
		out = append(out, openAIMessage(n, r.Text))
	}
	if c := r.Call; c != nil {
		if patch, ok := c.Input.(string); ok {
			return append(out, map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_mock_%d", n), "status": "completed",
				"call_id": fmt.Sprintf("call_mock_%d", n), "name": c.Name, "input": patch})
		}
		input := c.Input
		if input == nil {
			input = map[string]any{}
		}
		args, _ := json.Marshal(input)
		out = append(out, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_mock_%d", n), "status": "completed",
			"call_id": fmt.Sprintf("call_mock_%d", n), "name": c.Name, "arguments": string(args)})
	}
	return out
}

// openAIMessage is an assistant openAIMessage item ("OK" for no text).
func openAIMessage(n int, text string) map[string]any {
	if text == "" {
		text = "OK"
	}
	return map[string]any{"type": "message", "id": fmt.Sprintf("msg_mock_%d", n), "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
}

func usage(tokens int) map[string]any {
	return map[string]any{"input_tokens": tokens, "input_tokens_details": map[string]int{"cached_tokens": 0},
		"output_tokens": 20, "output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": tokens + 20}
}

func openAIWriteJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// openAIStream writes one reply as the server-sent events Codex reads:
// response.created; for each output item, response.output_item.added, a
// text delta for a message, response.output_item.done; then
// response.completed with the usage.
func openAIStream(w http.ResponseWriter, resp map[string]any, its []any, tokens int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	seq := 0
	event := func(typ string, data map[string]any) {
		data["type"], data["sequence_number"] = typ, seq
		seq++
		j, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, j)
	}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range resp {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	event("response.created", map[string]any{"response": with(map[string]any{"status": "in_progress", "output": []any{}})})
	for i, x := range its {
		it := x.(map[string]any)
		added := it
		if it["type"] == "message" {
			added = map[string]any{}
			for k, v := range it {
				added[k] = v
			}
			added["content"] = []any{}
		}
		event("response.output_item.added", map[string]any{"output_index": i, "item": added})
		if it["type"] == "message" {
			text := it["content"].([]any)[0].(map[string]any)["text"]
			event("response.output_text.delta", map[string]any{"item_id": it["id"], "output_index": i, "content_index": 0, "delta": text})
		}
		event("response.output_item.done", map[string]any{"output_index": i, "item": it})
	}
	event("response.completed", map[string]any{"response": with(map[string]any{"status": "completed", "output": its, "usage": usage(tokens)})})
}
