package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	agent1 "github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/agent/claude"
	"github.com/continuity-md/continuity/internal/localstate"
	"github.com/continuity-md/continuity/internal/workspace"
)

// The bench plays one host; its payloads, event names and transcripts come
// from the host's package, so that no host's names are written here.
var agent agent1.Host = claude.Host{}

// payload is the host's hook payload for ev.
func payload(ev agent1.Event) []byte {
	b, err := claude.Payload(ev)
	if err != nil {
		panic(err) // the kinds timed here are the ones the host has
	}
	return b
}

// hasEvent reports whether the host has an event of kind k (nil) or says
// why not.
func hasEvent(k agent1.Kind) error {
	_, err := claude.Payload(agent1.Event{Kind: k, SessionID: "x", Cwd: "/"})
	return err
}

// eventName is the host's own name for an event of kind k, for the table.
func eventName(k agent1.Kind) string {
	ev, err := agent.Decode(payload(agent1.Event{Kind: k, SessionID: "x", Cwd: "/"}))
	if err != nil || ev.Name == "" {
		return fmt.Sprintf("event %d", k)
	}
	return ev.Name
}

// hookArgv runs the binary's hook for the host.
func hookArgv(bin string) []string { return []string{bin, "hook", "--agent", agent.Name()} }

// childEnv is the environment every timed process gets: the few variables
// a program needs, none of a host's (a session's own variables, where the
// bench runs inside one, would send the hooks elsewhere), and continuity's
// own cleared.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH", "HOME", "USER", "TMPDIR", "LANG", "LC_ALL", "GOCOVERDIR":
			env = append(env, kv)
		}
	}
	return append(env, "CONTINUITY_LEDGER=", "CONTINUITY_DEBUG=", "CONTINUITY_DISABLE=", "CONTINUITY_NOW=")
}

// client is how the bench plays the host's client.
var client = claude.Sample{}

// transcriptDir is where the client, run with env, keeps the transcripts
// of sessions in repo: the only place its hooks read one from.
func transcriptDir(env []string, repo string) (string, error) {
	resolved, err := filepath.EvalSymlinks(repo)
	if err != nil {
		return "", err
	}
	vars := map[string]string{}
	for _, kv := range append(childEnv(), env...) {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	dir := agent.TranscriptDir(func(k string) string { return vars[k] }, resolved)
	if dir == "" {
		return "", fmt.Errorf("%s keeps no transcripts for %s", agent.Title(), repo)
	}
	return dir, os.MkdirAll(dir, 0o755)
}

// fromTranscript checks that the newest handoff in dir holds what the
// transcript did (a file it edited), not git's facts alone: a hook that
// refused the transcript still writes a handoff.
func fromTranscript(dir string, ents []os.DirEntry) error {
	return holding(dir, ents, "token.go")
}

// holding checks that the newest handoff in dir holds word.
func holding(dir string, ents []os.DirEntry, word string) error {
	var newest string
	var at time.Time
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && fi.ModTime().After(at) {
			newest, at = e.Name(), fi.ModTime()
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, newest))
	if err != nil || !bytes.Contains(b, []byte(word)) {
		return fmt.Errorf("the handoff %s holds nothing from the transcript (%v)", newest, err)
	}
	return nil
}

// openSessions is how many sessions the bench's repositories keep running
// at once: a person's few terminals.
const openSessions = 3

// endSession records that agent session id of the repository in dir
// ended, as its end event's hook records it.
func endSession(dir, id string) error {
	p, err := workspace.Open(dir)
	if err != nil {
		return err
	}
	now := time.Now()
	if err := p.Local.UpdateSession(id, now, func(s *localstate.Session) { s.Ended = true }); err != nil {
		return err
	}
	// As the end hook does: the session leaves the repository's sessions at work.
	return p.Local.RecordRepoSession(id, now, func(r *localstate.RepoSession) { r.Ended = true })
}
