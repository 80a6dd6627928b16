package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/testkit"
)

// continuityProcess returns the path of this test binary under the name
// continuity, which testscript.Main runs as the real command.
func continuityProcess(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "continuity")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// TestHookStdinNeverEnds: a host that writes its payload and never closes
// stdin, or never writes at all, or writes forever, cannot hold a hook: it
// acts on a complete object at once, and gives up on the rest within its
// deadline, saying why, exit 0.
func TestHookStdinNeverEnds(t *testing.T) {
	r := testkit.New(t, true)
	r.Write(".continuity.yaml", "budget: 9000\n")
	exe := continuityProcess(t)
	start, err := json.Marshal(map[string]string{"session_id": "930cbd59-0000-4000-8000-000000000001",
		"hook_event_name": "SessionStart", "source": "startup", "cwd": r.Dir, "transcript_path": ""})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		write  func(w *os.File)
		stdout string
		stderr string
	}{
		{"complete object, stdin left open", func(w *os.File) { w.Write(start) }, `"hookEventName":"SessionStart"`, ""},
		{"nothing, stdin left open", func(w *os.File) {}, "", "no complete payload"},
		{"half an object", func(w *os.File) { w.Write(start[:len(start)/2]) }, "", "no complete payload"},
		{"an endless string", func(w *os.File) {
			w.Write([]byte(`{"session_id":"`))
			for i := 0; i < 64; i++ {
				if _, err := w.Write(bytes.Repeat([]byte("a"), 1<<20)); err != nil {
					return
				}
			}
		}, "", "payload larger than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pw.Close()
			cmd := exec.Command(exe, "hook")
			cmd.Dir, cmd.Stdin = r.Dir, pr
			cmd.Env = append(os.Environ(), "PATH="+os.Getenv("PATH"))
			for k, v := range r.Env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			began := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pr.Close()
			go c.write(pw)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("exit: %v", err)
				}
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("still running after 20 s")
			}
			if took := time.Since(began); took > 8*time.Second {
				t.Errorf("took %v", took)
			}
			if !strings.Contains(stdout.String(), c.stdout) || c.stdout == "" && stdout.Len() > 0 {
				t.Errorf("stdout %q, want %q", stdout.String(), c.stdout)
			}
			if !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("stderr %q, want %q", stderr.String(), c.stderr)
			}
		})
	}
}

// TestPayloadEnds: with stdin left open, the payload is its first whole
// JSON object, whatever braces and quotes its strings hold; closed, it is
// everything (two objects are refused by the host's decoder, as before);
// input that is not an object waits for its end.
func TestPayloadEnds(t *testing.T) {
	for in, want := range map[string]string{
		` {"a":"}\"{[","b":[{"c":"\\"}]} trailing`: ` {"a":"}\"{[","b":[{"c":"\\"}]}`,
		`{}{"second":1}`: `{}`,
	} {
		pr, pw := io.Pipe()
		go pw.Write([]byte(in))
		b, err := readPayload(pr, time.Second)
		if err != nil || string(b) != want {
			t.Errorf("open %q: %q, %v; want %q", in, b, err, want)
		}
		pw.Close()
		if b, err := readPayload(strings.NewReader(in), time.Second); err != nil || string(b) != in {
			t.Errorf("closed %q: %q, %v", in, b, err)
		}
	}
	pr, pw := io.Pipe()
	defer pw.Close()
	go pw.Write([]byte(`[1,2] rest`))
	if _, err := readPayload(pr, 300*time.Millisecond); err == nil {
		t.Error("an open stdin that holds no object was taken")
	}
}
