package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/host"
	"github.com/continuity-md/continuity/internal/install"
	"github.com/continuity-md/continuity/internal/project"
	"github.com/continuity-md/continuity/internal/safefile"
)

type setupOptions struct {
	User      bool
	Dir       string
	Command   string   // init: the program the hooks run
	PreCommit bool     // init: also install the git pre-commit hook that runs continuity scan
	Agents    []string // --agent, repeatable or comma-separated
}

// agentFlag adds --agent to init, uninstall and doctor.
func agentFlag(c *cobra.Command, o *setupOptions, usage string) {
	names := make([]string, len(hosts))
	for i, h := range hosts {
		names[i] = h.Name()
	}
	c.Flags().StringSliceVar(&o.Agents, "agent", nil, usage+" ("+strings.Join(names, ", ")+"; repeatable or comma-separated)")
}

// selectHosts returns the hosts names name, each once, in the order given;
// none gives the default host.
func selectHosts(names []string) ([]host.Host, error) {
	if len(names) == 0 {
		return []host.Host{hosts[0]}, nil
	}
	var out []host.Host
	seen := map[string]bool{}
	for _, n := range names {
		h, err := hostNamed(strings.TrimSpace(n))
		if err != nil {
			return nil, err
		}
		if !seen[h.Name()] {
			seen[h.Name()] = true
			out = append(out, h)
		}
	}
	return out, nil
}

// agentArg is the --agent argument that names h in a suggested command
// ("" for the default host).
func agentArg(h host.Host) string {
	if h.Name() == hosts[0].Name() {
		return ""
	}
	return " --agent " + h.Name()
}

// thisProgram is the program the hooks run: plain `continuity` when the
// continuity on PATH is this binary (so a committed settings file works for
// teammates), else this binary's absolute path, quoted for the shell when
// it needs to be.
func thisProgram() string {
	self, err := os.Executable()
	if err != nil {
		return "continuity"
	}
	self, _ = filepath.EvalSymlinks(self)
	if onPath, err := exec.LookPath("continuity"); err == nil {
		if resolved, err := filepath.EvalSymlinks(onPath); err == nil && resolved == self {
			return "continuity"
		}
	}
	if strings.ContainsAny(self, " '\"\\$`") {
		return "'" + strings.ReplaceAll(self, "'", `'\''`) + "'"
	}
	return self
}

// hookProgram is the program named by --command, which may also be given
// in the older full form "PROGRAM hook" (or "PROGRAM hook --agent NAME").
func hookProgram(command string) string {
	c := strings.TrimSpace(command)
	if c == "" {
		return thisProgram()
	}
	if i := strings.LastIndex(c, " hook"); i > 0 && (i+5 == len(c) || c[i+5] == ' ') {
		return strings.TrimSpace(c[:i])
	}
	return c
}

// setup is what init and uninstall work on: the project and the hosts.
type setup struct {
	p     *project.Project
	hosts []host.Host
	scope host.Scope
}

// settingsRoot confines the writes to a project's settings to the
// project; the user's own settings ("" here) may live anywhere.
func (s *setup) settingsRoot() string {
	if s.scope == host.Project {
		return s.p.Root
	}
	return ""
}

func (a *app) openSetup(o setupOptions) (*setup, error) {
	hs, err := selectHosts(o.Agents)
	if err != nil {
		return nil, err
	}
	dir := a.dir
	if o.Dir != "" {
		dir = o.Dir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(a.dir, dir)
		}
	}
	p, err := project.OpenWith(dir, a.getenv)
	if err != nil {
		return nil, err
	}
	s := &setup{p: p, hosts: hs, scope: host.Project}
	if o.User {
		s.scope = host.User
	}
	// Every host's settings must parse before any is written, so a
	// malformed file leaves all of them as they were.
	for _, h := range hs {
		path, err := h.SettingsPath(a.getenv, p.Root, s.scope)
		if err != nil {
			return nil, err
		}
		b, err := readSettings(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if _, err := h.Registered(b); err != nil {
			return nil, settingsError(path, err)
		}
	}
	return s, nil
}

// settingsError names the settings file in err: "PATH:LINE:COL: …" for a
// file that does not parse.
func settingsError(path string, err error) error {
	var ie *install.Error
	if errors.As(err, &ie) {
		return fmt.Errorf("%s:%w", path, ie)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// hostResult is what init or uninstall did for one host (--json).
type hostResult struct {
	Agent    string   `json:"agent"`
	Title    string   `json:"title"`
	Settings string   `json:"settings"`
	Command  string   `json:"command,omitempty"`
	Action   string   `json:"action"`            // registered, updated, unchanged, removed, none
	Rewrote  []string `json:"rewrote,omitempty"` // init: registrations moved from an older form, in the host's words
}

// setupResult is init's or uninstall's --json output.
type setupResult struct {
	Hosts       []hostResult `json:"hosts"`
	LedgerDir   string       `json:"ledger_dir"`   // "" with --user
	HandoffDir  string       `json:"handoff_dir"`  // "" with --user
	MergeDriver string       `json:"merge_driver"` // registered, unchanged, removed, kept, none
	PreCommit   string       `json:"pre_commit"`   // installed, updated, unchanged, refused, removed, kept, none
}

// printSetup prints init's or uninstall's result: the lines, or with
// --json the result.
func (a *app) printSetup(res setupResult, lines []string) error {
	if a.json {
		return writeJSON(a.out, res)
	}
	for _, l := range lines {
		fmt.Fprintln(a.out, l)
	}
	return nil
}

// editSettings applies edit to a settings file atomically, creating it (and
// its directory) when missing. A file edit cannot parse is left untouched
// and named with the line and column. root, when set (a project's
// settings), confines the write: a committed symlink leading out of the
// repository is refused, and no directory is created outside it.
func editSettings(path, root string, edit func(old []byte) ([]byte, bool, error)) (bool, error) {
	if err := safefile.MkdirAll(filepath.Dir(path), root, 0o755); err != nil {
		return false, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	lockDir := filepath.Join(os.TempDir(), "continuity-locks")
	if p, err := project.Open(filepath.Dir(path)); err == nil {
		lockDir = filepath.Join(p.StateDir, "locks")
	}
	changed := false
	err := safefile.Update(path, safefile.Options{LockDir: lockDir, Root: root}, func(old []byte) ([]byte, error) {
		out, ch, err := edit(old)
		if err != nil {
			return nil, settingsError(path, err)
		}
		if !ch {
			return nil, safefile.ErrNoChange
		}
		changed = true
		return out, nil
	})
	return changed, err
}
