package install

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// fakeGit is git config and check-attr over maps, recording each command.
type fakeGit struct {
	version     string
	local, user map[string]string
	attr        string
	ran         []string
}

func (g *fakeGit) run(args ...string) ([]byte, error) {
	g.ran = append(g.ran, strings.Join(args, " "))
	list := func(ms ...map[string]string) []byte {
		var b strings.Builder
		for _, m := range ms {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				b.WriteString(k + "\n" + m[k] + "\x00")
			}
		}
		return []byte(b.String())
	}
	switch {
	case len(args) == 1 && args[0] == "version":
		return []byte(g.version + "\n"), nil
	case strings.Join(args, " ") == "config --local --list -z":
		return list(g.local), nil
	case strings.Join(args, " ") == "config --list -z":
		return list(g.user, g.local), nil
	case len(args) == 4 && args[0] == "config" && args[1] == "--local" && args[2] == "--remove-section":
		n := 0
		for k := range g.local {
			if strings.HasPrefix(k, args[3]+".") {
				delete(g.local, k)
				n++
			}
		}
		if n == 0 {
			return nil, errors.New("fatal: no such section")
		}
		return nil, nil
	case len(args) == 4 && args[0] == "config" && args[1] == "--local":
		g.local[args[2]] = args[3]
		return nil, nil
	case len(args) == 4 && args[0] == "check-attr":
		return []byte(args[3] + ": merge: " + g.attr + "\n"), nil
	}
	return nil, fmt.Errorf("fake git: unexpected %q", args)
}

func TestLabels(t *testing.T) {
	tests := map[string]bool{
		"git version 2.39.5":                 false,
		"git version 2.43.0":                 false,
		"git version 2.44.0":                 true,
		"git version 2.47.1.windows.1":       true,
		"git version 2.39.3 (Apple Git-145)": false,
		"git version 3.0.0":                  true,
		"":                                   false,
		"hub version 2.50":                   false,
		"git version x.y":                    false,
	}
	for v, want := range tests {
		if got := Labels(v); got != want {
			t.Errorf("Labels(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestMergeDriver: add → add again → status → remove → remove again, for
// both forms of the driver line, on git config held in maps.
func TestMergeDriver(t *testing.T) {
	for _, labels := range []bool{false, true} {
		t.Run(fmt.Sprint("labels=", labels), func(t *testing.T) {
			g := &fakeGit{local: map[string]string{"core.bare": "false"}, user: map[string]string{}, attr: MergeDriver}
			cmd := DriverCommand("continuity", labels)
			want := "continuity merge-ledger %O %A %B %P"
			if labels {
				want = "continuity merge-ledger --base-label %S --ours-label %X --theirs-label %Y %O %A %B %P"
			}
			if cmd != want {
				t.Fatalf("DriverCommand = %q, want %q", cmd, want)
			}
			if changed, err := AddMergeDriver(g.run, cmd); err != nil || !changed {
				t.Fatalf("AddMergeDriver = %v, %v", changed, err)
			}
			if g.local["merge.continuity-ledger.driver"] != cmd || g.local["merge.continuity-ledger.name"] == "" {
				t.Errorf("config after add: %v", g.local)
			}
			g.ran = nil
			if changed, err := AddMergeDriver(g.run, cmd); err != nil || changed || len(g.ran) != 1 {
				t.Errorf("AddMergeDriver twice = %v, %v, ran %q; want nothing set", changed, err, g.ran)
			}
			attr, driver, err := MergeDriverStatus(g.run, "thoughts/ledgers/CONTINUITY_x.md")
			if err != nil || attr != MergeDriver || driver != cmd {
				t.Errorf("MergeDriverStatus = %q, %q, %v", attr, driver, err)
			}
			if changed, err := RemoveMergeDriver(g.run); err != nil || !changed {
				t.Errorf("RemoveMergeDriver = %v, %v", changed, err)
			}
			if len(g.local) != 1 {
				t.Errorf("config after remove: %v, want core.bare only", g.local)
			}
			if changed, err := RemoveMergeDriver(g.run); err != nil || changed {
				t.Errorf("RemoveMergeDriver twice = %v, %v; want no change", changed, err)
			}
			if _, driver, _ := MergeDriverStatus(g.run, "x"); driver != "" {
				t.Errorf("after remove the driver is %q", driver)
			}
		})
	}
}

// TestMergeDriverUpdate: a driver line of another form or program is
// rewritten; the name, already right, is not set again.
func TestMergeDriverUpdate(t *testing.T) {
	g := &fakeGit{local: map[string]string{
		"merge.continuity-ledger.name":   "continuity ledger merge",
		"merge.continuity-ledger.driver": "/old/continuity merge-ledger %O %A %B %P",
	}, user: map[string]string{}}
	cmd := DriverCommand("continuity", true)
	if changed, err := AddMergeDriver(g.run, cmd); err != nil || !changed {
		t.Fatalf("AddMergeDriver = %v, %v", changed, err)
	}
	if got := strings.Join(g.ran, "; "); got != "config --local --list -z; config --local merge.continuity-ledger.driver "+cmd {
		t.Errorf("ran %q", got)
	}
}

func TestMergeDriverStatusAttributes(t *testing.T) {
	for _, attr := range []string{"unspecified", "set", "unset"} {
		g := &fakeGit{attr: attr, local: map[string]string{}, user: map[string]string{}}
		a, d, err := MergeDriverStatus(g.run, "x.md")
		if err != nil || a != attr || d != "" || len(g.ran) != 1 {
			t.Errorf("MergeDriverStatus with %s = %q, %q, %v (ran %q)", attr, a, d, err, g.ran)
		}
	}
	// A driver defined only in the user's config counts.
	g := &fakeGit{attr: MergeDriver, local: map[string]string{}, user: map[string]string{"merge.continuity-ledger.driver": "x"}}
	if _, d, _ := MergeDriverStatus(g.run, "x.md"); d != "x" {
		t.Errorf("driver from the user's config = %q", d)
	}
}
