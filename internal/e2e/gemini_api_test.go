package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func geminiPost(t *testing.T, url, body string) []byte {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s", url, resp.Status)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// One "data: {…}" event per reply.
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				return []byte(data)
			}
		}
		t.Fatalf("POST %s: no data event", url)
	}
	b, _ := io.ReadAll(resp.Body)
	return b
}

type reply struct {
	Candidates []struct {
		Content struct {
			Parts []struct {
				Text         string `json:"text"`
				FunctionCall *struct {
					ID   string         `json:"id"`
					Name string         `json:"name"`
					Args map[string]any `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
	} `json:"candidates"`
	Usage struct {
		PromptTokenCount int `json:"promptTokenCount"`
	} `json:"usageMetadata"`
}

func parse(t *testing.T, b []byte) reply {
	t.Helper()
	var r reply
	if err := json.Unmarshal(b, &r); err != nil || len(r.Candidates) != 1 || len(r.Candidates[0].Content.Parts) != 1 {
		t.Fatalf("reply %s: %v", b, err)
	}
	return r
}

const (
	mainBody        = `{"contents":[{"role":"user","parts":[{"text":"fix it"}]}],"systemInstruction":{"role":"user","parts":[{"text":"You are an interactive CLI agent."}]},"tools":[]}`
	compressionBody = `{"contents":[{"role":"user","parts":[{"text":"Generate a new <state_snapshot> based on the provided history."}]}],"systemInstruction":{"role":"user","parts":[{"text":"You are the component that summarizes internal chat history into a given structure: <state_snapshot>"}]},"generationConfig":{}}`
	routerBody      = `{"contents":[],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"OBJECT","properties":{"complexity_reasoning":{"type":"STRING"},"complexity_score":{"type":"INTEGER"}}}}}`
)

func TestGeminiScript(t *testing.T) {
	s := NewGemini(GeminiTool("write_file", map[string]any{"file_path": "/r/a.go", "content": "x"}), GeminiResponse{Text: "done", PromptTokens: 900000})
	defer s.Close()
	stream := s.URL + "/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse"

	r := parse(t, geminiPost(t, stream, mainBody))
	fc := r.Candidates[0].Content.Parts[0].FunctionCall
	if fc == nil || fc.Name != "write_file" || fc.Args["file_path"] != "/r/a.go" || fc.ID == "" || r.Usage.PromptTokenCount != 1000 {
		t.Fatalf("first reply %+v, want a write_file call reporting 1000 tokens", r)
	}
	// The router and the compression's calls do not consume the script.
	r = parse(t, geminiPost(t, s.URL+"/v1beta/models/gemini-3.5-flash-lite:generateContent", routerBody))
	var routed map[string]any
	if err := json.Unmarshal([]byte(r.Candidates[0].Content.Parts[0].Text), &routed); err != nil || routed["complexity_score"] != float64(1) {
		t.Fatalf("router reply %q (%v), want schema-shaped JSON", r.Candidates[0].Content.Parts[0].Text, err)
	}
	s.SetSummary("SNAP")
	r = parse(t, geminiPost(t, s.URL+"/v1beta/models/gemini-3-flash-preview:generateContent", compressionBody))
	if got := r.Candidates[0].Content.Parts[0].Text; got != "<state_snapshot>\nSNAP\n</state_snapshot>" {
		t.Fatalf("compression reply %q", got)
	}
	r = parse(t, geminiPost(t, stream, mainBody))
	if r.Candidates[0].Content.Parts[0].Text != "done" || r.Usage.PromptTokenCount != 900000 {
		t.Fatalf("second reply %+v", r)
	}
	if s.Pending() != 0 {
		t.Errorf("pending %d", s.Pending())
	}
	r = parse(t, geminiPost(t, stream, mainBody))
	if r.Candidates[0].Content.Parts[0].Text != "OK" {
		t.Errorf("past the script: %+v", r)
	}
	var tokens struct {
		TotalTokens int `json:"totalTokens"`
	}
	if err := json.Unmarshal(geminiPost(t, s.URL+"/v1beta/models/gemini-3.8-flash:countTokens", `{"contents":[]}`), &tokens); err != nil || tokens.TotalTokens <= 0 {
		t.Errorf("countTokens: %+v %v", tokens, err)
	}

	reqs := s.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests logged, want 6", len(reqs))
	}
	kinds := ""
	for i, q := range reqs {
		if q.N != i+1 || len(q.Body) == 0 {
			t.Errorf("request %d: %+v", i, q)
		}
		switch {
		case q.Main():
			kinds += "M"
		case q.Compression:
			kinds += "C"
		case q.Utility:
			kinds += "U"
		default:
			kinds += "?"
		}
	}
	if kinds != "MUCMM?" || reqs[0].Model != "gemini-3.8-flash" || reqs[5].Method != "countTokens" {
		t.Errorf("requests %s (model %q, last %q), want MUCMM?", kinds, reqs[0].Model, reqs[5].Method)
	}
	if !IsCompression([]byte(compressionBody)) || IsCompression([]byte(mainBody)) {
		t.Errorf("IsCompression")
	}
}

func TestUnknownPath(t *testing.T) {
	s := NewGemini()
	defer s.Close()
	resp, err := http.Get(s.URL + "/v1beta/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || len(s.Requests()) != 1 {
		t.Errorf("GET /v1beta/models: %s, %d logged", resp.Status, len(s.Requests()))
	}
}
