//go:build linux || darwin

package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// liveClient is a client process left running in a process group of its
// own (so that it can be killed whole: a node launcher and the client it
// starts).
type liveClient struct {
	cmd    *exec.Cmd
	id     string        // the session's id
	done   chan struct{} // closed when the process has been waited for
	stderr *strings.Builder
}

// startLive starts cmd in a process group of its own, handing each line of
// its standard output to line (when not nil), and returns once pending
// says the client has asked for every scripted reply (the last one hangs
// or is slow). It is killed in the test's cleanup if it still runs.
func startLive(t *testing.T, cmd *exec.Cmd, line func([]byte), pending func() int) *liveClient {
	t.Helper()
	c := launch(t, cmd, line)
	c.awaitAsked(t, pending)
	return c
}

// launch starts cmd in a process group of its own, handing each line of
// its standard output to line (when not nil). It is killed in the test's
// cleanup if it still runs.
func launch(t *testing.T, cmd *exec.Cmd, line func([]byte)) *liveClient {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &liveClient{cmd: cmd, done: make(chan struct{}), stderr: &strings.Builder{}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			if line != nil {
				line(sc.Bytes())
			}
		}
	}()
	go func() { _ = cmd.Wait(); close(c.done) }()
	t.Cleanup(c.kill)
	return c
}

// awaitAsked returns once pending says the client has asked for every
// scripted reply; it fails if the client exits first or takes runTimeout.
func (c *liveClient) awaitAsked(t *testing.T, pending func() int) {
	t.Helper()
	cmd := c.cmd
	deadline := time.Now().Add(runTimeout)
	for pending() > 0 {
		select {
		case <-c.done:
			t.Fatalf("%s exited with %d replies unasked for\nstderr: %s", cmd.Args, pending(), c.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not ask for its last scripted reply (%d left)\nstderr: %s", cmd.Args, pending(), c.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// kill kills the client's whole process group, as a closed terminal or a
// crash would, and waits for it.
func (c *liveClient) kill() {
	select {
	case <-c.done:
		return
	default:
	}
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
	}
}

// sessionClient returns the PID a session's state records as its client
// (0 for none).
func (p *project) sessionClient(id string) int {
	p.t.Helper()
	var s struct {
		Client *struct {
			PID int `json:"pid"`
		} `json:"client"`
	}
	if err := json.Unmarshal([]byte(p.read(filepath.Join(".git", "continuity", "sessions", id+".json"))), &s); err != nil {
		p.t.Fatalf("session %s's state: %v", id, err)
	}
	if s.Client == nil {
		return 0
	}
	return s.Client.PID
}

// requireOwnClient fails unless each session's state records as its client
// a process of its own client's process group (not the test, a shell or
// the terminal above it).
func (p *project) requireOwnClient(clients ...*liveClient) {
	p.t.Helper()
	for _, c := range clients {
		pid := p.sessionClient(c.id)
		cmdline, _ := os.ReadFile(filepath.Join("/proc", itoa(pid), "cmdline"))
		if testing.Verbose() {
			p.t.Logf("session %s: client pid %d (%s), client group %d", c.id, pid, strings.ReplaceAll(string(cmdline), "\x00", " "), c.cmd.Process.Pid)
		}
		if pgid, err := syscall.Getpgid(pid); pid == 0 || err != nil || pgid != c.cmd.Process.Pid {
			p.t.Fatalf("session %s records client pid %d (%q, group %d, %v), not a process of its client (group %d)\nstate: %s", c.id, pid,
				strings.ReplaceAll(string(cmdline), "\x00", " "), pgid, err, c.cmd.Process.Pid, p.read(filepath.Join(".git", "continuity", "sessions", c.id+".json")))
		}
	}
}

// killedWork is what a killed session did, as its recovered handoff must
// tell it.
type killedWork struct {
	agent   string // the handoff's agent
	file    string // a file it wrote, relative
	command string // a command it ran
	reply   string // its last reply
	tokens  int    // its context's size, as its transcript records it
}

// requireRecovered checks a start after a kill: ctx (what the next
// session's first request carries) names the recovered handoff of dead,
// the only one, with its work, and that handoff lists it; running, left
// alive, is neither named nor handed off, and still runs.
func (p *project) requireRecovered(ctx string, dead, running *liveClient, w killedWork) {
	p.t.Helper()
	t := p.t
	handoffs, _ := filepath.Glob(filepath.Join(p.dir, "thoughts", "shared", "handoffs", workStream, "*_recovered_*.md"))
	if len(handoffs) != 1 {
		t.Fatalf("recovered handoffs %q, want one (the killed session's)\nthe next session's context:\n%s", handoffs, ctx)
	}
	rel := "thoughts/shared/handoffs/" + workStream + "/" + filepath.Base(handoffs[0])
	requireAll(t, "the next session's context", ctx,
		"The previous session ("+dead.id+") ended without a handoff (its client process is gone); recovered from its transcript: "+rel,
		w.file, "`"+w.command+"`", w.reply, "handed off at "+itoa(w.tokens/1000)+"k tokens")
	if strings.Contains(ctx, running.id) {
		t.Errorf("the running session %s is named in the next session's context", running.id)
	}
	src := p.read(rel)
	if testing.Verbose() {
		t.Logf("context:\n%s\nrecovered handoff:\n%s", ctx, src)
	}
	requireAll(t, "the recovered handoff", src, "event: \"recovered\"", "agent_session: \""+dead.id+"\"", "agent: \""+w.agent+"\"",
		"tokens: "+itoa(w.tokens), "## Files", w.file, "## Commands", w.command, w.reply)
	all, _ := filepath.Glob(filepath.Join(p.dir, "thoughts", "shared", "handoffs", workStream, "*.md"))
	for _, h := range all {
		// Not by file name: Codex's ids begin with the time, so their 8
		// characters there may be any session's.
		if src, _ := os.ReadFile(h); strings.Contains(string(src), "agent_session: \""+running.id+"\"") {
			t.Errorf("the running session was handed off: %s", h)
		}
	}
	select {
	case <-running.done:
		t.Errorf("the running session's client exited\nstderr: %s", running.stderr.String())
	default:
	}
}
