package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/continuity-md/continuity/internal/install"
	"github.com/continuity-md/continuity/internal/project"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/ledger"
)

// doctorRepo checks what belongs to the repository, whichever agents run
// the hooks: its directories, the merge driver, the ledgers, the last runs.
func (a *app) doctorRepo(p *project.Project) []check {
	var checks []check
	add := func(name string, ok bool, info, fix string) {
		checks = append(checks, check{Name: name, OK: ok, Info: info, Fix: fix})
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
		case unix.Access(d, unix.W_OK) != nil:
			add("directory", false, p.Rel(d)+" is not writable", "fix its permissions")
		default:
			add("directory", true, p.Rel(d)+" writable", "")
		}
	}
	checks = append(checks, mergeDriverChecks(p)...)
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
	return checks
}

// mergeDriverChecks: .gitattributes is committed, git config is not, so a
// fresh clone names a driver it does not define, and git then merges
// ledgers as plain text; and a .gitattributes line left for a former
// ledger directory sends nothing to the driver.
func mergeDriverChecks(p *project.Project) []check {
	sample := ledgerSample(p)
	if p.Repo.Root == "" || sample == "" {
		return nil
	}
	var checks []check
	attr, driver, err := install.MergeDriverStatus(gitIn(p), sample)
	switch {
	case err != nil || attr != install.MergeDriver:
	case driver != "":
		checks = append(checks, check{Name: "merge driver", OK: true, Info: install.MergeDriver + ": " + driver})
	default:
		checks = append(checks, check{Name: "merge driver", OK: true, Warn: true,
			Info: fmt.Sprintf(".gitattributes sends ledgers to %s, but git config does not define merge.%s.driver (a fresh clone): git merges ledgers as plain text", install.MergeDriver, install.MergeDriver),
			Fix:  "run `continuity init` (it keeps what is already set up)"})
	}
	b, _ := readSettings(filepath.Join(p.Root, ".gitattributes"))
	want, _ := install.AttributesLine(p.Rel(p.LedgerDir))
	for _, l := range install.AttributesStatus(b) {
		if l != want {
			checks = append(checks, check{Name: "merge driver", OK: true, Warn: true,
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

// binaryCheck checks that the program of a hook command runs, and, when
// the command names its agent, that it understands --agent (an older
// continuity on PATH would fail every hook).
func binaryCheck(cmdline, agent string) check {
	prog := programOf(cmdline)
	path, err := exec.LookPath(prog)
	if err != nil {
		return check{Name: "binary", Info: fmt.Sprintf("%s: %v", prog, err), Fix: "install continuity on PATH or run `continuity init` again from the binary you want"}
	}
	out, err := exec.Command(path, "version").Output()
	if err != nil {
		return check{Name: "binary", Info: fmt.Sprintf("%s does not run: %v", path, err), Fix: "reinstall continuity"}
	}
	version := strings.TrimSpace(string(out))
	if install.Agent(cmdline) != "" {
		if err := exec.Command(path, "hook", "--agent", agent, "--help").Run(); err != nil {
			return check{Name: "binary", Info: fmt.Sprintf("%s (%s) does not know hook --agent: every hook fails", path, version), Fix: "install this version of continuity on PATH"}
		}
	}
	return check{Name: "binary", OK: true, Info: path + " (" + version + ")"}
}
