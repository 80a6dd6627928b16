package travel

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/continuity-md/continuity/internal/gitfacts"
)

// PushTimeout and FetchTimeout bound one push or fetch, whoever runs it.
const (
	PushTimeout  = 60 * time.Second
	FetchTimeout = 30 * time.Second
)

// Remote is the remote the snapshots travel through: the current branch's
// remote, else origin, else the repository's only remote ("" for none).
// A remote whose name cannot be a ref component is passed over.
func (r Repo) Remote(ctx context.Context) string {
	out, _ := r.Git.Run(ctx, "remote")
	var names []string
	for _, n := range strings.Fields(string(out)) {
		if ValidName(n) {
			names = append(names, n)
		}
	}
	has := func(n string) bool {
		for _, m := range names {
			if m == n {
				return true
			}
		}
		return false
	}
	if b := gitfacts.Branch(r.Git.Repo); b != "" {
		if out, err := r.Git.Run(ctx, "config", "--get", "branch."+b+".remote"); err == nil {
			if n := strings.TrimSpace(string(out)); has(n) {
				return n
			}
		}
	}
	if has("origin") {
		return "origin"
	}
	if len(names) == 1 {
		return names[0]
	}
	return ""
}

// transport is r's git set up for the network with nobody to answer: no
// terminal prompt, no credential helper's window, SSH in batch mode with a
// connect timeout (unless the person set their own SSH command, which is
// kept: the process has no terminal to prompt on either way), transfers
// that stall dropped.
func (r Repo) transport(ctx context.Context) gitfacts.Git {
	g := r.Git
	env := []string{"GIT_TERMINAL_PROMPT=0", "GCM_INTERACTIVE=never", "SSH_ASKPASS_REQUIRE=never", "GIT_ASKPASS=", "SSH_ASKPASS="}
	if os.Getenv("GIT_SSH_COMMAND") == "" && os.Getenv("GIT_SSH") == "" {
		if out, _ := r.Git.Run(ctx, "config", "--get", "core.sshCommand"); strings.TrimSpace(string(out)) == "" {
			env = append(env, "GIT_SSH_COMMAND=ssh -o BatchMode=yes -o ConnectTimeout=10")
		}
	}
	g.Env = append(g.Env[:len(g.Env):len(g.Env)], env...)
	return g
}

// netConfig are the settings of every push and fetch: no credential
// prompt, stalled HTTP transfers dropped, no hook of the person's run.
var netConfig = []string{"-c", "credential.interactive=false", "-c", "http.lowSpeedLimit=1000", "-c", "http.lowSpeedTime=15", "-c", "core.hooksPath=/dev/null"}

// Push pushes machine's refs, and only those, to remote: a fast-forward
// of each (never forced; the refs of another machine or person are never
// in the push). It returns git's report of what moved.
func (r Repo) Push(ctx context.Context, remote, machine string) (string, error) {
	if !ValidName(remote) || !ValidName(machine) {
		return "", fmt.Errorf("push: %q to %q: not a ref name", machine, remote)
	}
	ctx, cancel := context.WithTimeout(ctx, PushTimeout)
	defer cancel()
	spec := Own + machine + "/*:" + Own + machine + "/*"
	args := append(append([]string{}, netConfig...), "push", "--porcelain", "--no-verify", "--no-recurse-submodules", remote, spec)
	out, err := r.transport(ctx).Run(ctx, args...)
	if err != nil {
		return string(out), fmt.Errorf("push to %s: %w", remote, explain(err))
	}
	return string(out), nil
}

// Fetch fetches every machine's refs from remote into Fetched + remote,
// dropping the copies of refs the remote no longer has. Lock files a
// killed fetch left in that namespace are removed first (only ours, only
// when older than a fetch can take).
func (r Repo) Fetch(ctx context.Context, remote string) error {
	if !ValidName(remote) {
		return fmt.Errorf("fetch: %q: not a ref name", remote)
	}
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	r.removeStaleLocks(Fetched+remote+"/", 2*FetchTimeout)
	spec := "+" + Own + "*:" + Fetched + remote + "/*"
	args := append(append([]string{}, netConfig...), "fetch", "--prune", "--no-tags", "--no-write-fetch-head", "--no-auto-gc", "--no-recurse-submodules", remote, spec)
	if _, err := r.transport(ctx).Run(ctx, args...); err != nil {
		return fmt.Errorf("fetch from %s: %w", remote, explain(err))
	}
	return nil
}

// explain adds what a person can do to the transport failures people meet.
func explain(err error) error {
	s := err.Error()
	switch {
	case strings.Contains(s, "context deadline exceeded"):
		return fmt.Errorf("%w (the remote did not answer in time)", err)
	case strings.Contains(s, "Permission denied") || strings.Contains(s, "Authentication failed") ||
		strings.Contains(s, "could not read Username") || strings.Contains(s, "terminal prompts disabled"):
		return fmt.Errorf("%w (authentication needed: continuity never prompts; set up an SSH agent or a credential helper, then `continuity sync`)", err)
	case strings.Contains(s, "rejected") || strings.Contains(s, "non-fast-forward"):
		return fmt.Errorf("%w (the remote has other snapshots under this machine's name)", err)
	}
	return err
}

// removeStaleLocks removes *.lock files under the ref namespace prefix
// older than age: a fetch killed between taking a ref's lock and renaming
// it leaves one, and every later fetch would fail on it.
func (r Repo) removeStaleLocks(prefix string, age time.Duration) {
	common := r.Git.Repo.CommonDir
	if common == "" {
		common = r.Git.Repo.GitDir
	}
	if common == "" {
		return
	}
	dir := common + string(os.PathSeparator) + strings.ReplaceAll(prefix, "/", string(os.PathSeparator))
	walkLocks(dir, time.Now().Add(-age))
}

func walkLocks(dir string, before time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := dir + string(os.PathSeparator) + e.Name()
		switch {
		case e.IsDir():
			walkLocks(p, before)
		case e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".lock"):
			if fi, err := e.Info(); err == nil && fi.ModTime().Before(before) {
				_ = os.Remove(p)
			}
		}
	}
}
