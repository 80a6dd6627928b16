package hosts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryHostRunsTheSuite: each host on the list has its own package
// under internal/agent, named as on the command line, whose test runs the
// conformance suite; names and titles are each the host's own.
func TestEveryHostRunsTheSuite(t *testing.T) {
	names, titles := map[string]bool{}, map[string]bool{}
	for _, h := range All() {
		if names[h.Name()] || titles[h.Title()] {
			t.Errorf("%s (%s): a name or title twice on the list", h.Name(), h.Title())
		}
		names[h.Name()], titles[h.Title()] = true, true
		if TitleOf(h.Name()) != h.Title() {
			t.Errorf("TitleOf(%q) = %q, want %q", h.Name(), TitleOf(h.Name()), h.Title())
		}
		src, err := os.ReadFile(filepath.Join("..", h.Name(), "suite_test.go"))
		if err != nil || !strings.Contains(string(src), "agenttest.Suite{Host: "+h.Name()+".Host{}") {
			t.Errorf("%s: internal/agent/%s/suite_test.go must run agenttest.Suite{Host: %s.Host{}, …}.Run(t) (%v)", h.Name(), h.Name(), h.Name(), err)
		}
	}
	if TitleOf("nosuch") != "nosuch" {
		t.Errorf("an unknown agent's title is %q, want its name", TitleOf("nosuch"))
	}
}
