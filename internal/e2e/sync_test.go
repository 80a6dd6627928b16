//go:build !windows

// The sync tests start sshd and git daemon and kill process groups: none
// of that is on Windows, where internal/travel's own tests cover the refs.

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/agent/claude"
	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/internal/testkit"
)

// The work travels between two clones ("machines", each with a home of its
// own) of one remote, through the real binary's hooks and commands, over
// each transport a person uses: a bare repository over file://, git
// daemon over git://, and SSH to a local sshd with a key.

// syncMachine is one clone with its own home.
type syncMachine struct {
	t    *testing.T
	name string
	dir  string
	home string
	env  []string
	bin  string
}

// syncRemote is a bare repository holding a commit with the auth ledger
// and `sync: ref`, and the URL the machines clone it by.
type syncRemote struct {
	bare string
	url  string
	// sshCommand, for an ssh:// URL, is the command that reaches it.
	sshCommand string
}

func newSyncRemote(t *testing.T) *syncRemote {
	t.Helper()
	base := testkit.TempDir(t)
	seed := filepath.Join(base, "seed")
	bare := filepath.Join(base, "origin.git")
	gitIn(t, base, nil, "init", "-q", "-b", "main", seed)
	for rel, content := range map[string]string{
		"thoughts/ledgers/CONTINUITY_auth.md": "---\nsession: auth\ngoal: Replace session cookies with JWTs\nnow: Logout endpoint\n---\n",
		".continuity.yaml":                    "sync: ref\n",
		".gitignore":                          "*.log\n",
		"src/app.go":                          "package app\n",
	} {
		p := filepath.Join(seed, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, seed, nil, "add", ".")
	gitIn(t, seed, nil, "commit", "-q", "-m", "start")
	gitIn(t, base, nil, "clone", "-q", "--bare", seed, bare)
	return &syncRemote{bare: bare, url: "file://" + bare}
}

// gitIn runs git in dir with env added, failing the test on an error.
func gitIn(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(append(cleanEnv(), "PATH="+os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Seed", "GIT_AUTHOR_EMAIL=seed@example.invalid", "GIT_COMMITTER_NAME=Seed", "GIT_COMMITTER_EMAIL=seed@example.invalid"), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// machine clones the remote as machine name, committing as user.
func (r *syncRemote) machine(t *testing.T, name, user string) *syncMachine {
	t.Helper()
	m := &syncMachine{t: t, name: name, home: testkit.TempDir(t), bin: continuityBinary(t)}
	m.dir = filepath.Join(testkit.TempDir(t), name)
	m.env = append(cleanEnv(), "PATH="+os.Getenv("PATH"), "HOME="+m.home, "XDG_CONFIG_HOME="+filepath.Join(m.home, "config"),
		"CLAUDE_CONFIG_DIR="+filepath.Join(m.home, "claude"), "CONTINUITY_MACHINE="+name, "GIT_CONFIG_NOSYSTEM=1")
	var clone []string
	if r.sshCommand != "" {
		clone = append(clone, "-c", "core.sshCommand="+r.sshCommand)
	}
	gitIn(t, filepath.Dir(m.dir), []string{"HOME=" + m.home}, append(clone, "clone", "-q", r.url, m.dir)...)
	m.git("config", "user.name", user)
	m.git("config", "user.email", strings.ToLower(user)+"@example.invalid")
	if r.sshCommand != "" {
		m.git("config", "core.sshCommand", r.sshCommand)
	}
	return m
}

func (m *syncMachine) git(args ...string) string {
	m.t.Helper()
	return gitIn(m.t, m.dir, []string{"HOME=" + m.home}, args...)
}

func (m *syncMachine) write(rel string, data []byte, perm os.FileMode) {
	m.t.Helper()
	p := filepath.Join(m.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, perm); err != nil {
		m.t.Fatal(err)
	}
}

// continuity runs the binary in the clone and returns stdout, stderr and its error.
func (m *syncMachine) continuity(stdin []byte, args ...string) (string, string, error) {
	m.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, m.bin, args...)
	cmd.Dir = m.dir
	cmd.Env = m.env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// hook runs one Claude Code hook event with payload fields and returns
// its stdout, stderr and wall time.
func (m *syncMachine) hook(fields map[string]any) (string, string, time.Duration) {
	m.t.Helper()
	fields["cwd"] = m.dir
	in, _ := json.Marshal(fields)
	start := time.Now()
	out, stderr, err := m.continuity(in, "hook", "--agent", "claude")
	took := time.Since(start)
	if err != nil {
		m.t.Fatalf("hook %v: %v\n%s", fields["hook_event_name"], err, stderr)
	}
	return out, stderr, took
}

// endSession writes a real Claude Code transcript for the clone and runs
// the SessionEnd hook on it.
func (m *syncMachine) endSession(id string) (string, time.Duration) {
	m.t.Helper()
	getenv := func(k string) string {
		for _, kv := range m.env {
			if name, v, _ := strings.Cut(kv, "="); name == k {
				return v
			}
		}
		return ""
	}
	dir := claude.Host{}.TranscriptDir(getenv, m.dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		m.t.Fatal(err)
	}
	path := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(path, bytes.ReplaceAll(core.Transcript, []byte(core.ProjectDir), []byte(m.dir)), 0o644); err != nil {
		m.t.Fatal(err)
	}
	_, stderr, took := m.hook(map[string]any{"hook_event_name": "SessionEnd", "session_id": id, "transcript_path": path, "reason": "other"})
	return stderr, took
}

// waitForRef waits until the bare repository has a ref under prefix
// whose commit is new (not before), and returns the refs.
func waitForRef(t *testing.T, bare, prefix string, before string) string {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		out, _ := exec.Command("git", "--git-dir", bare, "for-each-ref", "--format=%(refname) %(objectname) %(authorname)", prefix).Output()
		if s := string(out); s != "" && s != before {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("no ref under %s reached %s in 90 s", prefix, bare)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// travels: a session ends on the laptop with uncommitted work; its hook
// returns at once and the background push brings the snapshot to the
// remote; on the desk `continuity sync` fetches it, the next start is
// given the laptop's handoff, and resume --from laptop --carry restores
// the work byte for byte.
func travels(t *testing.T, r *syncRemote) {
	laptop, desk := r.machine(t, "laptop", "Kim"), r.machine(t, "desk", "Lee")
	files := map[string][]byte{
		"src/app.go":   []byte("package app\n\nfunc Div(a, b int) int { return a / b }\n"),
		"src/new.go":   []byte("package app\r\n// no newline at the end"),
		"bin/data.bin": {0, 1, 2, 0xfe, 0xff, '\n', 0},
	}
	for rel, b := range files {
		laptop.write(rel, b, 0o644)
	}
	laptop.write("debug.log", []byte("ignored\n"), 0o644)
	stderr, took := laptop.endSession("sess-laptop")
	t.Logf("SessionEnd with sync on took %s", took)
	if !strings.Contains(stderr, "handoffs now go to origin's refs/continuity/laptop-") {
		t.Errorf("the first record did not say where handoffs go: %s", stderr)
	}
	refs := waitForRef(t, r.bare, "refs/continuity/", "")
	if !strings.Contains(refs, "/auth") || !strings.Contains(refs, " Kim") {
		t.Fatalf("the remote's refs: %s", refs)
	}
	out, errOut, err := desk.continuity(nil, "sync")
	if err != nil {
		t.Fatalf("continuity sync on the desk: %v\n%s\n%s", err, out, errOut)
	}
	if !strings.Contains(errOut, "fetching refs/continuity/* from origin") || !strings.Contains(out, "auth  laptop  Kim") {
		t.Errorf("sync's progress and report:\n%s\n%s", errOut, out)
	}
	ctxOut, _, _ := desk.hook(map[string]any{"hook_event_name": "SessionStart", "session_id": "sess-desk", "source": "startup", "transcript_path": ""})
	if !strings.Contains(ctxOut, "from machine laptop (fetched from origin)") || !strings.Contains(ctxOut, "Uncommitted: `src/app.go`") {
		t.Errorf("the desk's start was not given the laptop's handoff:\n%s", ctxOut)
	}
	out, errOut, err = desk.continuity(nil, "resume", "--from", "laptop", "--carry")
	if err != nil {
		t.Fatalf("resume --from laptop --carry: %v\n%s\n%s", err, out, errOut)
	}
	if !strings.Contains(out, "from laptop (Kim), ") || !strings.Contains(out, "branch main") || !strings.Contains(out, "carried 4 files here") || !strings.Contains(out, "thoughts/ledgers/CONTINUITY_auth.md") {
		t.Errorf("resume said:\n%s", out)
	}
	for rel, want := range files {
		got, err := os.ReadFile(filepath.Join(desk.dir, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s on the desk: %q (%v), want %q", rel, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(desk.dir, "debug.log")); err == nil {
		t.Error("an ignored file travelled")
	}
	// Carrying again onto the now dirty tree is refused, in words.
	if _, errOut, err := desk.continuity(nil, "resume", "--from", "laptop", "--carry"); err == nil || !strings.Contains(errOut, "uncommitted changes") {
		t.Errorf("a second carry: %v %s", err, errOut)
	}
	gitIn(t, r.bare, nil, "fsck", "--strict", "--no-dangling")
	laptop.git("fsck", "--strict", "--no-dangling")
	desk.git("fsck", "--strict", "--no-dangling")
	if branches := desk.git("branch", "-a"); strings.Contains(branches, "continuity") {
		t.Errorf("a branch appeared: %s", branches)
	}
}

func TestSyncOverFile(t *testing.T) {
	travels(t, newSyncRemote(t))
}

func TestSyncOverGitDaemon(t *testing.T) {
	r := newSyncRemote(t)
	port := freePort(t)
	base := filepath.Dir(r.bare)
	cmd := exec.Command("git", "daemon", "--reuseaddr", "--listen=127.0.0.1", fmt.Sprintf("--port=%d", port),
		"--base-path="+base, "--export-all", "--enable=receive-pack", base)
	cmd.Env = append(cleanEnv(), "PATH="+os.Getenv("PATH"))
	if err := cmd.Start(); err != nil {
		t.Skipf("git daemon cannot start here: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	waitPort(t, port)
	r.url = fmt.Sprintf("git://127.0.0.1:%d/origin.git", port)
	travels(t, r)
}

func TestSyncOverSSH(t *testing.T) {
	r, _ := sshRemote(t)
	travels(t, r)
}

// sshRemote serves the remote through a local sshd with a key of the
// test's; it skips, saying why, where sshd cannot start. It returns the
// key directory too.
func sshRemote(t *testing.T) (*syncRemote, string) {
	t.Helper()
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/sshd"); serr != nil {
			t.Skip("sshd is not installed (Debian: apt-get install openssh-server; .ci/run installs it)")
		}
		sshd = "/usr/sbin/sshd"
	}
	u, err := user.Current()
	if err != nil {
		t.Skipf("no user to log in as: %v", err)
	}
	r := newSyncRemote(t)
	keys := testkit.TempDir(t)
	for _, k := range []string{"host", "client", "stranger"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(keys, k)).CombinedOutput(); err != nil {
			t.Skipf("ssh-keygen: %v %s", err, out)
		}
	}
	pub, _ := os.ReadFile(filepath.Join(keys, "client.pub"))
	if err := os.WriteFile(filepath.Join(keys, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	conf := filepath.Join(keys, "sshd_config")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
AuthorizedKeysFile %s
PidFile %s
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
SetEnv PATH=%s
`, port, filepath.Join(keys, "host"), filepath.Join(keys, "authorized_keys"), filepath.Join(keys, "sshd.pid"), os.Getenv("PATH"))), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(sshd, "-t", "-f", conf).CombinedOutput(); err != nil {
		t.Skipf("sshd cannot start here: %v: %s", err, bytes.TrimSpace(out))
	}
	cmd := exec.Command(sshd, "-D", "-e", "-f", conf)
	var log bytes.Buffer
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Skipf("sshd cannot start here: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("sshd's log:\n%s", log.String())
		}
	})
	waitPort(t, port)
	r.url = fmt.Sprintf("ssh://%s@127.0.0.1:%d%s", u.Username, port, r.bare)
	r.sshCommand = "ssh -i " + filepath.Join(keys, "client") + " -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
	return r, keys
}

// TestSyncSSHAuthNeeded: a clone whose key the server does not accept
// fails to push, quickly and quietly: the hook returns at once, the
// failure is in status and doctor, and `continuity sync` says it needs
// authentication.
func TestSyncSSHAuthNeeded(t *testing.T) {
	r, keys := sshRemote(t)
	m := r.machine(t, "laptop", "Kim")
	m.git("config", "core.sshCommand", "ssh -i "+filepath.Join(keys, "stranger")+" -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR")
	m.write("src/app.go", []byte("package app // changed\n"), 0o644)
	_, took := m.endSession("s1")
	if took > 5*time.Second {
		t.Errorf("SessionEnd took %s with a remote that refuses the key", took)
	}
	out, errOut, err := m.continuity(nil, "sync")
	if err == nil || !strings.Contains(errOut, "authentication needed") {
		t.Errorf("sync with a refused key: %v\n%s\n%s", err, out, errOut)
	}
	st, _, _ := m.continuity(nil, "status")
	if !strings.Contains(st, "sync: the last") || !strings.Contains(st, "failed") {
		t.Errorf("status:\n%s", st)
	}
	doc, _, _ := m.continuity(nil, "doctor")
	if !strings.Contains(doc, "continuity sync") {
		t.Errorf("doctor:\n%s", doc)
	}
	if refs := gitIn(t, r.bare, nil, "for-each-ref", "refs/continuity/"); refs != "" {
		t.Errorf("a refused key pushed: %s", refs)
	}
}

// blackHole listens on 127.0.0.1 and accepts connections it never
// answers: a remote that hangs.
func blackHole(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return l.Addr().(*net.TCPAddr).Port
}

// TestSyncFaults: a remote that hangs and one that is gone never hold a
// hook; a push and a fetch killed with SIGKILL mid-way lose nothing, leave
// the refs whole (git fsck) and are named by status; two machines ending
// their sessions in the same second both land.
func TestSyncFaults(t *testing.T) {
	r := newSyncRemote(t)
	laptop, desk := r.machine(t, "laptop", "Kim"), r.machine(t, "desk", "Lee")

	// A remote that hangs: the hook returns at once (its background push
	// waits on the remote, bounded, in a process of its own).
	hang := fmt.Sprintf("git://127.0.0.1:%d/origin.git", blackHole(t))
	hanger := r.machine(t, "hanger", "Ana")
	hanger.git("remote", "set-url", "origin", hang)
	hanger.write("src/app.go", []byte("package app // hanging\n"), 0o644)
	if _, took := hanger.endSession("s0"); took > 5*time.Second {
		t.Errorf("SessionEnd took %s with a remote that never answers", took)
	}

	// A remote that is gone: the background push fails at once.
	laptop.git("remote", "set-url", "origin", fmt.Sprintf("git://127.0.0.1:%d/origin.git", freePort(t)))
	laptop.write("src/app.go", []byte("package app // one\n"), 0o644)
	if _, took := laptop.endSession("s1"); took > 5*time.Second {
		t.Errorf("SessionEnd took %s with a remote that is gone", took)
	}
	waitRun(t, laptop, "push")
	if st, _, _ := laptop.continuity(nil, "status"); !strings.Contains(st, "sync: the last push") {
		t.Errorf("status after a push to a closed port:\n%s", st)
	}
	local := laptop.git("for-each-ref", "--format=%(objectname)", "refs/continuity/")
	if local == "" {
		t.Fatal("nothing recorded locally")
	}
	laptop.git("remote", "set-url", "origin", hang)

	// A push killed mid-way (its whole process group, as a shutdown would).
	killMidway(t, laptop, "push")
	st, _, _ := laptop.continuity(nil, "status")
	if !strings.Contains(st, "never finished") {
		t.Errorf("status after a killed push:\n%s", st)
	}
	if got := laptop.git("for-each-ref", "--format=%(objectname)", "refs/continuity/"); got != local {
		t.Errorf("the local ref moved: %q, was %q", got, local)
	}
	laptop.git("fsck", "--strict", "--no-dangling")

	// The remote back: nothing was lost.
	laptop.git("remote", "set-url", "origin", r.url)
	if out, errOut, err := laptop.continuity(nil, "sync"); err != nil {
		t.Fatalf("sync once the remote is back: %v\n%s\n%s", err, out, errOut)
	}
	if refs := gitIn(t, r.bare, nil, "for-each-ref", "--format=%(objectname)", "refs/continuity/"); !strings.Contains(refs, strings.TrimSpace(local)) && refs == "" {
		t.Errorf("the snapshot did not reach the remote: %q", refs)
	}

	// A fetch killed mid-way.
	desk.git("remote", "set-url", "origin", hang)
	killMidway(t, desk, "fetch")
	desk.git("fsck", "--strict", "--no-dangling")
	desk.git("remote", "set-url", "origin", r.url)
	if out, errOut, err := desk.continuity(nil, "sync"); err != nil || !strings.Contains(out, "auth  laptop  Kim") {
		t.Fatalf("sync after a killed fetch: %v\n%s\n%s", err, out, errOut)
	}

	// Two machines end their sessions in the same second: both land.
	before := gitIn(t, r.bare, nil, "for-each-ref", "--format=%(refname) %(objectname) %(authorname)", "refs/continuity/")
	laptop.write("src/app.go", []byte("package app // two\n"), 0o644)
	desk.write("src/other.go", []byte("package app // desk\n"), 0o644)
	var wg sync.WaitGroup
	for i, m := range []*syncMachine{laptop, desk} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.endSession(fmt.Sprintf("same-second-%d", i))
		}()
	}
	wg.Wait()
	deadline := time.Now().Add(90 * time.Second)
	for {
		refs := gitIn(t, r.bare, nil, "for-each-ref", "--format=%(refname) %(objectname) %(authorname)", "refs/continuity/")
		if strings.Count(refs, "\n") == 2 && !strings.Contains(before, strings.Split(refs, "\n")[0]) && !strings.Contains(before, strings.Split(refs, "\n")[1]) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("both machines' snapshots did not land:\nbefore %s\nafter %s", before, refs)
		}
		time.Sleep(200 * time.Millisecond)
	}
	gitIn(t, r.bare, nil, "fsck", "--strict", "--no-dangling")
}

// waitRun waits until the machine's last push or fetch (kind) is over.
func waitRun(t *testing.T, m *syncMachine, kind string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		run := syncRun(t, m, kind)
		if !run.At.IsZero() && !run.Started.After(run.At) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the %s never ended", kind)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// syncRun reads the machine's local state of its last push or fetch.
func syncRun(t *testing.T, m *syncMachine, kind string) struct{ Started, At time.Time } {
	t.Helper()
	state := filepath.Join(strings.TrimSpace(m.git("rev-parse", "--path-format=absolute", "--git-common-dir")), "continuity", "shared", "sync.json")
	b, _ := os.ReadFile(state)
	var s struct {
		Push, Fetch struct{ Started, At time.Time }
	}
	_ = json.Unmarshal(b, &s)
	if kind == "fetch" {
		return s.Fetch
	}
	return s.Push
}

// killMidway starts the background push or fetch the hooks start, in a
// process group of its own, waits until it has begun, and kills the group
// with SIGKILL.
func killMidway(t *testing.T, m *syncMachine, kind string) {
	t.Helper()
	cmd := exec.Command(m.bin, "sync", "--background", kind)
	cmd.Dir, cmd.Env = m.dir, m.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if run := syncRun(t, m, kind); run.Started.After(run.At) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the %s never began", kind)
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // git is at the remote's door
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func waitPort(t *testing.T, port int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on port %d: %v", port, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSyncTwoMachinesRealClaude: the real Claude Code on each "machine"
// (two homes, two clones of one remote, the hooks registered by
// `continuity init` and committed): a session on the laptop writes a file
// and ends; its SessionEnd records and pushes the work; on the desk, after
// `continuity sync`, the next session's first request carries the
// laptop's handoff, attributed, and resume --carry brings the file.
func TestSyncTwoMachinesRealClaude(t *testing.T) {
	requireE2E(t)
	claudeBin := claudeBinary(t)
	bin := continuityBinary(t)
	r := newSyncRemote(t)
	// The team registers the hooks once and commits them.
	seed := filepath.Join(filepath.Dir(r.bare), "seed")
	cmd := exec.Command(bin, "init")
	cmd.Dir, cmd.Env = seed, append(cleanEnv(), "PATH="+os.Getenv("PATH"), "HOME="+testkit.TempDir(t))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("continuity init: %v\n%s", err, out)
	}
	gitIn(t, seed, nil, "add", ".")
	gitIn(t, seed, nil, "commit", "-q", "-m", "continuity hooks")
	gitIn(t, seed, nil, "push", "-q", r.bare, "main")

	client := func(m *syncMachine) *project {
		p := &project{t: t, dir: m.dir, config: filepath.Join(m.home, "claude"), bin: bin, claude: claudeBin, api: NewAnthropic()}
		t.Cleanup(p.api.Close)
		p.env = append(append([]string(nil), m.env...), "GIT_AUTHOR_NAME=E2E", "GIT_AUTHOR_EMAIL=e2e@example.invalid",
			"GIT_COMMITTER_NAME=E2E", "GIT_COMMITTER_EMAIL=e2e@example.invalid")
		return p
	}
	laptop, desk := r.machine(t, "laptop", "Kim"), r.machine(t, "desk", "Lee")
	pl, pd := client(laptop), client(desk)
	feature := "package app\n\n// Logout revokes the refresh token.\nfunc Logout() {}\n"
	pl.runClaude([]AnthropicResponse{
		AnthropicTool("Write", map[string]any{"file_path": laptop.dir + "/src/logout.go", "content": feature}),
		AnthropicText("Wrote the logout endpoint in src/logout.go."),
	}, "-p", "write the logout endpoint", "--allowedTools", "Write")
	refs := waitForRef(t, r.bare, "refs/continuity/", "")
	if !strings.Contains(refs, "refs/continuity/laptop-") || !strings.Contains(refs, "/auth") {
		t.Fatalf("the remote's refs after the laptop's session: %s", refs)
	}

	if out, errOut, err := desk.continuity(nil, "sync"); err != nil {
		t.Fatalf("sync on the desk: %v\n%s\n%s", err, out, errOut)
	}
	s := pd.runClaude([]AnthropicResponse{AnthropicText("Picking up the logout endpoint.")}, "-p", "go on")
	reqs := modelRequests(s.Requests)
	if len(reqs) == 0 {
		t.Fatal("the desk's session made no model request")
	}
	ctx := strings.Join(injected(reqs[0].Body), "\n")
	if !strings.Contains(ctx, "from machine laptop (fetched from origin)") || !strings.Contains(ctx, "src/logout.go") {
		t.Errorf("the desk's first request lacks the laptop's handoff:\n%s", ctx)
	}
	out, errOut, err := desk.continuity(nil, "resume", "--from", "laptop", "--carry")
	if err != nil {
		t.Fatalf("resume --from laptop --carry: %v\n%s\n%s", err, out, errOut)
	}
	if got, err := os.ReadFile(filepath.Join(desk.dir, "src", "logout.go")); err != nil || string(got) != feature {
		t.Errorf("src/logout.go on the desk: %q (%v)", got, err)
	}
	gitIn(t, r.bare, nil, "fsck", "--strict", "--no-dangling")
}
