package core

import (
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/agent/claude"
	"github.com/continuity-md/continuity/internal/agent/codex"
	"github.com/continuity-md/continuity/internal/testkit"
)

var all = []agent.Served{agent.Serve(claude.Host{}), agent.Serve(codex.Host{})}

func checks(rep DoctorReport, name string) []Check {
	var out []Check
	for _, c := range rep.Checks {
		if c.Name == name || strings.HasPrefix(c.Name, name+" ") && c.Agent != "" {
			out = append(out, c)
		}
	}
	return out
}

// TestNothingRegistered: with no hooks anywhere, doctor checks the default
// host, fails each of its hooks with the command that fixes it, and says
// the repository has not opted in.
func TestNothingRegistered(t *testing.T) {
	r := testkit.New(t, false)
	rep := Doctor(DoctorOptions{Project: openProject(r), Getenv: r.Getenv, All: all, Default: "claude"})
	if rep.OK || rep.Failed() == 0 {
		t.Fatalf("nothing registered, yet OK: %+v", rep)
	}
	if len(rep.Hosts) != 1 || rep.Hosts[0].Agent != "claude" {
		t.Fatalf("hosts %+v, want the default only", rep.Hosts)
	}
	hooks := checks(rep, "hook")
	if len(hooks) == 0 {
		t.Fatal("no hook checks")
	}
	for _, c := range hooks {
		if c.OK || c.Agent != "claude" || !strings.Contains(c.Fix, "run `continuity init`") {
			t.Errorf("hook check %+v", c)
		}
	}
	dirs := checks(rep, "directory")
	if len(dirs) != 2 || dirs[0].OK || !strings.Contains(dirs[0].Info, "has not opted in") || !dirs[1].OK {
		t.Errorf("directory checks %+v", dirs)
	}
}

// TestRegisteredHostsOnly: without --agent, doctor checks every host with a
// registration, and a suggested fix names a host that is not the default.
func TestRegisteredHostsOnly(t *testing.T) {
	r := testkit.New(t, false)
	if _, err := Init(SetupOptions{Dir: r.Dir, Getenv: r.Getenv, Hosts: []agent.Served{agent.Serve(codex.Host{})}, All: all, Program: "continuity"}); err != nil {
		t.Fatal(err)
	}
	rep := Doctor(DoctorOptions{Project: openProject(r), Getenv: r.Getenv, All: all, Default: "claude"})
	if len(rep.Hosts) != 1 || rep.Hosts[0].Agent != "codex" {
		t.Fatalf("hosts %+v, want codex only", rep.Hosts)
	}
	for _, c := range checks(rep, "hook") {
		if !c.OK || !strings.Contains(c.Info, "hook --agent codex") {
			t.Errorf("hook check %+v", c)
		}
	}
	if md := checks(rep, "merge driver"); len(md) != 1 || !md[0].OK || md[0].Warn {
		t.Errorf("merge driver checks %+v", md)
	}
	// Named, a host without hooks is checked and fails.
	rep = Doctor(DoctorOptions{Project: openProject(r), Getenv: r.Getenv, Hosts: []agent.Served{agent.Serve(claude.Host{})}, All: all, Default: "claude"})
	if rep.OK || rep.Hosts[0].Agent != "claude" {
		t.Errorf("--agent claude: %+v", rep.Hosts)
	}
}

func TestProgramOf(t *testing.T) {
	for in, want := range map[string]string{
		"continuity hook --agent claude":          "continuity",
		"'/my dir/continuity' hook --agent codex": "/my dir/continuity",
		`'/it'\''s/continuity' hook`:              "/it's/continuity",
		"  /bin/continuity hook":                  "/bin/continuity",
	} {
		if got := programOf(in); got != want {
			t.Errorf("programOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSortEvents(t *testing.T) {
	evs := []string{"Zeta", "SessionEnd", "PreCompact", "SessionStart", "Alpha"}
	sortEvents(agent.Serve(claude.Host{}), evs)
	if evs[len(evs)-2] != "Alpha" || evs[len(evs)-1] != "Zeta" {
		t.Errorf("unknown events not last by name: %v", evs)
	}
}
