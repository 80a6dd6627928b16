package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/continuity-md/continuity/internal/install"
	"github.com/continuity-md/continuity/internal/project"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/ledger"
)

// sessionEndTimeout (seconds) covers reading a transcript of hundreds of MB,
// above the host's default 1.5 s budget for SessionEnd hooks.
const sessionEndTimeout = 30

type setupOptions struct {
	User      bool
	Dir       string
	Command   string
	PreCommit bool // init: also install the git pre-commit hook that runs continuity scan
}

// settingsPath is the Claude Code settings file init edits.
func (a *app) settingsPath(o setupOptions, p *project.Project) (string, error) {
	if !o.User {
		return filepath.Join(p.Root, ".claude", "settings.json"), nil
	}
	if cfg := a.getenv("CLAUDE_CONFIG_DIR"); cfg != "" {
		return filepath.Join(cfg, "settings.json"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the user's settings: %w", err)
	}
	return filepath.Join(home, ".claude", "settings.json"), nil
}

// hookCommand is the command the hooks run: plain `continuity hook` when
// the continuity on PATH is this binary (so a committed settings file works
// for teammates), else this binary's absolute path.
func hookCommand() string {
	self, err := os.Executable()
	if err != nil {
		return "continuity hook"
	}
	self, _ = filepath.EvalSymlinks(self)
	if onPath, err := exec.LookPath("continuity"); err == nil {
		if resolved, err := filepath.EvalSymlinks(onPath); err == nil && resolved == self {
			return "continuity hook"
		}
	}
	if strings.ContainsAny(self, " '\"\\$`") {
		return "'" + strings.ReplaceAll(self, "'", `'\''`) + "' hook"
	}
	return self + " hook"
}

func (a *app) setupProject(o setupOptions) (*project.Project, error) {
	dir := a.dir
	if o.Dir != "" {
		dir = o.Dir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(a.dir, dir)
		}
	}
	return project.OpenWith(dir, a.getenv)
}

func newInitCmd(a *app) *cobra.Command {
	var o setupOptions
	c := &cobra.Command{
		Use:   "init",
		Short: "Register the hooks in .claude/settings.json and create the directories",
		Long: `Register continuity's hooks (SessionStart, PreCompact, PostCompact, SessionEnd) in the
project's .claude/settings.json (or with --user the user's settings), and create the ledger and
handoff directories. Every other setting, its order and formatting are kept; the file is written
atomically; running init again changes nothing. A malformed settings file is refused untouched.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error { return runInit(a, o) },
	}
	c.Flags().BoolVar(&o.User, "user", false, "register the hooks in the user's settings (all projects)")
	c.Flags().StringVar(&o.Dir, "dir", "", "the project directory (default: the current one)")
	c.Flags().StringVar(&o.Command, "command", "", "the hook command to register (default: this binary + \" hook\")")
	c.Flags().BoolVar(&o.PreCommit, "pre-commit", false, "also install a git pre-commit hook that refuses ledgers and handoffs holding secrets")
	return c
}

func runInit(a *app, o setupOptions) error {
	p, err := a.setupProject(o)
	if err != nil {
		return err
	}
	settings, err := a.settingsPath(o, p)
	if err != nil {
		return err
	}
	command := o.Command
	if command == "" {
		command = hookCommand()
	}
	changed, err := editSettings(settings, func(old []byte) ([]byte, bool, error) {
		return install.Add(old, install.Hook{Command: command, Timeouts: map[string]int{"SessionEnd": sessionEndTimeout}})
	})
	if err != nil {
		return err
	}
	if changed {
		fmt.Fprintf(a.out, "registered the hooks in %s (command: %s)\n", settings, command)
	} else {
		fmt.Fprintf(a.out, "hooks already registered in %s\n", settings)
	}
	if o.User {
		return nil
	}
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
	fmt.Fprintf(a.out, "ledgers in %s, handoffs in %s\n", p.Rel(p.LedgerDir), p.Rel(p.HandoffDir))
	if err := registerMergeDriver(a, p, commandPrefix(command)); err != nil {
		return err
	}
	if o.PreCommit {
		if err := installPreCommit(a, p, commandPrefix(command)); err != nil {
			return err
		}
	}
	if ls, _ := p.Ledgers(); len(ls) == 0 {
		fmt.Fprintln(a.out, "next: continuity new NAME --goal \"what this work stream is for\"")
	}
	return nil
}

// editSettings applies edit to a settings file atomically, creating it (and
// its directory) when missing.
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
			return nil, fmt.Errorf("%s:%w", path, err)
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
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := a.setupProject(o)
			if err != nil {
				return err
			}
			settings, err := a.settingsPath(o, p)
			if err != nil {
				return err
			}
			if !o.User {
				if err := unregisterMergeDriver(a, p); err != nil {
					return err
				}
				if err := removePreCommit(a, p); err != nil {
					return err
				}
			}
			if _, err := os.Stat(settings); errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(a.out, "no hooks to remove: %s does not exist\n", settings)
				return nil
			}
			changed, err := editSettings(settings, func(old []byte) ([]byte, bool, error) { return install.Remove(old) })
			if err != nil {
				return err
			}
			if changed {
				fmt.Fprintf(a.out, "removed the continuity hooks from %s (ledgers and handoffs are kept)\n", settings)
			} else {
				fmt.Fprintf(a.out, "no continuity hooks in %s\n", settings)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&o.User, "user", false, "remove them from the user's settings")
	c.Flags().StringVar(&o.Dir, "dir", "", "the project directory (default: the current one)")
	return c
}

// check is one line of doctor's report. A warning is OK (doctor still
// succeeds) with Warn set: something works worse than it could.
type check struct {
	Name string `json:"check"`
	OK   bool   `json:"ok"`
	Warn bool   `json:"warn,omitempty"`
	Info string `json:"info"`
	Fix  string `json:"fix,omitempty"`
}

func newDoctorCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the installation: binary, settings, hooks, directories, ledgers, last hook runs",
		Long: `Check that continuity works here: the binary the hooks call, the settings files, each hook
registered, the directories writable, the ledgers valid, and how the last hook runs ended.
Exits 1 and says what to fix when a check fails.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error { return runDoctor(a) },
	}
}

func runDoctor(a *app) error {
	p, err := a.project()
	if err != nil {
		return err
	}
	var checks []check
	add := func(name string, ok bool, info, fix string) {
		checks = append(checks, check{Name: name, OK: ok, Info: info, Fix: fix})
	}
	// Settings: the project's, its local file and the user's, merged by event.
	registered := map[string]string{}
	var files []string
	userPath, _ := a.settingsPath(setupOptions{User: true}, p)
	for _, path := range []string{filepath.Join(p.Root, ".claude", "settings.json"), filepath.Join(p.Root, ".claude", "settings.local.json"), userPath} {
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			add("settings", false, fmt.Sprintf("%s: %v", path, err), "make it readable")
			continue
		}
		st, err := install.Status(b)
		if err != nil {
			add("settings", false, fmt.Sprintf("%s: %v", path, err), "fix the JSON; Claude Code ignores a malformed settings file")
			continue
		}
		files = append(files, path)
		for ev, cmd := range st {
			if cmd != "" && registered[ev] == "" {
				registered[ev] = cmd
			}
		}
		if id := enabledPlugin(b); id != "" {
			for _, ev := range install.Events {
				if registered[ev] == "" {
					registered[ev] = "continuity hook (plugin " + id + ")"
				}
			}
		}
	}
	if len(files) > 0 {
		add("settings", true, strings.Join(files, ", "), "")
	}
	for _, ev := range install.Events {
		if registered[ev] != "" {
			add("hook "+ev, true, registered[ev], "")
		} else {
			add("hook "+ev, false, "not registered", "run `continuity init` (or `continuity init --user`)")
		}
	}
	// The binary the hooks call.
	seen := map[string]bool{}
	for _, ev := range install.Events {
		cmdline := registered[ev]
		if cmdline == "" || seen[cmdline] {
			continue
		}
		seen[cmdline] = true
		prog := programOf(cmdline)
		path, err := exec.LookPath(prog)
		if err != nil {
			add("binary", false, fmt.Sprintf("%s: %v", prog, err), "install continuity on PATH or run `continuity init` again from the binary you want")
			continue
		}
		out, err := exec.Command(path, "version").Output()
		if err != nil {
			add("binary", false, fmt.Sprintf("%s does not run: %v", path, err), "reinstall continuity")
			continue
		}
		add("binary", true, path+" ("+strings.TrimSpace(string(out))+")", "")
	}
	// Directories.
	for _, d := range []string{p.LedgerDir, p.HandoffDir} {
		switch st, err := os.Stat(d); {
		case err != nil:
			add("directory", false, p.Rel(d)+" is missing", "run `continuity init`")
		case !st.IsDir():
			add("directory", false, p.Rel(d)+" is not a directory", "move it away and run `continuity init`")
		case unix.Access(d, unix.W_OK) != nil:
			add("directory", false, p.Rel(d)+" is not writable", "fix its permissions")
		default:
			add("directory", true, p.Rel(d)+" writable", "")
		}
	}
	// The ledger merge driver: .gitattributes is committed, git config is
	// not, so a fresh clone names a driver it does not define, and git
	// then merges ledgers as plain text.
	if attr, defined, ok := mergeDriverStatus(p); ok && attr == mergeDriverName {
		if defined != "" {
			add("merge driver", true, mergeDriverName+": "+defined, "")
		} else {
			checks = append(checks, check{Name: "merge driver", OK: true, Warn: true,
				Info: fmt.Sprintf(".gitattributes sends ledgers to %s, but git config does not define merge.%s.driver (a fresh clone): git merges ledgers as plain text", mergeDriverName, mergeDriverName),
				Fix:  "run `continuity init` (it keeps what is already set up)"})
		}
	}
	// Ledgers.
	infos, _ := p.Ledgers()
	for _, li := range infos {
		src, err := safefile.Read(li.Path, p.WriteOptions())
		if err == nil {
			_, err = ledger.Parse(p.Rel(li.Path), src)
		}
		if err != nil {
			add("ledger", false, firstLine(err), "fix the ledger in your editor (continuity lint shows every problem)")
		} else {
			add("ledger", true, p.Rel(li.Path), "")
		}
	}
	if active, why, err := p.Active(a.getenv); err == nil {
		add("active ledger", true, active+" ("+why+")", "")
	}
	// Last hook runs.
	var runs []project.Run
	for _, s := range p.Sessions() {
		runs = append(runs, s.Runs...)
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].At.After(runs[j].At) })
	if len(runs) == 0 {
		add("hook runs", true, "none recorded yet", "")
	}
	for i, r := range runs {
		if i == 5 {
			break
		}
		info := fmt.Sprintf("%s at %s (%s): %s", r.Event, r.At.Format("2006-01-02 15:04:05Z"), r.Duration, r.Message)
		fix := ""
		if !r.OK {
			fix = "see the message; CONTINUITY_DEBUG=1 makes the hook say more"
		}
		add("last hook run", r.OK, info, fix)
	}
	failed := 0
	for _, c := range checks {
		if !c.OK {
			failed++
		}
	}
	if a.json {
		if err := writeJSON(a.out, checks); err != nil {
			return err
		}
	} else {
		for _, c := range checks {
			mark := "ok  "
			switch {
			case !c.OK:
				mark = "FAIL"
			case c.Warn:
				mark = "WARN"
			}
			fmt.Fprintf(a.out, "%s %-14s %s\n", mark, c.Name, c.Info)
			if c.Fix != "" {
				fmt.Fprintf(a.out, "     %-14s fix: %s\n", "", c.Fix)
			}
		}
	}
	if failed > 0 {
		fmt.Fprintf(a.errw, "continuity: doctor: %s failed\n", plural(failed, "check"))
		return errSilent
	}
	return nil
}

// mergeDriverStatus returns the merge attribute git applies to ledgers
// (from .gitattributes) and the driver command git config defines for it
// ("" when none); ok is false outside a git repository, for a ledger
// directory outside it, or when git cannot tell.
func mergeDriverStatus(p *project.Project) (attr, driver string, ok bool) {
	if p.Repo.Root == "" {
		return "", "", false
	}
	sample := p.Rel(filepath.Join(p.LedgerDir, "CONTINUITY_x.md"))
	if filepath.IsAbs(sample) {
		return "", "", false
	}
	cmd := exec.Command("git", "check-attr", "merge", "--", sample)
	cmd.Dir = p.Root
	out, err := cmd.Output()
	if err != nil {
		return "", "", false
	}
	// "PATH: merge: VALUE", VALUE "unspecified", "set", "unset" or a name.
	line := strings.TrimSpace(string(out))
	i := strings.LastIndex(line, ": merge: ")
	if i < 0 {
		return "", "", false
	}
	attr = line[i+len(": merge: "):]
	cmd = exec.Command("git", "config", "--get", "merge."+attr+".driver")
	cmd.Dir = p.Root
	out, err = cmd.Output()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return attr, strings.TrimSpace(string(out)), true
	case errors.As(err, &exit) && exit.ExitCode() == 1: // the key is not set
		return attr, "", true
	}
	return "", "", false
}

// enabledPlugin returns the id of the continuity plugin when a settings
// file enables it ("continuity@continuity": true), else "".
func enabledPlugin(settings []byte) string {
	var s struct {
		EnabledPlugins map[string]any `json:"enabledPlugins"`
	}
	if json.Unmarshal(settings, &s) != nil {
		return ""
	}
	for id, on := range s.EnabledPlugins {
		if b, ok := on.(bool); ok && b && strings.HasPrefix(id, "continuity@") {
			return id
		}
	}
	return ""
}

// programOf returns the program of a hook command line (its first word,
// unquoted).
func programOf(cmdline string) string {
	s := strings.TrimSpace(cmdline)
	if strings.HasPrefix(s, "'") {
		if i := strings.Index(s[1:], "' "); i >= 0 {
			return strings.ReplaceAll(s[1:i+1], `'\''`, "'")
		}
	}
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return s
}
