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
	return s, nil
}

// hostResult is what init or uninstall did for one host (--json).
type hostResult struct {
	Agent    string   `json:"agent"`
	Title    string   `json:"title"`
	Settings string   `json:"settings"`
	Command  string   `json:"command,omitempty"`
	Action   string   `json:"action"`            // registered, updated, unchanged, removed, none
	Rewrote  []string `json:"rewrote,omitempty"` // init: events moved from an older form
}

// setupResult is init's or uninstall's --json output.
type setupResult struct {
	Hosts       []hostResult `json:"hosts"`
	LedgerDir   string       `json:"ledger_dir"`   // "" with --user
	HandoffDir  string       `json:"handoff_dir"`  // "" with --user
	MergeDriver string       `json:"merge_driver"` // registered, unchanged, removed, kept, none
	PreCommit   string       `json:"pre_commit"`   // installed, updated, unchanged, refused, removed, kept, none
}

func newInitCmd(a *app) *cobra.Command {
	var o setupOptions
	c := &cobra.Command{
		Use:   "init",
		Short: "Register the hooks with your coding agents and create the directories",
		Long: `Register continuity's hooks with each agent named by --agent (default: claude, Claude Code's
.claude/settings.json; with --user the user's settings), running "continuity hook --agent NAME",
and create the ledger and handoff directories. Every other setting, its order and formatting are
kept; files are written atomically; running init again changes nothing, except that a hook
registered in an older form is rewritten in place. A malformed settings file is refused untouched.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error { return runInit(a, o) },
	}
	c.Flags().BoolVar(&o.User, "user", false, "register the hooks in the user's settings (all projects)")
	c.Flags().StringVar(&o.Dir, "dir", "", "the project directory (default: the current one)")
	c.Flags().StringVar(&o.Command, "command", "", "the program the hooks run (default: this binary)")
	c.Flags().BoolVar(&o.PreCommit, "pre-commit", false, "also install a git pre-commit hook that refuses ledgers and handoffs holding secrets")
	agentFlag(c, &o, "the agents to register with")
	return c
}

func runInit(a *app, o setupOptions) error {
	s, err := a.openSetup(o)
	if err != nil {
		return err
	}
	prog := hookProgram(o.Command)
	res := setupResult{Hosts: []hostResult{}, MergeDriver: "none", PreCommit: "none"}
	var lines []string
	for _, h := range s.hosts {
		r, err := a.register(s, h, install.HookCommand(prog, h.Name()))
		if err != nil {
			return err
		}
		res.Hosts = append(res.Hosts, r)
		switch r.Action {
		case "registered":
			lines = append(lines, fmt.Sprintf("registered the hooks in %s (command: %s)", r.Settings, r.Command))
		case "updated":
			lines = append(lines, fmt.Sprintf("updated the hooks in %s to the command %s (%s had an older form)", r.Settings, r.Command, strings.Join(r.Rewrote, ", ")))
		default:
			lines = append(lines, fmt.Sprintf("hooks already registered in %s", r.Settings))
		}
	}
	if !o.User {
		p := s.p
		for _, d := range []string{p.LedgerDir, p.HandoffDir} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return fmt.Errorf("create %s: %w", p.Rel(d), err)
			}
		}
		keep := filepath.Join(p.LedgerDir, ".gitkeep")
		if _, err := os.Stat(keep); errors.Is(err, fs.ErrNotExist) {
			if err := safefile.Create(keep, nil, p.WriteOptions()); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
		}
		res.LedgerDir, res.HandoffDir = p.Rel(p.LedgerDir), p.Rel(p.HandoffDir)
		lines = append(lines, fmt.Sprintf("ledgers in %s, handoffs in %s", res.LedgerDir, res.HandoffDir))
		var msg string
		if res.MergeDriver, msg, err = registerMergeDriver(p, prog); err != nil {
			return err
		}
		lines = appendLine(lines, msg)
		if o.PreCommit {
			if res.PreCommit, msg, err = installPreCommit(p, prog); err != nil {
				return err
			}
			lines = appendLine(lines, msg)
		}
		if ls, _ := p.Ledgers(); len(ls) == 0 {
			lines = append(lines, "next: continuity new NAME --goal \"what this work stream is for\"")
		}
	}
	return a.printSetup(res, lines)
}

// register registers h's hooks, running command, in its settings for
// s.scope.
func (a *app) register(s *setup, h host.Host, command string) (hostResult, error) {
	r := hostResult{Agent: h.Name(), Title: h.Title(), Command: command}
	path, err := h.SettingsPath(a.getenv, s.p.Root, s.scope)
	if err != nil {
		return r, err
	}
	r.Settings = path
	changed, err := editSettings(path, func(old []byte) ([]byte, bool, error) {
		if st, err := h.Registered(old); err == nil {
			r.Rewrote = st.Stale
		}
		return h.Register(old, command)
	})
	switch {
	case err != nil:
		return r, err
	case !changed:
		r.Action, r.Rewrote = "unchanged", nil
	case len(r.Rewrote) > 0:
		r.Action = "updated"
	default:
		r.Action = "registered"
	}
	return r, nil
}

func appendLine(lines []string, msg string) []string {
	if msg == "" {
		return lines
	}
	return append(lines, msg)
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
// and named with the line and column.
func editSettings(path string, edit func(old []byte) ([]byte, bool, error)) (bool, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	lockDir := filepath.Join(os.TempDir(), "continuity-locks")
	if p, err := project.Open(filepath.Dir(path)); err == nil {
		lockDir = filepath.Join(p.StateDir, "locks")
	}
	changed := false
	err := safefile.Update(path, safefile.Options{LockDir: lockDir}, func(old []byte) ([]byte, error) {
		out, ch, err := edit(old)
		var ie *install.Error
		if errors.As(err, &ie) {
			return nil, fmt.Errorf("%s:%w", path, ie)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if !ch {
			return nil, safefile.ErrNoChange
		}
		changed = true
		return out, nil
	})
	return changed, err
}

func newUninstallCmd(a *app) *cobra.Command {
	var o setupOptions
	c := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove exactly the hooks init added; ledgers and handoffs stay",
		Long: `Remove the hooks init registered with each agent named by --agent (default: claude). Once no
agent's hooks are left in the repository, the ledger merge driver and the pre-commit scan go too.
Ledgers and handoffs stay.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error { return runUninstall(a, o) },
	}
	c.Flags().BoolVar(&o.User, "user", false, "remove them from the user's settings")
	c.Flags().StringVar(&o.Dir, "dir", "", "the project directory (default: the current one)")
	agentFlag(c, &o, "the agents to remove the hooks from")
	return c
}

func runUninstall(a *app, o setupOptions) error {
	s, err := a.openSetup(o)
	if err != nil {
		return err
	}
	res := setupResult{Hosts: []hostResult{}, MergeDriver: "none", PreCommit: "none"}
	var lines []string
	for _, h := range s.hosts {
		r := hostResult{Agent: h.Name(), Title: h.Title(), Action: "none"}
		if r.Settings, err = h.SettingsPath(a.getenv, s.p.Root, s.scope); err != nil {
			return err
		}
		if _, err := os.Stat(r.Settings); errors.Is(err, fs.ErrNotExist) {
			lines = append(lines, fmt.Sprintf("no hooks to remove: %s does not exist", r.Settings))
		} else {
			changed, err := editSettings(r.Settings, h.Unregister)
			if err != nil {
				return err
			}
			if changed {
				r.Action = "removed"
				lines = append(lines, fmt.Sprintf("removed the continuity hooks from %s (ledgers and handoffs are kept)", r.Settings))
			} else {
				lines = append(lines, fmt.Sprintf("no continuity hooks in %s", r.Settings))
			}
		}
		res.Hosts = append(res.Hosts, r)
	}
	if o.User {
		return a.printSetup(res, lines)
	}
	if left := a.registeredHosts(s.p); len(left) > 0 {
		res.MergeDriver, res.PreCommit = "kept", "kept"
		lines = append(lines, "kept the ledger merge driver and the pre-commit scan: hooks for "+strings.Join(left, ", ")+" are still registered here")
		return a.printSetup(res, lines)
	}
	var msg string
	if res.MergeDriver, msg, err = unregisterMergeDriver(s.p); err != nil {
		return err
	}
	lines = appendLine(lines, msg)
	if res.PreCommit, msg, err = removePreCommit(s.p); err != nil {
		return err
	}
	lines = appendLine(lines, msg)
	return a.printSetup(res, lines)
}

// registeredHosts names the hosts whose project settings still register a
// continuity hook (a file that cannot be read or parsed counts: uninstall
// keeps the repository's installers rather than guess).
func (a *app) registeredHosts(p *project.Project) []string {
	var names []string
	for _, h := range hosts {
		path, err := h.SettingsPath(a.getenv, p.Root, host.Project)
		if err != nil {
			continue
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		st, err := h.Registered(b)
		if err != nil {
			names = append(names, h.Title())
			continue
		}
		for _, c := range st.Events {
			if install.IsContinuityHook(c) {
				names = append(names, h.Title())
				break
			}
		}
	}
	return names
}
