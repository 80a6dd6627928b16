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

	"github.com/continuity-md/continuity/internal/e2e/openaiapi"
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
	return c
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

// startCodex starts `codex exec` with prompt against api (its own stand-in)
// and returns once the client has asked for every scripted reply.
func (cp *codexProject) startCodex(api *openaiapi.Server, prompt string) *liveClient {
	cp.t.Helper()
	argv := append(api.Args(codexModel), "exec", "--json", "--dangerously-bypass-hook-trust",
		"-s", "workspace-write", "-c", "model_auto_compact_token_limit="+itoa(compactLimit), prompt)
	cmd := exec.Command(cp.codex, argv...)
	cmd.Dir = cp.dir
	cmd.Env = append(append([]string(nil), cp.env...), "CODEX_HOME="+cp.home, "TMPDIR="+filepath.Join(cp.home, "tmp"), "NO_COLOR=1")
	ids := make(chan string, 1)
	c := startLive(cp.t, cmd, func(line []byte) {
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
		}
		if json.Unmarshal(line, &ev) == nil && ev.Type == "thread.started" {
			select {
			case ids <- ev.ThreadID:
			default:
			}
		}
	}, api.Pending)
	select {
	case c.id = <-ids:
	case <-time.After(10 * time.Second):
		cp.t.Fatalf("codex exec %q: no thread.started", prompt)
	}
	return c
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

// TestCodexRecoverKilledSession: a Codex session adds a file, says what
// it does next and runs a command, and is killed while the model never
// answers; another Codex session, also waiting on the model, is left
// running. The next session's first request carries the killed one's
// recovered handoff (its file, its command, its last reply, its real
// context size), the handoff lists them, and the running session is not
// recovered.
func TestCodexRecoverKilledSession(t *testing.T) {
	cp := newCodexProject(t, workStream, goal)
	const reply = "Added the refresh endpoint in src/token.go; building next."
	const command = "echo built > build.log"

	// The model takes its time on its first reply, as a real one does: a
	// hook records as the client only a process that started a second
	// before it (not the node launcher's start, nor the test).
	dead := openaiapi.New(
		openaiapi.Patch(addToken).After(1500*time.Millisecond),
		openaiapi.Exec(command).Saying(reply).Tokens(42000),
		openaiapi.Hang(),
	)
	t.Cleanup(dead.Close)
	a := cp.startCodex(dead, "write the token refresh endpoint and build it")

	running := openaiapi.New(openaiapi.Exec("cat app.txt").After(1500*time.Millisecond), openaiapi.Hang())
	t.Cleanup(running.Close)
	b := cp.startCodex(running, "read app.txt")

	if _, err := os.Stat(filepath.Join(cp.dir, "build.log")); err != nil {
		t.Fatalf("the killed session's command did not run: %v", err)
	}
	// Both record the native client, in their own process group, not the
	// node launcher's parent (the test) or a shell.
	cp.requireOwnClient(a, b)
	a.kill()

	next := cp.runCodex([]openaiapi.Response{openaiapi.Text("Picking up the build.")}, "carry on")
	handoffs, _ := filepath.Glob(filepath.Join(cp.dir, "thoughts", "shared", "handoffs", workStream, "*_recovered_*.md"))
	reqs := codexModelRequests(next.Requests)
	if len(reqs) == 0 {
		t.Fatal("the next session made no model request")
	}
	first := strings.Join(developerTexts(reqs[0]), "\n")
	if len(handoffs) != 1 {
		t.Fatalf("recovered handoffs %q, want one (the killed session's)\nfirst request's developer messages:\n%s", handoffs, first)
	}
	rel := "thoughts/shared/handoffs/" + workStream + "/" + filepath.Base(handoffs[0])
	ctx := cp.carried(reqs[0], cp.hookContexts(next.ID), "the next session")[0]
	requireAll(t, "the next session's context", ctx,
		"The previous session ("+a.id+") ended without a handoff (its client process is gone); recovered from its transcript: "+rel,
		"src/token.go", "`"+command+"`", reply, "handed off at 42k tokens")
	if strings.Contains(first, b.id) {
		t.Errorf("the running session %s is named in the next session's context", b.id)
	}
	src := cp.read(rel)
	if testing.Verbose() {
		t.Logf("context:\n%s\nrecovered handoff:\n%s", ctx, src)
	}
	requireAll(t, "the recovered handoff", src, "event: \"recovered\"", "agent_session: \""+a.id+"\"", "agent: \"codex\"",
		"tokens: 42000", "## Files", "src/token.go", "## Commands", command, reply)
	all, _ := filepath.Glob(filepath.Join(cp.dir, "thoughts", "shared", "handoffs", workStream, "*.md"))
	for _, h := range all {
		// Codex's ids begin with the time: the file name's 8 characters
		// may be any session's.
		if src, _ := os.ReadFile(h); strings.Contains(string(src), "agent_session: \""+b.id+"\"") {
			t.Errorf("the running session was handed off: %s", h)
		}
	}
	select {
	case <-b.done:
		t.Errorf("the running session's client exited\nstderr: %s", b.stderr.String())
	default:
	}
}
