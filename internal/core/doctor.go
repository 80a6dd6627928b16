package core

// What `continuity doctor` checks: for each agent, its settings files, each
// hook registered and in the current form, and the binary the hooks run; for
// the repository, its directories, the merge driver, the ledgers and how the
// last hook runs ended.

import (
	"debug/buildinfo"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/install"
	"github.com/continuity-md/continuity/internal/localstate"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
)

// DoctorOptions say what doctor checks.
type DoctorOptions struct {
	Project *workspace.Workspace
	Getenv  func(string) string
	// Hosts are the hosts named (--agent); none checks every host of All
	// that has a registration, else the first of All.
	Hosts   []agent.Served
	All     []agent.Served
	Default string // the default host's name (suggested commands omit --agent for it)
}

// Doctor runs the checks.
func Doctor(o DoctorOptions) DoctorReport {
	var rep DoctorReport
	var checks []Check
	if len(o.Hosts) > 0 {
		for _, h := range o.Hosts {
			r, cs := checkHost(o, h)
			rep.Hosts, checks = append(rep.Hosts, r), append(checks, cs...)
		}
	} else {
		// Every host with a registration; the default when there is none.
		var all []HostReport
		var allChecks [][]Check
		for _, h := range o.All {
			r, cs := checkHost(o, h)
			for _, c := range r.Events {
				if c != "" {
					rep.Hosts, checks = append(rep.Hosts, r), append(checks, cs...)
					break
				}
			}
			all, allChecks = append(all, r), append(allChecks, cs)
		}
		if len(rep.Hosts) == 0 {
			rep.Hosts, checks = all[:1], allChecks[0]
		}
	}
	checks = append(checks, pathCheck(o))
	checks = append(checks, checkRepo(o)...)
	rep.OK, rep.Checks = true, checks
	for _, c := range checks {
		if !c.OK {
			rep.OK = false
		}
	}
	return rep
}

// Failed counts the checks that failed.
func (r DoctorReport) Failed() int {
	n := 0
	for _, c := range r.Checks {
		if !c.OK {
			n++
		}
	}
	return n
}

// Check is one line of doctor's report. A warning is OK (doctor still
// succeeds) with Warn set: something works worse than it could. A note is
// a fact the person must act on that continuity cannot check further.
type Check struct {
	Name  string `json:"check"`
	OK    bool   `json:"ok"`
	Warn  bool   `json:"warn,omitempty"`
	Note  bool   `json:"note,omitempty"`
	Info  string `json:"info"`
	Fix   string `json:"fix,omitempty"`
	Agent string `json:"agent,omitempty"` // the host a check is about; "" for the repository
}

// HostReport is what doctor found for one host (--json).
type HostReport struct {
	Agent    string            `json:"agent"`
	Title    string            `json:"title"`
	Settings []string          `json:"settings"` // the files read that exist
	Events   map[string]string `json:"events"`   // event → command, "" when not registered
	Stale    []staleForm       `json:"stale"`
	Notes    []string          `json:"notes"`
	Ignored  []string          `json:"ignored"` // why the agent will not run the hooks: each fails doctor
}

// staleForm names the registrations a settings file holds in an older
// form, in the host's words.
type staleForm struct {
	Settings      string   `json:"settings"`
	Registrations []string `json:"registrations"`
}

// DoctorReport is what doctor found (its --json output).
type DoctorReport struct {
	OK     bool         `json:"ok"`
	Hosts  []HostReport `json:"hosts"`
	Checks []Check      `json:"checks"`
}

// doctorHost checks one host's registration: its settings files (merged by
// event, the most specific first), each event, the form of the commands,
// the host's notes, and the binary the commands run.
func checkHost(o DoctorOptions, h agent.Served) (HostReport, []Check) {
	p := o.Project
	r := HostReport{Agent: h.Name(), Title: h.Title(), Events: map[string]string{}, Settings: []string{}, Stale: []staleForm{}, Notes: []string{}, Ignored: []string{}}
	var checks []Check
	add := func(c Check) {
		c.Agent = h.Name()
		checks = append(checks, c)
	}
	var files []string
	if h.SettingsFiles != nil {
		files, _ = h.SettingsFiles(o.Getenv, p.Root)
	} else {
		for _, sc := range []agent.Scope{agent.Project, agent.User} {
			if f, err := h.SettingsPath(o.Getenv, p.Root, sc); err == nil {
				files = append(files, f)
			}
		}
	}
	var order []string // events in the order the host reports them
	broken := ""       // a settings file that does not parse
	var stale []Check
	for _, path := range files {
		b, err := safefile.Read(path, safefile.Options{MaxSize: MaxSettings})
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			add(Check{Name: "settings", Info: fmt.Sprintf("%s: %v", path, err), Fix: "make it readable"})
			continue
		}
		st, err := h.Registered(b)
		if err != nil {
			add(Check{Name: "settings", Info: SettingsError(path, err).Error(), Fix: "fix the JSON; " + h.Title() + " ignores a malformed settings file"})
			broken = path
			continue
		}
		r.Settings = append(r.Settings, path)
		if order == nil {
			for ev := range st.Events {
				order = append(order, ev)
			}
		}
		for ev, c := range st.Events {
			if c != "" && r.Events[ev] == "" {
				r.Events[ev] = c
			}
		}
		if len(st.Stale) > 0 {
			r.Stale = append(r.Stale, staleForm{path, st.Stale})
			stale = append(stale, staleCheck(o, h, path, st.Stale))
		}
		r.Notes = append(r.Notes, st.Notes...)
		r.Ignored = append(r.Ignored, st.Ignored...)
	}
	if len(r.Settings) > 0 {
		add(Check{Name: "settings", OK: true, Info: strings.Join(r.Settings, ", ")})
	}
	if order == nil {
		st, _ := h.Registered(nil)
		for ev := range st.Events {
			order = append(order, ev)
		}
	}
	sortEvents(h, order)
	registered := false
	for _, c := range r.Events {
		registered = registered || c != ""
	}
	if gone := Uninstalled(p); !registered && !gone.IsZero() {
		// Not a first install: say what happened rather than suggest one.
		for _, ev := range order {
			r.Events[ev] = ""
		}
		add(Check{Name: "hooks", OK: true, Note: true, Info: "uninstalled from this repository on " + gone.Format("2006-01-02 15:04Z") + " (continuity uninstall): no hooks registered",
			Fix: fmt.Sprintf("`continuity init%s` installs them again", AgentArg(h, o.Default))})
		return r, checks
	}
	for _, ev := range order {
		if c := r.Events[ev]; c != "" {
			add(Check{Name: "hook " + ev, OK: true, Info: c})
		} else {
			r.Events[ev] = ""
			fix := fmt.Sprintf("run `continuity init%[1]s` (or `continuity init%[1]s --user`)", AgentArg(h, o.Default))
			if broken != "" {
				fix = "fix " + broken + " first (init refuses to edit it)"
			}
			add(Check{Name: "hook " + ev, Info: "not registered", Fix: fix})
		}
	}
	for _, c := range stale {
		add(c)
	}
	if h.TrustNotes != nil && len(r.Settings) > 0 {
		ignored, notes := h.TrustNotes(o.Getenv, p.Root)
		r.Ignored, r.Notes = append(r.Ignored, ignored...), append(r.Notes, notes...)
	}
	for _, n := range r.Ignored {
		// The hooks are registered, but the agent will not run them: the
		// first session would silently run none.
		add(Check{Name: "hooks ignored", Info: n, Fix: "do what it says, then run `continuity doctor` again"})
	}
	for _, n := range r.Notes {
		add(Check{Name: "hooks", OK: true, Note: true, Info: n})
	}
	seen := map[string]bool{} // by program: a host's commands may differ only in their arguments
	for _, ev := range order {
		if c := r.Events[ev]; c != "" && !seen[programOf(c)] {
			seen[programOf(c)] = true
			add(binaryCheck(c, h.Name()))
		}
	}
	return r, checks
}

// staleCheck warns that settings file path holds registrations in an
// older form (the host's words for each), and says how to rewrite them.
func staleCheck(o DoctorOptions, h agent.Host, path string, stale []string) Check {
	p := o.Project
	fix := fmt.Sprintf("change the command there to `continuity hook --agent %s`", h.Name())
	if f, err := h.SettingsPath(o.Getenv, p.Root, agent.Project); err == nil && f == path {
		fix = fmt.Sprintf("run `continuity init%s` again: it rewrites them in place", AgentArg(h, o.Default))
	} else if f, err := h.SettingsPath(o.Getenv, p.Root, agent.User); err == nil && f == path {
		fix = fmt.Sprintf("run `continuity init%s --user` again: it rewrites them in place", AgentArg(h, o.Default))
	}
	return Check{Name: "hook form", OK: true, Warn: true, Fix: fix,
		Info: fmt.Sprintf("%s: an older registration (it still works): %s", path, strings.Join(stale, "; "))}
}

// sortEvents orders a host's events as it registers them when it says
// (eventLister), else by name, so the report reads the same each run.
func sortEvents(h agent.Served, evs []string) {
	rank := map[string]int{}
	for i, ev := range h.HookEvents {
		rank[ev] = i + 1
	}
	sort.SliceStable(evs, func(i, j int) bool {
		ri, rj := rank[evs[i]], rank[evs[j]]
		if ri != rj && ri != 0 && rj != 0 {
			return ri < rj
		}
		if (ri == 0) != (rj == 0) {
			return ri != 0
		}
		return evs[i] < evs[j]
	})
}

// doctorRepo checks what belongs to the repository, whichever agents run
// the hooks: its directories, the merge driver, the ledgers, the last runs.
func checkRepo(o DoctorOptions) []Check {
	p := o.Project
	var checks []Check
	add := func(name string, ok bool, info, fix string) {
		checks = append(checks, Check{Name: name, OK: ok, Info: info, Fix: fix})
	}
	if p.Config.Disable {
		from := p.Config.From["disable"]
		fix := "run `continuity enable --user` to switch them back on"
		if strings.HasPrefix(from, p.Root+string(filepath.Separator)) {
			fix = "run `continuity enable` to switch them back on"
		} else if strings.HasPrefix(from, "$") {
			fix = "unset " + strings.TrimPrefix(from, "$") + " to switch them back on"
		}
		add("enabled", false, "continuity is disabled here (disable: true, from "+from+"): the hooks write no handoff and inject nothing", fix)
	}
	// Directories: a repository opts in with a ledger directory (continuity
	// new or init creates it); the handoff directory comes with the first
	// handoff, so its absence is no fault (plugin users never run init).
	for _, d := range []string{p.LedgerDir, p.HandoffDir} {
		switch st, err := os.Stat(d); {
		case err != nil && d == p.HandoffDir:
			add("directory", true, p.Rel(d)+" not created yet (the first handoff creates it)", "")
		case err != nil:
			why := "this repository has not opted in, and the hooks write nothing here"
			if p.OptedIn() { // by its configuration file
				why = "no work stream has started here yet"
			}
			add("directory", false, p.Rel(d)+" is missing: "+why,
				"run `continuity new NAME --goal \"what this work stream is for\"` to start a ledger")
		case !st.IsDir():
			add("directory", false, p.Rel(d)+" is not a directory", "move it away")
		case !safefile.Writable(d):
			add("directory", false, p.Rel(d)+" is not writable", "fix its permissions")
		default:
			add("directory", true, p.Rel(d)+" writable", "")
		}
	}
	checks = append(checks, mergeDriverChecks(p)...)
	checks = append(checks, configChecks(p)...)
	if c, ok := syncCheck(p, time.Now()); ok {
		checks = append(checks, c)
	}
	// Ledgers.
	infos, _ := p.Ledgers()
	for _, li := range infos {
		src, err := safefile.Read(li.Path, p.WriteOptions())
		if err == nil {
			_, err = compat.ParseLedger(p.Rel(li.Path), src)
		}
		if err != nil {
			add("ledger", false, firstLine(err), "fix the ledger in your editor (continuity lint shows every problem)")
		} else {
			add("ledger", true, p.Rel(li.Path), "")
		}
	}
	for _, places := range p.Spellings() {
		checks = append(checks, Check{Name: "stream names", OK: true, Warn: true,
			Info: "one work stream is spelled two ways (" + strings.Join(places, ", ") + "): continuity reads them as one stream",
			Fix:  "rename them to one spelling (git mv), lower case with '-', the form continuity writes"})
	}
	if active, why, err := p.Active(o.Getenv); err == nil {
		add("active ledger", true, active+" ("+why+")", "")
	}
	// Last hook runs.
	var runs []localstate.Run
	for _, s := range p.Local.Sessions() {
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
	return checks
}

// configChecks reports the configuration's problems, a refused redact
// allow entry among them: the rest of the configuration still applies.
func configChecks(p *workspace.Workspace) []Check {
	if p.Config == nil {
		return nil
	}
	var checks []Check
	for _, err := range p.Config.Problems {
		checks = append(checks, Check{Name: "config", Info: p.Redact(err.Error()), Fix: "fix the value; `continuity config` shows what applies"})
	}
	return checks
}

// mergeDriverChecks: .gitattributes is committed, git config is not, so a
// fresh clone names a driver it does not define, and git then merges
// ledgers as plain text; and a .gitattributes line left for a former
// ledger directory sends nothing to the driver.
func mergeDriverChecks(p *workspace.Workspace) []Check {
	sample := LedgerSample(p)
	if p.Repo.Root == "" || sample == "" {
		return nil
	}
	var checks []Check
	// What the working tree's .gitattributes says: a deletion not yet
	// committed is no driver to warn about (git would still read the
	// index's copy).
	b, _ := safefile.Read(filepath.Join(p.Root, ".gitattributes"), safefile.Options{MaxSize: MaxSettings})
	if len(install.AttributesStatus(b)) == 0 {
		return nil
	}
	attr, driver, err := install.MergeDriverStatus(Git(p), sample)
	switch {
	case err != nil || attr != install.MergeDriver:
	case driver != "":
		checks = append(checks, Check{Name: "merge driver", OK: true, Info: install.MergeDriver + ": " + driver})
	default:
		checks = append(checks, Check{Name: "merge driver", OK: true, Warn: true,
			Info: fmt.Sprintf(".gitattributes sends ledgers to %s, but git config does not define merge.%s.driver (a fresh clone): git merges ledgers as plain text", install.MergeDriver, install.MergeDriver),
			Fix:  "run `continuity init` (it keeps what is already set up)"})
	}
	want, _ := install.AttributesLine(p.Rel(p.LedgerDir))
	for _, l := range install.AttributesStatus(b) {
		if l != want {
			checks = append(checks, Check{Name: "merge driver", OK: true, Warn: true,
				Info: fmt.Sprintf(".gitattributes has %q, but the ledgers are in %s", l, p.Rel(p.LedgerDir)),
				Fix:  "run `continuity init`: it rewrites the line"})
		}
	}
	return checks
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

// continuityModule is the module path a build of continuity records.
const continuityModule = "github.com/continuity-md/continuity"

// binaryCheck inspects the program of a hook command without running it:
// a repository's settings may name any program (a clone's included), and
// doctor inspects. The program is continuity when it is this very binary,
// or a build of continuity's module, as its Go build information says;
// anything else is reported, never run.
func binaryCheck(cmdline, agent string) Check {
	prog := programOf(cmdline)
	path, err := exec.LookPath(prog)
	if err != nil {
		return Check{Name: "binary", Info: fmt.Sprintf("%s: %v", prog, err), Fix: "install continuity on PATH or run `continuity init` again from the binary you want"}
	}
	if self, err := os.Executable(); err == nil && isSameFile(self, path) {
		return Check{Name: "binary", OK: true, Info: path + " (this continuity)"}
	}
	fi, err := os.Stat(path)
	var info *buildinfo.BuildInfo
	if err == nil && fi.Mode().IsRegular() {
		info, err = buildinfo.ReadFile(path)
	}
	if err != nil || info == nil || info.Main.Path != continuityModule {
		return Check{Name: "binary", Info: path + ": not a continuity binary (doctor does not run it)",
			Fix: "make the hook command run continuity: `continuity init --agent " + agent + "` writes it"}
	}
	return Check{Name: "binary", OK: true, Info: fmt.Sprintf("%s (continuity %s, another build than this doctor's; not run)", path, info.Main.Version)}
}

func isSameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
