package main

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/host"
	"github.com/continuity-md/continuity/internal/project"
)

// check is one line of doctor's report. A warning is OK (doctor still
// succeeds) with Warn set: something works worse than it could. A note is
// a fact the person must act on that continuity cannot check further.
type check struct {
	Name  string `json:"check"`
	OK    bool   `json:"ok"`
	Warn  bool   `json:"warn,omitempty"`
	Note  bool   `json:"note,omitempty"`
	Info  string `json:"info"`
	Fix   string `json:"fix,omitempty"`
	Agent string `json:"agent,omitempty"` // the host a check is about; "" for the repository
}

// hostReport is what doctor found for one host (--json).
type hostReport struct {
	Agent    string            `json:"agent"`
	Title    string            `json:"title"`
	Settings []string          `json:"settings"` // the files read that exist
	Events   map[string]string `json:"events"`   // event → command, "" when not registered
	Stale    []staleForm       `json:"stale"`
	Notes    []string          `json:"notes"`
}

// staleForm names the registrations a settings file holds in an older
// form, in the host's words.
type staleForm struct {
	Settings      string   `json:"settings"`
	Registrations []string `json:"registrations"`
}

// doctorReport is doctor's --json output.
type doctorReport struct {
	OK     bool         `json:"ok"`
	Hosts  []hostReport `json:"hosts"`
	Checks []check      `json:"checks"`
}

// settingsFiler is a host that reads more settings files than its project
// and user ones (a local, uncommitted one), most specific first.
type settingsFiler interface {
	SettingsFiles(getenv func(string) string, root string) ([]string, error)
}

// eventLister is a host that says in which order it registers its events.
type eventLister interface{ HookEvents() []string }

// trustNoter is a host whose trust in a project lives outside its hooks
// settings (Gemini CLI's trusted folders): what the person must do, if
// anything, for the project's hooks to run.
type trustNoter interface {
	TrustNotes(getenv func(string) string, root string) []string
}

func newDoctorCmd(a *app) *cobra.Command {
	var o setupOptions
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check the installation: binary, settings, hooks, directories, ledgers, last hook runs",
		Long: `Check that continuity works here, for each agent named by --agent (default: every agent whose
hooks are registered, or claude when none is): the settings files, each hook registered and in
the current form, the binary the hooks call; then the directories, the ledgers, the merge driver
and how the last hook runs ended. Exits 1 and says what to fix when a check fails.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error { return runDoctor(a, o) },
	}
	agentFlag(c, &o, "the agents to check")
	return c
}

func runDoctor(a *app, o setupOptions) error {
	p, err := a.project()
	if err != nil {
		return err
	}
	var rep doctorReport
	var checks []check
	if len(o.Agents) > 0 {
		hs, err := selectHosts(o.Agents)
		if err != nil {
			return err
		}
		for _, h := range hs {
			r, cs := a.doctorHost(p, h)
			rep.Hosts, checks = append(rep.Hosts, r), append(checks, cs...)
		}
	} else {
		// Every host with a registration; the default when there is none.
		var all []hostReport
		var allChecks [][]check
		for _, h := range hosts {
			r, cs := a.doctorHost(p, h)
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
	checks = append(checks, a.doctorRepo(p)...)
	rep.OK, rep.Checks = true, checks
	failed := 0
	for _, c := range checks {
		if !c.OK {
			failed++
			rep.OK = false
		}
	}
	if a.json {
		if err := writeJSON(a.out, rep); err != nil {
			return err
		}
	} else {
		printChecks(a, rep)
	}
	if failed > 0 {
		fmt.Fprintf(a.errw, "continuity: doctor: %s failed\n", plural(failed, "check"))
		return errSilent
	}
	return nil
}

// printChecks prints the checks in aligned columns, each host's under its
// name.
func printChecks(a *app, rep doctorReport) {
	width := 0
	for _, c := range rep.Checks {
		width = max(width, len(c.Name))
	}
	agent := "-"
	for _, c := range rep.Checks {
		if c.Agent != agent {
			agent = c.Agent
			for _, h := range rep.Hosts {
				if h.Agent == agent {
					fmt.Fprintf(a.out, "%s (--agent %s)\n", h.Title, h.Agent)
				}
			}
			if agent == "" {
				fmt.Fprintln(a.out, "this repository")
			}
		}
		mark := "ok  "
		switch {
		case !c.OK:
			mark = "FAIL"
		case c.Note:
			mark = "NOTE"
		case c.Warn:
			mark = "WARN"
		}
		fmt.Fprintf(a.out, "%s %-*s %s\n", mark, width, c.Name, c.Info)
		if c.Fix != "" {
			fmt.Fprintf(a.out, "     %-*s fix: %s\n", width, "", c.Fix)
		}
	}
}

// doctorHost checks one host's registration: its settings files (merged by
// event, the most specific first), each event, the form of the commands,
// the host's notes, and the binary the commands run.
func (a *app) doctorHost(p *project.Project, h host.Host) (hostReport, []check) {
	r := hostReport{Agent: h.Name(), Title: h.Title(), Events: map[string]string{}, Settings: []string{}, Stale: []staleForm{}, Notes: []string{}}
	var checks []check
	add := func(c check) {
		c.Agent = h.Name()
		checks = append(checks, c)
	}
	var files []string
	if sf, ok := h.(settingsFiler); ok {
		files, _ = sf.SettingsFiles(a.getenv, p.Root)
	} else {
		for _, sc := range []host.Scope{host.Project, host.User} {
			if f, err := h.SettingsPath(a.getenv, p.Root, sc); err == nil {
				files = append(files, f)
			}
		}
	}
	var order []string // events in the order the host reports them
	broken := ""       // a settings file that does not parse
	var stale []check
	for _, path := range files {
		b, err := readSettings(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			add(check{Name: "settings", Info: fmt.Sprintf("%s: %v", path, err), Fix: "make it readable"})
			continue
		}
		st, err := h.Registered(b)
		if err != nil {
			add(check{Name: "settings", Info: settingsError(path, err).Error(), Fix: "fix the JSON; " + h.Title() + " ignores a malformed settings file"})
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
			stale = append(stale, a.staleCheck(p, h, path, st.Stale))
		}
		r.Notes = append(r.Notes, st.Notes...)
	}
	if len(r.Settings) > 0 {
		add(check{Name: "settings", OK: true, Info: strings.Join(r.Settings, ", ")})
	}
	if order == nil {
		st, _ := h.Registered(nil)
		for ev := range st.Events {
			order = append(order, ev)
		}
	}
	sortEvents(h, order)
	for _, ev := range order {
		if c := r.Events[ev]; c != "" {
			add(check{Name: "hook " + ev, OK: true, Info: c})
		} else {
			r.Events[ev] = ""
			fix := fmt.Sprintf("run `continuity init%[1]s` (or `continuity init%[1]s --user`)", agentArg(h))
			if broken != "" {
				fix = "fix " + broken + " first (init refuses to edit it)"
			}
			add(check{Name: "hook " + ev, Info: "not registered", Fix: fix})
		}
	}
	for _, c := range stale {
		add(c)
	}
	if tn, ok := h.(trustNoter); ok && len(r.Settings) > 0 {
		r.Notes = append(r.Notes, tn.TrustNotes(a.getenv, p.Root)...)
	}
	for _, n := range r.Notes {
		add(check{Name: "note", OK: true, Note: true, Info: n})
	}
	seen := map[string]bool{}
	for _, ev := range order {
		if c := r.Events[ev]; c != "" && !seen[c] {
			seen[c] = true
			add(binaryCheck(c, h.Name()))
		}
	}
	return r, checks
}

// staleCheck warns that settings file path holds registrations in an
// older form (the host's words for each), and says how to rewrite them.
func (a *app) staleCheck(p *project.Project, h host.Host, path string, stale []string) check {
	fix := fmt.Sprintf("change the command there to `continuity hook --agent %s`", h.Name())
	if f, err := h.SettingsPath(a.getenv, p.Root, host.Project); err == nil && f == path {
		fix = fmt.Sprintf("run `continuity init%s` again: it rewrites them in place", agentArg(h))
	} else if f, err := h.SettingsPath(a.getenv, p.Root, host.User); err == nil && f == path {
		fix = fmt.Sprintf("run `continuity init%s --user` again: it rewrites them in place", agentArg(h))
	}
	return check{Name: "hook form", OK: true, Warn: true, Fix: fix,
		Info: fmt.Sprintf("%s: an older registration (it still works): %s", path, strings.Join(stale, "; "))}
}

// sortEvents orders a host's events as it registers them when it says
// (eventLister), else by name, so the report reads the same each run.
func sortEvents(h host.Host, evs []string) {
	rank := map[string]int{}
	if l, ok := h.(eventLister); ok {
		for i, ev := range l.HookEvents() {
			rank[ev] = i + 1
		}
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
