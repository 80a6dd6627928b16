package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func openAIPost(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// openAISse reads a server-sent event stream into (event, data) pairs, checking
// that each data's type names its event.
func openAISse(t *testing.T, r io.Reader) (events []string, data []map[string]any) {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
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

const openAICompactBody = `{"model":"gpt-5.5","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"fix it"}]},` +
	`{"type":"message","role":"user","content":[{"type":"input_text","text":"You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another LLM that will resume the task."}]}]}`

func TestOpenAIScript(t *testing.T) {
	s := NewOpenAI(Exec("make test").Tokens(60000), Patch("*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n"), OpenAIText("done"))
	defer s.Close()
	s.SetSummary("SUMMARY: tests fixed")
	url := s.URL + "/v1/responses"

	events, data := openAISse(t, openAIPost(t, url, `{"model":"gpt-5.5","stream":true,"input":[]}`).Body)
	want := "response.created response.output_item.added response.output_item.done response.completed"
	if got := strings.Join(events, " "); got != want {
		t.Fatalf("events %s, want %s", got, want)
	}
	it := data[2]["item"].(map[string]any)
	if it["type"] != "function_call" || it["name"] != "exec_command" || it["arguments"] != `{"cmd":"make test"}` || it["call_id"] == "" {
		t.Errorf("first item %v, want an exec_command call", it)
	}
	resp := data[3]["response"].(map[string]any)
	if u := resp["usage"].(map[string]any); u["input_tokens"] != 60000.0 || resp["model"] != "gpt-5.5" || resp["status"] != "completed" {
		t.Errorf("completed %v", resp)
	}

	// A compaction request gets the summary and does not consume the script.
	if !OpenAIIsCompaction([]byte(openAICompactBody)) {
		t.Fatal("IsCompaction(compaction request) = false")
	}
	events, data = openAISse(t, openAIPost(t, url, openAICompactBody).Body)
	if strings.Join(events, " ") != "response.created response.output_item.added response.output_text.delta response.output_item.done response.completed" ||
		data[2]["delta"] != "SUMMARY: tests fixed" {
		t.Errorf("compaction answer: %v %v", events, data)
	}

	_, data = openAISse(t, openAIPost(t, url, `{"model":"gpt-5.5","stream":true,"input":[]}`).Body)
	if it := data[2]["item"].(map[string]any); it["type"] != "custom_tool_call" || it["name"] != "apply_patch" || !strings.HasPrefix(it["input"].(string), "*** Begin Patch\n*** Add File: a.txt") {
		t.Errorf("second item %v, want an apply_patch custom call", it)
	}
	_, data = openAISse(t, openAIPost(t, url, `{"model":"gpt-5.5","stream":true}`).Body)
	if it := data[3]["item"].(map[string]any); it["type"] != "message" || it["content"].([]any)[0].(map[string]any)["text"] != "done" {
		t.Errorf("third item %v", it)
	}
	_, data = openAISse(t, openAIPost(t, url, `{"model":"gpt-5.5","stream":true}`).Body)
	if data[2]["delta"] != "OK" {
		t.Errorf("after the script: %v, want OK", data[2])
	}
	if s.Pending() != 0 {
		t.Errorf("Pending = %d", s.Pending())
	}
	reqs := s.Requests()
	if len(reqs) != 5 || reqs[0].N != 1 || reqs[1].Compaction != true || reqs[0].Compaction || reqs[4].Path != "/v1/responses" || !strings.Contains(string(reqs[0].Body), `"input":[]`) {
		t.Errorf("requests %+v", reqs)
	}
}

func TestOtherPaths(t *testing.T) {
	s := NewOpenAI(OpenAIText("kept"))
	defer s.Close()
	resp, err := http.Get(s.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("models: %d", resp.StatusCode)
	}
	var out struct {
		Output []struct {
			Content []struct{ Text string }
		}
	}
	if err := json.NewDecoder(openAIPost(t, s.URL+"/v1/responses/compact", `{}`).Body).Decode(&out); err != nil || out.Output[0].Content[0].Text != OpenAIDefaultSummary {
		t.Errorf("remote compaction: %+v %v", out, err)
	}
	if r := openAIPost(t, s.URL+"/v1/chat/completions", `{}`); r.StatusCode != http.StatusNotFound {
		t.Errorf("unknown path: %d", r.StatusCode)
	}
	var m map[string]any
	if err := json.NewDecoder(openAIPost(t, s.URL+"/v1/responses", `{"model":"m","stream":false}`).Body).Decode(&m); err != nil || m["status"] != "completed" {
		t.Errorf("non-streaming: %v %v", m, err)
	}
	if s.Pending() != 0 || len(s.Requests()) != 4 {
		t.Errorf("pending %d, %d requests", s.Pending(), len(s.Requests()))
	}
}

func TestMessages(t *testing.T) {
	body := `{"input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"ctx <a>"}]},` +
		`{"type":"function_call","name":"exec_command","arguments":"{}"},{"type":"message","role":"user","content":[{"type":"input_text","text":"a"},{"type":"input_text","text":"b"}]}]}`
	got := Messages([]byte(body))
	if len(got) != 2 || got[0] != (Message{"developer", "ctx <a>"}) || got[1] != (Message{"user", "a\nb"}) {
		t.Errorf("Messages = %+v", got)
	}
	if OpenAIIsCompaction([]byte(body)) || OpenAIIsCompaction([]byte("{")) {
		t.Error("IsCompaction on an ordinary request")
	}
	s := NewOpenAI()
	defer s.Close()
	if args := s.Args("gpt-5.5"); len(args) != 20 || !strings.Contains(strings.Join(args, " "), `base_url="http://127.0.0.1:`) {
		t.Errorf("Args = %q", args)
	}
}
