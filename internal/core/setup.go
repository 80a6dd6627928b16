package core

// What `continuity init` and `continuity uninstall` do: register continuity's
// hooks with each agent in its settings file, create the directories, and add
// or remove the repository's own installers (the ledger merge driver, the
// pre-commit scan). The byte-level edits are internal/install's; this decides
// which files to edit and writes them through safefile.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/install"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
)

// SetupOptions are what init and uninstall work on.
type SetupOptions struct {
	Dir       string              // the project directory, absolute
	Getenv    func(string) string // the environment
	Hosts     []agent.Served      // the hosts to register with (or remove from)
	All       []agent.Served      // every host known (uninstall: is any still registered?)
	User      bool                // the user's settings instead of the project's
	Program   string              // init: the program the hooks run
	PreCommit bool                // init: also install the pre-commit scan
	Purge     bool                // uninstall: also remove the repository's local state
}

// HostResult is what init or uninstall did for one host.
type HostResult struct {
	Agent    string   `json:"agent"`
	Title    string   `json:"title"`
	Settings string   `json:"settings"`
	Command  string   `json:"command,omitempty"`
	Action   string   `json:"action"`            // registered, updated, unchanged, removed, none
	Rewrote  []string `json:"rewrote,omitempty"` // init: registrations moved from an older form, in the host's words
}

// SetupResult is what init or uninstall did (their --json output), with Lines,
// the text they print.
type SetupResult struct {
	Hosts       []HostResult `json:"hosts"`
	LedgerDir   string       `json:"ledger_dir"`   // "" with --user
	HandoffDir  string       `json:"handoff_dir"`  // "" with --user
	MergeDriver string       `json:"merge_driver"` // registered, unchanged, removed, kept, none
	PreCommit   string       `json:"pre_commit"`   // installed, updated, unchanged, refused, removed, kept, none
	Lines       []string     `json:"-"`
}

func (r *SetupResult) say(msg string) {
	if msg != "" {
		r.Lines = append(r.Lines, msg)
	}
}

// open is init's and uninstall's shared opening: an empty result, the
// project, the scope, and a check that every host's settings parse before
// any is written, so a malformed file leaves all of them as they were.
func open(o SetupOptions) (SetupResult, *workspace.Workspace, agent.Scope, error) {
	res := SetupResult{Hosts: []HostResult{}, MergeDriver: "none", PreCommit: "none"}
	p, err := workspace.OpenWith(o.Dir, o.Getenv)
	if err != nil {
		return res, nil, 0, err
	}
	scope := agent.Project
	if o.User {
		scope = agent.User
	}
	for _, h := range o.Hosts {
		path, err := h.SettingsPath(o.Getenv, p.Root, scope)
		if err != nil {
			return res, nil, 0, err
		}
		b, err := safefile.Read(path, safefile.Options{MaxSize: MaxSettings})
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return res, nil, 0, err
		}
		if _, err := h.Registered(b); err != nil {
			return res, nil, 0, SettingsError(path, err)
		}
	}
	return res, p, scope, nil
}

// Init registers the hooks of o.Hosts running o.Program and, for a project
// (not --user), creates the directories and registers the merge driver and,
// with o.PreCommit, the pre-commit scan.
func Init(o SetupOptions) (SetupResult, error) {
	res, p, scope, err := open(o)
	if err != nil {
		return res, err
	}
	for _, h := range o.Hosts {
		r, err := register(o, p, scope, h, install.HookCommand(o.Program, h.Name()))
		if err != nil {
			return res, err
		}
		res.Hosts = append(res.Hosts, r)
		switch r.Action {
		case "registered":
			res.say(fmt.Sprintf("registered the hooks in %s (command: %s)", r.Settings, r.Command))
		case "updated":
			res.say(fmt.Sprintf("updated the hooks in %s to the command %s (was: %s)", r.Settings, r.Command, strings.Join(r.Rewrote, "; ")))
		default:
			res.say(fmt.Sprintf("hooks already registered in %s", r.Settings))
		}
	}
	if o.User {
		return res, nil
	}
	_ = os.Remove(uninstalledMark(p))
	for _, d := range []string{p.LedgerDir, p.HandoffDir} {
		if err := p.MkdirAll(d); err != nil {
			return res, fmt.Errorf("create %s: %w", p.Rel(d), err)
		}
	}
	keep := filepath.Join(p.LedgerDir, ".gitkeep")
	if _, err := os.Stat(keep); errors.Is(err, fs.ErrNotExist) {
		if err := safefile.Create(keep, nil, p.WriteOptions()); err != nil && !errors.Is(err, fs.ErrExist) {
			return res, err
		}
	}
	res.LedgerDir, res.HandoffDir = p.Rel(p.LedgerDir), p.Rel(p.HandoffDir)
	res.say(fmt.Sprintf("ledgers in %s, handoffs in %s", res.LedgerDir, res.HandoffDir))
	var msg string
	if res.MergeDriver, msg, err = registerMergeDriver(p, o.Program); err != nil {
		return res, err
	}
	res.say(msg)
	if p.Repo.Root != "" && res.MergeDriver == "registered" {
		var commit []string
		for _, h := range res.Hosts {
			if rel := p.Rel(h.Settings); !filepath.IsAbs(rel) {
				commit = append(commit, rel)
			}
		}
		commit = append(commit, ".gitattributes", p.Rel(keep))
		res.say("commit " + strings.Join(commit, ", ") + ": a teammate's clone then needs nothing more (its first hook sets up the merge driver in its own git config)")
	}
	if o.PreCommit {
		if res.PreCommit, msg, err = installPreCommit(p, o.Program); err != nil {
			return res, err
		}
		res.say(msg)
	}
	if ls, _ := p.Ledgers(); len(ls) == 0 {
		res.say("next: continuity new NAME --goal \"what this work stream is for\"")
	}
	return res, nil
}

// register registers h's hooks, running command, in its settings for scope.
func register(o SetupOptions, p *workspace.Workspace, scope agent.Scope, h agent.Host, command string) (HostResult, error) {
	r := HostResult{Agent: h.Name(), Title: h.Title(), Command: command}
	path, err := h.SettingsPath(o.Getenv, p.Root, scope)
	if err != nil {
		return r, err
	}
	r.Settings = path
	changed, err := editSettings(path, settingsRoot(p, scope), func(old []byte) ([]byte, bool, error) {
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

// Uninstall removes the hooks of o.Hosts and, once no host of o.All has
// hooks left in the project, the merge driver and the pre-commit scan.
func Uninstall(o SetupOptions) (SetupResult, error) {
	res, p, scope, err := open(o)
	if err != nil {
		return res, err
	}
	for _, h := range o.Hosts {
		r := HostResult{Agent: h.Name(), Title: h.Title(), Action: "none"}
		if r.Settings, err = h.SettingsPath(o.Getenv, p.Root, scope); err != nil {
			return res, err
		}
		if _, err := os.Stat(r.Settings); errors.Is(err, fs.ErrNotExist) {
			res.say(fmt.Sprintf("no hooks to remove: %s does not exist", r.Settings))
		} else {
			changed, err := editSettings(r.Settings, settingsRoot(p, scope), h.Unregister)
			if err != nil {
				return res, err
			}
			if changed {
				r.Action = "removed"
				res.say(fmt.Sprintf("removed the continuity hooks from %s (ledgers and handoffs are kept)", r.Settings))
				if scope == agent.Project && removeIfEmpty(r.Settings) {
					res.say(fmt.Sprintf("removed %s: nothing else was in it", p.Rel(r.Settings)))
				}
			} else {
				res.say(fmt.Sprintf("no continuity hooks in %s", r.Settings))
			}
		}
		res.Hosts = append(res.Hosts, r)
	}
	if o.User {
		return res, nil
	}
	if left := registeredHosts(o, p); len(left) > 0 {
		res.MergeDriver, res.PreCommit = "kept", "kept"
		res.say("kept the ledger merge driver and the pre-commit scan: hooks for " + strings.Join(left, ", ") + " are still registered here")
		return res, nil
	}
	var msg string
	if res.MergeDriver, msg, err = unregisterMergeDriver(p); err != nil {
		return res, err
	}
	res.say(msg)
	if res.PreCommit, msg, err = removePreCommit(p); err != nil {
		return res, err
	}
	res.say(msg)
	if o.Purge {
		for _, dir := range []string{p.Local.Common, p.Local.Dir} {
			if dir == "" {
				continue
			}
			if err := os.RemoveAll(dir); err != nil {
				return res, fmt.Errorf("remove the local state %s: %w", dir, err)
			}
		}
		res.say("removed the repository's local state (" + p.Local.Dir + ")")
		return res, nil // --purge leaves nothing, not even the mark
	}
	if err := markUninstalled(p, time.Now()); err != nil {
		return res, err
	}
	return res, nil
}

// uninstalledMark is the file in local state that says continuity was
// uninstalled from the repository, and when: doctor then says so rather
// than suggest a first install. init removes it; --purge leaves none.
func uninstalledMark(p *workspace.Workspace) string {
	return filepath.Join(p.Local.Dir, "uninstalled")
}

// markUninstalled writes the mark.
func markUninstalled(p *workspace.Workspace, now time.Time) error {
	if p.Local.Dir == "" {
		return nil
	}
	if err := p.Local.Mkdir(p.Local.Dir); err != nil {
		return err
	}
	stamp := []byte(now.UTC().Format(time.RFC3339) + "\n")
	return safefile.Update(uninstalledMark(p), p.Local.Options(), func([]byte) ([]byte, error) { return stamp, nil })
}

// Uninstalled returns when continuity was uninstalled from the repository
// (zero when it was not, or was installed again since).
func Uninstalled(p *workspace.Workspace) time.Time {
	b, err := safefile.Read(uninstalledMark(p), safefile.Options{Root: p.Local.Root(), MaxSize: 1 << 10})
	if err != nil {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339, strings.TrimSpace(string(b)))
	return t
}

// removeIfEmpty removes a settings file that holds nothing but an empty
// JSON object (what init created and uninstall emptied), and its folder
// when nothing else is in it. It reports whether the file went.
func removeIfEmpty(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil || strings.Join(strings.Fields(string(b)), "") != "{}" {
		return false
	}
	if os.Remove(path) != nil {
		return false
	}
	_ = os.Remove(filepath.Dir(path)) // only when empty
	return true
}

// registeredHosts names the hosts whose project settings still register a
// continuity hook (a file that cannot be read or parsed counts: uninstall
// keeps the repository's installers rather than guess).
func registeredHosts(o SetupOptions, p *workspace.Workspace) []string {
	var names []string
	for _, h := range o.All {
		path, err := h.SettingsPath(o.Getenv, p.Root, agent.Project)
		if err != nil {
			continue
		}
		b, err := safefile.Read(path, safefile.Options{MaxSize: MaxSettings})
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

// SettingsError names the settings file in err: "PATH:LINE:COL: …" for a
// file that does not parse.
func SettingsError(path string, err error) error {
	var ie *install.Error
	if errors.As(err, &ie) {
		return fmt.Errorf("%s:%w", path, ie)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// MaxSettings bounds an agent's settings file read: a committed one (a
// project's) could be a symlink to a device or a huge file.
const MaxSettings = 4 << 20

// settingsRoot confines the writes to a project's settings to the
// project; the user's own settings ("" here) may live anywhere.
func settingsRoot(p *workspace.Workspace, scope agent.Scope) string {
	if scope == agent.Project {
		return p.Root
	}
	return ""
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
	// The locks of the folder's own local state (confined to it, or a
	// directory private to the user), never a shared one such as
	// /tmp/continuity-locks, which another user could make first.
	p, err := workspace.Open(filepath.Dir(path))
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	changed := false
	err = safefile.Update(path, safefile.Options{LockDir: p.Local.LockDir(), Root: root}, func(old []byte) ([]byte, error) {
		out, ch, err := edit(old)
		if err != nil {
			return nil, SettingsError(path, err)
		}
		if !ch {
			return nil, safefile.ErrNoChange
		}
		changed = true
		return out, nil
	})
	return changed, err
}

// Program is the program the hooks run, from init's --command: "" is this
// binary (see thisProgram); the older full form "PROGRAM hook" (or
// "PROGRAM hook --agent NAME") names PROGRAM.
func Program(command string) string {
	c := strings.TrimSpace(command)
	if c == "" {
		return thisProgram()
	}
	if i := strings.LastIndex(c, " hook"); i > 0 && (i+5 == len(c) || c[i+5] == ' ') {
		return strings.TrimSpace(c[:i])
	}
	return c
}

// thisProgram is plain `continuity` when the continuity on PATH is this
// binary (so a committed settings file works for teammates), else this
// binary's absolute path, quoted for the shell when it needs to be.
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
	return shellQuote(self)
}

// selfPath is this binary's absolute path, quoted for the shell when it
// needs to be ("" when the system cannot say).
func selfPath() string {
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	if resolved, err := filepath.EvalSymlinks(self); err == nil {
		self = resolved
	}
	return shellQuote(self)
}

func shellQuote(s string) string {
	if strings.ContainsAny(s, " '\"\\$`;&|<>()*?[]#~{}\t\n") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

// AgentArg is the --agent argument that names h in a suggested command
// ("" for the default host, named def).
func AgentArg(h agent.Host, def string) string {
	if h.Name() == def {
		return ""
	}
	return " --agent " + h.Name()
}
