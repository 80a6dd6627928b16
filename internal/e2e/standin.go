package e2e

// What the stand-in model APIs share
// (the Anthropic one for Claude Code, the OpenAI one for Codex, the Gemini one for Gemini CLI): a
// server on 127.0.0.1, the queue of scripted replies, the summary a
// compaction gets, and the log of every request, safe for concurrent use.
// Each API embeds a Script and answers requests in its own shape.

import (
	"net/http"
	"net/http/httptest"
	"sync"
)

// Script is a running stand-in's shared state: replies of type Resp, a log
// of requests of type Req. Start it before use.
type Script[Resp, Req any] struct {
	// URL is the server's root, e.g. http://127.0.0.1:PORT.
	URL string

	srv      *httptest.Server
	mu       sync.Mutex
	queue    []Resp
	summary  string
	requests []Req
}

// Start starts the server on 127.0.0.1 with handler, the summary
// compactions get, and the replies to give in order.
func (s *Script[Resp, Req]) Start(handler http.HandlerFunc, summary string, responses ...Resp) {
	s.queue, s.summary = append([]Resp(nil), responses...), summary
	s.srv = httptest.NewServer(handler)
	s.URL = s.srv.URL
}

// Close shuts the server down.
func (s *Script[Resp, Req]) Close() { s.srv.Close() }

// Push appends responses to the script.
func (s *Script[Resp, Req]) Push(responses ...Resp) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, responses...)
}

// SetSummary sets the text compaction requests get.
func (s *Script[Resp, Req]) SetSummary(summary string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.summary = summary
}

// Requests returns a copy of every request received so far, in order.
func (s *Script[Resp, Req]) Requests() []Req {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Req(nil), s.requests...)
}

// Pending reports how many scripted responses have not been used yet.
func (s *Script[Resp, Req]) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Take logs a request, made by mk from its 1-based arrival number, and
// when answers says the script answers it, takes the next scripted reply
// (ok is false when none is left). summary is the current summary.
func (s *Script[Resp, Req]) Take(mk func(n int) Req, answers func(Req) bool) (req Req, next Resp, ok bool, summary string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req = mk(len(s.requests) + 1)
	s.requests = append(s.requests, req)
	if answers != nil && answers(req) && len(s.queue) > 0 {
		next, s.queue, ok = s.queue[0], s.queue[1:], true
	}
	return req, next, ok, s.summary
}
