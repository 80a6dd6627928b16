package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/handoff"
)

// writeHandoff writes a handoff rendered by the embedded template into the
// app's repository.
func writeHandoff(t *testing.T, a *app, m handoff.Meta, summary string) {
	t.Helper()
	src, err := handoff.Render(&handoff.Handoff{Meta: m, Summary: summary}, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(a.dir, "thoughts", "shared", "handoffs", m.Stream)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, handoff.FileName(m.Created, m.Event, "0123abcd")), src, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunLog: one line per handoff, newest first, under its day; --json
// a list of entries.
func TestRunLog(t *testing.T) {
	a, out, _ := testApp(t)
	if err := runNew(a, newOptions{Name: "auth", Goal: "Ship JWT auth"}); err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	writeHandoff(t, a, handoff.Meta{Stream: "auth", Created: day, Event: "pre-compact", Agent: "claude", Author: "Kim", Branch: "feat/auth"}, "Wrote the refresh endpoint.")
	writeHandoff(t, a, handoff.Meta{Stream: "billing", Created: day.Add(26 * time.Hour), Event: "session-end", Agent: "codex", Author: "Ana Newcomer"}, "Invoices.")
	out.Reset()
	if err := runLog(a, logOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "2026-11-22 Sunday\n  11:30  Ana Newcomer  codex  session-end  billing  Invoices.\n\n2026-11-21 Saturday\n  09:30  Kim  claude  pre-compact  auth  feat/auth  Wrote the refresh endpoint.\n"
	if out.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", out, want)
	}
	out.Reset()
	if err := runLog(a, logOptions{JSON: true, Agent: "claude"}); err != nil {
		t.Fatal(err)
	}
	var es []map[string]any
	if err := json.Unmarshal(out.Bytes(), &es); err != nil || len(es) != 1 || es[0]["author"] != "Kim" || es[0]["stream"] != "auth" {
		t.Errorf("--json: %v %s", err, out)
	}
	if err := runLog(a, logOptions{Since: "soon"}); !isUsage(err) {
		t.Errorf("--since soon: %v", err)
	}
	// Piped (the output here is a buffer), a long summary is whole.
	long := strings.Repeat("a summary that goes on ", 10) + "to its end."
	writeHandoff(t, a, handoff.Meta{Stream: "auth", Created: day.Add(48 * time.Hour), Event: "manual", Author: "Kim"}, long)
	out.Reset()
	if err := runLog(a, logOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), long) || strings.Contains(out.String(), "…") {
		t.Errorf("piped log cut a line:\n%s", out)
	}
}

// isUsage reports whether err is a usage error (exit 2).
func isUsage(err error) bool {
	var ue usageError
	return errors.As(err, &ue)
}

// TestServe: serve prints its address on 127.0.0.1 at once, answers a
// request addressed to it, refuses one addressed to another name, and
// stops when told.
func TestServe(t *testing.T) {
	a, _, _ := testApp(t)
	if err := runNew(a, newOptions{Name: "auth", Goal: "Ship JWT auth"}); err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	a.out = pw
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, a, serveOptions{}) }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	i := strings.Index(line, "http://127.0.0.1:")
	if i < 0 {
		t.Fatalf("no address: %q", line)
	}
	url := strings.TrimSuffix(strings.Fields(line[i:])[0], "/")
	res, err := http.Get(url + "/stream/auth")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "Ship JWT auth") {
		t.Errorf("GET: %d %s", res.StatusCode, body)
	}
	req, _ := http.NewRequest("GET", url+"/", nil)
	req.Host = "rebound.example" + url[strings.LastIndex(url, ":"):]
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("a rebound name: %d", res.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not stop")
	}
}
