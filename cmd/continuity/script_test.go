package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/continuity-md/continuity/internal/agent/claude"
	"github.com/continuity-md/continuity/internal/testkit"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"continuity": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/*.txtar, each driving the real binary.
func TestScripts(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(repo, "testdata", "script"),
		UpdateScripts:       *testkit.Update,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, ".home")
			env.Setenv("HOME", home)
			env.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
			env.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(home, "claude"))
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("GIT_AUTHOR_NAME", "Kim")
			env.Setenv("GIT_AUTHOR_EMAIL", "kim@example.com")
			env.Setenv("GIT_COMMITTER_NAME", "Kim")
			env.Setenv("GIT_COMMITTER_EMAIL", "kim@example.com")
			env.Setenv("CONTINUITY_NOW", "2026-11-22T14:05:09Z")
			env.Setenv("REPO", repo)
			// A hook reads a transcript only where the agent keeps them:
			// $TRANSCRIPTS is Claude Code's directory for $WORK.
			dir := claude.Host{}.TranscriptDir(env.Getenv, env.WorkDir)
			env.Setenv("TRANSCRIPTS", dir)
			return os.MkdirAll(dir, 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"gitrepo":     cmdGitRepo,
			"envsubst":    cmdEnvsubst,
			"testdata":    cmdTestdata,
			"payload":     cmdPayload,
			"replace":     cmdReplace,
			"repeat":      cmdRepeat,
			"transcripts": cmdTranscripts,
		},
	})
}

// gitrepo [DIR]: a git repository with one commit, user.name Kim, branch main.
func cmdGitRepo(ts *testscript.TestScript, neg bool, args []string) {
	dir := ts.Getenv("WORK")
	if len(args) > 0 {
		dir = ts.MkAbs(args[0])
	}
	for _, a := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "user.name", "Kim"},
		{"config", "user.email", "kim@example.com"},
		{"commit", "-q", "--allow-empty", "-m", "start"},
	} {
		cmd := exec.Command("git", a...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+ts.Getenv("HOME"), "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			ts.Fatalf("git %s: %v\n%s", strings.Join(a, " "), err, out)
		}
	}
}

// envsubst FILE...: replace $VAR and ${VAR} in files with the script's environment.
func cmdEnvsubst(ts *testscript.TestScript, neg bool, args []string) {
	for _, f := range args {
		path := ts.MkAbs(f)
		b, err := os.ReadFile(path)
		ts.Check(err)
		ts.Check(os.WriteFile(path, []byte(os.Expand(string(b), ts.Getenv)), 0o644))
	}
}

// payload SRC DST [key=value...]: a payload recorded from the real client
// (testdata/payloads/SRC) with cwd set to the script's current directory,
// transcript_path to transcript.jsonl in Claude Code's directory for it (as
// the client names them; the transcripts command sets $TRANSCRIPTS to it),
// and the given fields set ("key=" removes one; \n in a value is a newline).
func cmdPayload(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: payload SRC DST [key=value...]")
	}
	b, err := os.ReadFile(filepath.Join(ts.Getenv("REPO"), "testdata", "payloads", args[0]))
	ts.Check(err)
	var m map[string]any
	ts.Check(json.Unmarshal(b, &m))
	m["cwd"] = ts.MkAbs(".")
	m["transcript_path"] = filepath.Join(claude.Host{}.TranscriptDir(ts.Getenv, ts.MkAbs(".")), "transcript.jsonl")
	for _, kv := range args[2:] {
		k, v, _ := strings.Cut(kv, "=")
		if v == "" {
			delete(m, k)
		} else {
			m[k] = strings.ReplaceAll(v, `\n`, "\n")
		}
	}
	out, err := json.Marshal(m)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), append(out, '\n'), 0o644))
}

// transcripts: $TRANSCRIPTS becomes Claude Code's directory of transcripts
// for the script's current directory (created), where a hook reads them.
func cmdTranscripts(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 0 {
		ts.Fatalf("usage: transcripts")
	}
	dir := claude.Host{}.TranscriptDir(ts.Getenv, ts.MkAbs("."))
	ts.Check(os.MkdirAll(dir, 0o755))
	ts.Setenv("TRANSCRIPTS", dir)
}

// replace OLD NEW FILE: replace every OLD with NEW in FILE ($VARS expanded in NEW).
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: replace OLD NEW FILE")
	}
	path := ts.MkAbs(args[2])
	b, err := os.ReadFile(path)
	ts.Check(err)
	ts.Check(os.WriteFile(path, []byte(strings.ReplaceAll(string(b), args[0], os.Expand(args[1], ts.Getenv))), 0o644))
}

// repeat FILE N PIECE: append PIECE (a Go string literal's body: \n is a
// line break) N times to FILE, creating it.
func cmdRepeat(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: repeat FILE N PIECE")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	piece, err := strconv.Unquote(`"` + args[2] + `"`)
	ts.Check(err)
	f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	ts.Check(err)
	_, err = f.WriteString(strings.Repeat(piece, n))
	ts.Check(err)
	ts.Check(f.Close())
}

// testdata SRC DST: copy a file from the repository (a path relative to its root).
func cmdTestdata(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: testdata SRC DST")
	}
	b, err := os.ReadFile(filepath.Join(ts.Getenv("REPO"), args[0]))
	ts.Check(err)
	dst := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
	ts.Check(os.WriteFile(dst, b, 0o644))
}
