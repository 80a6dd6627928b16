package localstate

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for a hook: with PROC_TEST_CLIENT
// set it prints the Client it finds and exits.
func TestMain(m *testing.M) {
	if os.Getenv("PROC_TEST_SLEEP") == "1" {
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	if os.Getenv("PROC_TEST_CLIENT") == "1" {
		minAge = 0 // the test process started just before: see TestClientWalk for the age
		id, _, err := ClientProcess()
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		_ = json.NewEncoder(os.Stdout).Encode(id)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child is the test binary run again as a process that sleeps a minute
// (sleep: true), or exits at once: no sleep(1) or true(1) on Windows.
func child(t *testing.T, sleep bool) *exec.Cmd {
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^$")
	if sleep {
		cmd.Env = append(os.Environ(), "PROC_TEST_SLEEP=1")
	}
	return cmd
}

func needSupport(t *testing.T) {
	if !ProcessesSupported {
		t.Skip("process identity is not supported here")
	}
}

// TestKilledChildNotAlive: a child's identity is alive while it runs and
// not once it was killed and reaped.
func TestKilledChildNotAlive(t *testing.T) {
	needSupport(t)
	cmd := child(t, true)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	id, err := ProcessOf(cmd.Process.Pid)
	if err != nil || !id.Known() || id.PID != cmd.Process.Pid {
		t.Fatalf("Of(child) = %v, %v", id, err)
	}
	if !processAlive(id) || ProcessGone(id) {
		t.Fatal("a running child reads as dead")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if processAlive(id) || !ProcessGone(id) {
		t.Error("a killed child reads as alive")
	}
	if _, err := ProcessOf(id.PID); !errors.Is(err, ErrNoProcess) {
		t.Errorf("Of(killed child) = %v, want ErrNotFound", err)
	}
}

// TestOtherStartNotAlive: a process with the recorded PID but another
// start time (a reused PID) is not the recorded one.
func TestOtherStartNotAlive(t *testing.T) {
	needSupport(t)
	self, err := ProcessOf(os.Getpid())
	if err != nil || !processAlive(self) {
		t.Fatalf("this process: %v, %v", self, err)
	}
	for _, other := range []Process{{PID: self.PID, Start: self.Start + 1}, {PID: self.PID, Start: self.Start - 1}, {PID: self.PID}, {}} {
		if processAlive(other) {
			t.Errorf("%v reads as alive (this process is %v)", other, self)
		}
		if other.Known() && !ProcessGone(other) {
			t.Errorf("%v is not gone (this process is %v)", other, self)
		}
	}
}

// TestClientThroughShells runs the test binary as a hook through two
// shells that do not exec it: the client is this test process, not a shell.
func TestClientThroughShells(t *testing.T) {
	needSupport(t)
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh here")
	}
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	self, err := ProcessOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for _, script := range []string{
		`"$BIN"; true`,               // sh -c without exec
		`sh -c '"$BIN"; true'; true`, // a shell under a shell
		`exec "$BIN"`,                // a shell that execs
	} {
		cmd := exec.Command("sh", "-c", script)
		cmd.Env = append(os.Environ(), "PROC_TEST_CLIENT=1", "BIN="+bin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", script, err)
		}
		var got Process
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s: %q", script, out)
		}
		if got != self {
			t.Errorf("%s: client %v, want this test process %v", script, got, self)
		}
	}
}

// TestClientIsParent runs the test binary as a hook run directly (as
// Windows clients run a hook's .exe): the client is this test process.
func TestClientIsParent(t *testing.T) {
	needSupport(t)
	self, err := ProcessOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	cmd := child(t, false)
	cmd.Env = append(os.Environ(), "PROC_TEST_CLIENT=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var got Process
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%q", out)
	}
	if got != self {
		t.Errorf("client %v, want this test process %v", got, self)
	}
}

// TestClientWalk: the walk skips shells and wrappers by name (a login
// shell's "-bash" and a path included) and processes that started less
// than minAge before the hook (a wrapper it does not know), stops at the
// first other process, and fails at init or on a process gone.
func TestClientWalk(t *testing.T) {
	sec := uint64(time.Second / tick)
	tree := map[int]info{
		40: {id: Process{PID: 40, Start: 1000 * sec}, parent: 30, name: "sh"},
		30: {id: Process{PID: 30, Start: 1000 * sec}, parent: 25, name: "-bash"},
		25: {id: Process{PID: 25, Start: 1000 * sec}, parent: 20, name: "/usr/bin/env"},
		20: {id: Process{PID: 20, Start: 900 * sec}, parent: 10, name: "claude"},
		10: {id: Process{PID: 10, Start: 100 * sec}, parent: 1, name: "zsh"},
		50: {id: Process{PID: 50, Start: 1000 * sec}, parent: 1, name: "dash"},
		60: {id: Process{PID: 60, Start: 1000 * sec}, parent: 70, name: "sh"},
		70: {id: Process{PID: 70, Start: 100 * sec}, parent: 1, name: "node", gone: true},
		80: {id: Process{PID: 80, Start: 1000 * sec}, parent: 20, name: "npm exec"}, // started with the hook
	}
	look := func(pid int) (info, error) {
		if in, ok := tree[pid]; ok {
			return in, nil
		}
		return info{}, ErrNoProcess
	}
	hook := func(parent int) info {
		return info{id: Process{PID: 99, Start: 1000 * sec}, parent: parent, name: "continuity"}
	}
	for _, parent := range []int{40, 80} {
		if id, named, err := clientFrom(hook(parent), look); err != nil || named || id != (Process{PID: 20, Start: 900 * sec}) {
			t.Errorf("from %d: %v, %v; want pid 20", parent, id, err)
		}
	}
	for _, parent := range []int{50, 60, 99} {
		if id, _, err := clientFrom(hook(parent), look); err == nil {
			t.Errorf("from %d: %v, want an error", parent, id)
		}
	}
}

// TestClientNamed: a client named by its host is taken however young (a
// hook at its start), even when an older process above it would be taken
// without the name; an unnamed young process is still passed over, and a
// gone process is never the client.
func TestClientNamed(t *testing.T) {
	sec := uint64(time.Second / tick)
	tree := map[int]info{
		40: {id: Process{PID: 40, Start: 1000 * sec}, parent: 30, name: "sh"},
		30: {id: Process{PID: 30, Start: 1000 * sec}, parent: 20, name: "npm exec"},             // a wrapper started with the hook
		20: {id: Process{PID: 20, Start: 1000 * sec}, parent: 15, name: "/opt/codex/bin/codex"}, // the client, started with the hook too
		15: {id: Process{PID: 15, Start: 1000 * sec}, parent: 10, name: "node"},                 // its launcher
		10: {id: Process{PID: 10, Start: 100 * sec}, parent: 1, name: "tmux: server"},           // the terminal, old
		50: {id: Process{PID: 50, Start: 1000 * sec}, parent: 60, name: "codex", gone: true},    // a gone client
		60: {id: Process{PID: 60, Start: 100 * sec}, parent: 1, name: "init-ish"},
	}
	look := func(pid int) (info, error) {
		if in, ok := tree[pid]; ok {
			return in, nil
		}
		return info{}, ErrNoProcess
	}
	hook := func(parent int) info {
		return info{id: Process{PID: 99, Start: 1000 * sec}, parent: parent, name: "continuity"}
	}
	if id, named, err := clientFrom(hook(40), look, "codex"); err != nil || !named || id != (Process{PID: 20, Start: 1000 * sec}) {
		t.Errorf("named: %v, %v; want the young codex, pid 20", id, err)
	}
	if id, named, err := clientFrom(hook(40), look); err != nil || named || id != (Process{PID: 10, Start: 100 * sec}) {
		t.Errorf("unnamed: %v, %v; want the old terminal, pid 10", id, err)
	}
	if id, _, err := clientFrom(hook(50), look, "codex"); err == nil {
		t.Errorf("a gone named client: %v, want an error", id)
	}
}

// TestOtherNamespaceNotGone: a dead PID recorded in another namespace
// (another machine, boot or container: Where differs) is not gone here,
// since this process table says nothing of it; recorded here, or before
// Where was kept, it is gone.
func TestOtherNamespaceNotGone(t *testing.T) {
	needSupport(t)
	if thisHost() == "" {
		t.Skip("this system does not say where its PIDs mean something")
	}
	cmd := child(t, false)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := Process{PID: cmd.Process.Pid, Start: 12345}
	self, err := ProcessOf(os.Getpid())
	if err != nil || self.Where != thisHost() {
		t.Fatalf("Of(self) = %v, %v; want Where %q", self, err, thisHost())
	}
	for _, where := range []string{"", thisHost()} {
		id := dead
		id.Where = where
		if !ProcessGone(id) || !OurProcess(id) {
			t.Errorf("dead pid recorded at %q: Gone %v, Ours %v; want both", where, ProcessGone(id), OurProcess(id))
		}
	}
	far := dead
	far.Where = "boot 00000000-0000-0000-0000-000000000000 pid:[1]"
	if ProcessGone(far) || OurProcess(far) {
		t.Errorf("a pid of another namespace reads as gone here")
	}
	farSelf := self
	farSelf.Where = far.Where
	if processAlive(farSelf) {
		t.Errorf("this process's pid recorded elsewhere reads as alive here")
	}
	oldSelf := self
	oldSelf.Where = ""
	if !processAlive(oldSelf) || !processAlive(self) {
		t.Errorf("this process, recorded with or without Where, is not alive")
	}
}
