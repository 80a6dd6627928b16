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

// GeminiResponse is one scripted model reply: plain text, one function call, or
// both (the text first, as a model says what it is about to do).
type GeminiResponse struct {
	Text string // the model's text
	Call *Call  // one function call; the client runs the tool and asks again
	// PromptTokens is the promptTokenCount the reply reports (0 = 1000):
	// at or over model.compressionThreshold x the model's window (0.5 x
	// 1,048,576 by default) the client compresses its history before its
	// next model call, when the history has an earlier turn to split at.
	PromptTokens int
	// Hang never answers: the request waits until the client goes away or
	// the server closes (a model that stopped responding).
	Hang bool
	// Delay is how long the model takes to answer (0 = at once).
	Delay time.Duration
}

// GeminiHang returns a reply that never comes.
func GeminiHang() GeminiResponse { return GeminiResponse{Hang: true} }

// Saying returns r with text said before its call.
func (r GeminiResponse) Saying(text string) GeminiResponse { r.Text = text; return r }

// Tokens returns r reporting n prompt tokens.
func (r GeminiResponse) Tokens(n int) GeminiResponse { r.PromptTokens = n; return r }

// After returns r answered only after d.
func (r GeminiResponse) After(d time.Duration) GeminiResponse { r.Delay = d; return r }

// Call is a function call the model makes.
type Call struct {
	Name string         // e.g. "write_file", "replace", "run_shell_command"
	Args map[string]any // the tool's arguments
}

// GeminiText returns a plain text response.
func GeminiText(s string) GeminiResponse { return GeminiResponse{Text: s} }

// GeminiTool returns a response calling one tool.
func GeminiTool(name string, args map[string]any) GeminiResponse {
	return GeminiResponse{Call: &Call{Name: name, Args: args}}
}

// GeminiRequest is one request the client sent, as received.
type GeminiRequest struct {
	N           int       // 1-based arrival order
	Path        string    // URL path and query
	Model       string    // the model named in the path
	Method      string    // streamGenerateContent, generateContent, countTokens, …
	Body        []byte    // the raw body
	Compression bool      // one of the compression's calls (a <state_snapshot> is asked for)
	Utility     bool      // a non-streaming call that is not compression (router, checks)
	At          time.Time // when it arrived
}

// Main reports whether the request is a main-loop model call, the ones the
// script answers.
func (r GeminiRequest) Main() bool { return r.Method == "streamGenerateContent" && !r.Compression }

// GeminiServer is a running stand-in API. Its zero value is not usable; call New.
type GeminiServer struct {
	// URL (the Script's) is the base URL to give the client as GOOGLE_GEMINI_BASE_URL.
	Script[GeminiResponse, GeminiRequest]

	hold Hold // releases hanging and delayed requests on Close
}

// GeminiDefaultSummary is the snapshot compression requests get unless SetSummary says otherwise.
const GeminiDefaultSummary = "The user and the model exchanged greetings while testing hooks."

// NewGemini starts a server on 127.0.0.1 that answers main-loop calls with the
// given responses in order (then "OK"). Close it when done.
func NewGemini(responses ...GeminiResponse) *GeminiServer {
	s := &GeminiServer{}
	s.Start(s.serve, GeminiDefaultSummary, responses...)
	return s
}

// Close shuts the server down; hanging requests give up.
func (s *GeminiServer) Close() {
	s.hold.Release()
	s.Script.Close()
}

// modelPath is /v1beta/models/MODEL:METHOD.
var modelPath = regexp.MustCompile(`/models/([^/:]+):(\w+)$`)

// body is the part of a request body the server reads.
type body struct {
	SystemInstruction json.RawMessage `json:"systemInstruction"`
	GenerationConfig  struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

// IsCompression reports whether a request body is Gemini CLI's compression
// (its system instruction asks for a <state_snapshot>).
func IsCompression(raw []byte) bool {
	var b body
	return json.Unmarshal(raw, &b) == nil && strings.Contains(string(b.SystemInstruction), "state_snapshot")
}

func (s *GeminiServer) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	m := modelPath.FindStringSubmatch(r.URL.Path)
	if r.Method != http.MethodPost || m == nil {
		s.record(GeminiRequest{Path: r.URL.RequestURI(), Body: raw, At: time.Now()})
		http.Error(w, "{}", http.StatusNotFound)
		return
	}
	req := GeminiRequest{Path: r.URL.RequestURI(), Model: m[1], Method: m[2], Body: raw, At: time.Now()}
	var b body
	_ = json.Unmarshal(raw, &b)
	req.Compression = req.Method != "countTokens" && strings.Contains(string(b.SystemInstruction), "state_snapshot")
	req.Utility = req.Method == "generateContent" && !req.Compression

	req, next, haveNext, summary := s.Take(func(n int) GeminiRequest { req.N = n; return req }, GeminiRequest.Main)

	id := fmt.Sprintf("resp_mock_%d", req.N)
	switch {
	case req.Method == "countTokens":
		geminiWriteJSON(w, map[string]any{"totalTokens": (len(raw) + 3) / 4})
		return
	case req.Method == "embedContent" || req.Method == "batchEmbedContents":
		geminiWriteJSON(w, map[string]any{"embedding": map[string]any{"values": []float64{0}}, "embeddings": []any{map[string]any{"values": []float64{0}}}})
		return
	case req.Method != "streamGenerateContent" && req.Method != "generateContent":
		http.Error(w, "{}", http.StatusNotFound)
		return
	}
	switch {
	case haveNext && next.Hang:
		s.hold.Wait(r, -1)
		return
	case haveNext && next.Delay > 0 && !s.hold.Wait(r, next.Delay):
		return
	}
	streaming := req.Method == "streamGenerateContent"
	var parts []any
	if haveNext && next.Call != nil && next.Text != "" {
		parts = append(parts, map[string]any{"text": next.Text})
	}
	var part map[string]any
	tokens := 1000
	switch {
	case req.Compression:
		part = map[string]any{"text": "<state_snapshot>\n" + summary + "\n</state_snapshot>"}
	case !streaming && (len(b.GenerationConfig.ResponseJSONSchema) > 0 || len(b.GenerationConfig.ResponseSchema) > 0 || b.GenerationConfig.ResponseMimeType == "application/json"):
		schema := b.GenerationConfig.ResponseJSONSchema
		if len(schema) == 0 {
			schema = b.GenerationConfig.ResponseSchema
		}
		var sc map[string]any
		_ = json.Unmarshal(schema, &sc)
		out, _ := json.Marshal(fromSchema(sc, ""))
		part = map[string]any{"text": string(out)}
	case haveNext && next.Call != nil:
		args := next.Call.Args
		if args == nil {
			args = map[string]any{}
		}
		part = map[string]any{"functionCall": map[string]any{"id": fmt.Sprintf("call_mock_%d", req.N), "name": next.Call.Name, "args": args}}
	case haveNext && next.Text != "":
		part = map[string]any{"text": next.Text}
	default:
		part = map[string]any{"text": "OK"}
	}
	if haveNext && next.PromptTokens > 0 {
		tokens = next.PromptTokens
	}
	reply := map[string]any{
		"candidates": []any{map[string]any{
			"content": map[string]any{"role": "model", "parts": append(parts, part)}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]int{"promptTokenCount": tokens, "candidatesTokenCount": 20, "totalTokenCount": tokens + 20},
		"modelVersion":  req.Model,
		"responseId":    id,
	}
	if !streaming {
		geminiWriteJSON(w, reply)
		return
	}
	// One server-sent event holding the whole reply, as the API may send it.
	data, _ := json.Marshal(reply)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "data: %s\r\n\r\n", data)
}

func (s *GeminiServer) record(req GeminiRequest) {
	s.Take(func(n int) GeminiRequest { req.N = n; return req }, nil)
}

// fromSchema is a value that fits a JSON schema, for the client's utility
// calls: an enum's first option, the next speaker the user (so a turn
// ends), numbers 1, strings empty.
func fromSchema(schema map[string]any, key string) any {
	if key == "next_speaker" {
		return "user"
	}
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	typ, _ := schema["type"].(string)
	props, hasProps := schema["properties"].(map[string]any)
	switch strings.ToLower(typ) {
	case "object":
		hasProps = true
	case "array":
		return []any{}
	case "boolean":
		return false
	case "number", "integer":
		return 1
	}
	if hasProps {
		out := map[string]any{}
		for k, v := range props {
			sub, _ := v.(map[string]any)
			out[k] = fromSchema(sub, k)
		}
		return out
	}
	if key == "reasoning" {
		return "mock"
	}
	return ""
}

func geminiWriteJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
