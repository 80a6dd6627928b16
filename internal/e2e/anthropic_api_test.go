package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func anthropicPost(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

type anthropicMessage struct {
	StopReason string `json:"stop_reason"`
	Content    []struct {
		Type  string         `json:"type"`
		Text  string         `json:"text"`
		ID    string         `json:"id"`
		Name  string         `json:"name"`
		Input map[string]any `json:"input"`
	} `json:"content"`
}

func decode(t *testing.T, r io.Reader) anthropicMessage {
	t.Helper()
	var m anthropicMessage
	if err := json.NewDecoder(r).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

const anthropicCompactBody = `{"model":"m","messages":[{"role":"user","content":"Your task is to create a detailed summary of the conversation. Wrap it in <summary></summary> tags.\nREMINDER: Do NOT call any tools."}]}`

func TestScriptNonStreaming(t *testing.T) {
	s := NewAnthropic(AnthropicTool("Write", map[string]any{"file_path": "a.go", "content": "x"}), AnthropicText("done"))
	defer s.Close()
	url := s.URL + "/v1/messages?beta=true"

	m := decode(t, anthropicPost(t, url, `{"model":"m","messages":[]}`).Body)
	if m.StopReason != "tool_use" || len(m.Content) != 1 || m.Content[0].Type != "tool_use" ||
		m.Content[0].Name != "Write" || m.Content[0].Input["file_path"] != "a.go" || m.Content[0].ID == "" {
		t.Fatalf("first reply = %+v, want a Write tool_use", m)
	}
	// A compaction request does not consume the script.
	m = decode(t, anthropicPost(t, url, anthropicCompactBody).Body)
	if len(m.Content) != 1 || !strings.Contains(m.Content[0].Text, "<summary>\n"+AnthropicDefaultSummary+"\n</summary>") {
		t.Fatalf("compaction reply = %+v, want the default summary", m)
	}
	m = decode(t, anthropicPost(t, url, `{"model":"m"}`).Body)
	if m.StopReason != "end_turn" || m.Content[0].Text != "done" {
		t.Fatalf("third reply = %+v, want text done", m)
	}
	m = decode(t, anthropicPost(t, url, `{"model":"m"}`).Body)
	if m.Content[0].Text != "OK" {
		t.Fatalf("reply after the script = %+v, want OK", m)
	}
	if s.Pending() != 0 {
		t.Errorf("Pending = %d, want 0", s.Pending())
	}

	reqs := s.Requests()
	if len(reqs) != 4 {
		t.Fatalf("recorded %d requests, want 4", len(reqs))
	}
	if reqs[0].N != 1 || reqs[0].Path != "/v1/messages?beta=true" || string(reqs[0].Body) != `{"model":"m","messages":[]}` {
		t.Errorf("request 1 = %+v", reqs[0])
	}
	if reqs[0].Compaction || !reqs[1].Compaction || reqs[2].Compaction {
		t.Errorf("compaction flags = %v %v %v, want false true false", reqs[0].Compaction, reqs[1].Compaction, reqs[2].Compaction)
	}
}

func TestCountTokensAndUnknownPath(t *testing.T) {
	s := NewAnthropic(AnthropicText("kept"))
	defer s.Close()
	resp := anthropicPost(t, s.URL+"/v1/messages/count_tokens?beta=true", `{"messages":[]}`)
	var got struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || got.InputTokens <= 0 {
		t.Fatalf("count_tokens = %+v, %v", got, err)
	}
	if resp := anthropicPost(t, s.URL+"/v1/other", `{}`); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown path status = %d, want 404", resp.StatusCode)
	}
	if s.Pending() != 1 {
		t.Errorf("Pending = %d, want 1: count_tokens and 404s must not consume the script", s.Pending())
	}
	if r := s.Requests(); len(r) != 2 || !r[0].CountTokens || r[1].CountTokens {
		t.Errorf("requests = %+v", r)
	}
}

// anthropicSse reads a server-sent event stream into (event, data) pairs.
func anthropicSse(t *testing.T, r io.Reader) (events []string, data []map[string]any) {
	t.Helper()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			events = append(events, strings.TrimPrefix(line, "event: "))
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("bad data line %q: %v", line, err)
			}
			data = append(data, d)
		}
	}
	if len(events) != len(data) {
		t.Fatalf("%d events but %d data lines", len(events), len(data))
	}
	for i := range events {
		if data[i]["type"] != events[i] {
			t.Errorf("event %d: type %v != event %s", i, data[i]["type"], events[i])
		}
	}
	return events, data
}

func TestStreaming(t *testing.T) {
	s := NewAnthropic(AnthropicTool("Bash", map[string]any{"command": "ls"}))
	defer s.Close()
	s.SetSummary("auth notes kept")
	url := s.URL + "/v1/messages"

	resp := anthropicPost(t, url, `{"model":"m","stream":true}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	events, data := anthropicSse(t, resp.Body)
	want := "message_start content_block_start content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(events, " "); got != want {
		t.Fatalf("events = %s, want %s", got, want)
	}
	if cb := data[1]["content_block"].(map[string]any); cb["type"] != "tool_use" || cb["name"] != "Bash" {
		t.Errorf("content_block_start = %v", cb)
	}
	delta := data[2]["delta"].(map[string]any)
	if delta["type"] != "input_json_delta" || delta["partial_json"] != `{"command":"ls"}` {
		t.Errorf("delta = %v", delta)
	}
	if d := data[4]["delta"].(map[string]any); d["stop_reason"] != "tool_use" {
		t.Errorf("stop_reason = %v", d["stop_reason"])
	}

	_, data = anthropicSse(t, anthropicPost(t, url, strings.Replace(anthropicCompactBody, `"model":"m"`, `"model":"m","stream":true`, 1)).Body)
	delta = data[2]["delta"].(map[string]any)
	if delta["type"] != "text_delta" || !strings.Contains(delta["text"].(string), "<summary>\nauth notes kept\n</summary>") {
		t.Errorf("compaction delta = %v", delta)
	}
}

func TestIsCompaction(t *testing.T) {
	for _, c := range []struct {
		body string
		want bool
	}{
		{anthropicCompactBody, true},
		{`{"messages":[{"content":"hello"}]}`, false},
		{`{"messages":[{"content":"the <summary> of the file"}]}`, false},
	} {
		if got := AnthropicIsCompaction([]byte(c.body)); got != c.want {
			t.Errorf("IsCompaction(%q) = %v, want %v", c.body, got, c.want)
		}
	}
}

func TestInputTokens(t *testing.T) {
	s := NewAnthropic(AnthropicResponse{Text: "big", InputTokens: 990000}, AnthropicResponse{Text: "big again", InputTokens: 990000}, AnthropicText("small"))
	defer s.Close()
	url := s.URL + "/v1/messages"
	usage := func(raw any) float64 {
		u, _ := raw.(map[string]any)
		n, _ := u["input_tokens"].(float64)
		return n
	}

	var m map[string]any
	if err := json.NewDecoder(anthropicPost(t, url, `{"model":"m"}`).Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if got := usage(m["usage"]); got != 990000 {
		t.Errorf("non-streaming usage.input_tokens = %v, want 990000", got)
	}
	_, data := anthropicSse(t, anthropicPost(t, url, `{"model":"m","stream":true}`).Body)
	if got := usage(data[0]["message"].(map[string]any)["usage"]); got != 990000 {
		t.Errorf("message_start usage.input_tokens = %v, want 990000", got)
	}
	_, data = anthropicSse(t, anthropicPost(t, url, `{"model":"m","stream":true}`).Body)
	if got := usage(data[0]["message"].(map[string]any)["usage"]); got != 1000 {
		t.Errorf("default usage.input_tokens = %v, want 1000", got)
	}
}
