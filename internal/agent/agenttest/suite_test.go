package agenttest_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/agent/agenttest"
	"github.com/continuity-md/continuity/internal/agent/claude"
)

// broken is a host that breaks the contract in the ways the suite must
// catch: its answer at start drops the context, registering twice adds
// the hooks twice, and it loses the session's id.
type broken struct{ claude.Host }

func (broken) Encode(ev agent.Event, a agent.Answer) ([]byte, error) {
	return claude.Host{}.Encode(ev, agent.Answer{Message: a.Message})
}

func (broken) Register(settings []byte, command string) ([]byte, bool, error) {
	out, _, err := claude.Host{}.Register(settings, command)
	return append(out, ' '), true, err
}

func (broken) Decode(payload []byte) (agent.Event, error) {
	ev, err := claude.Host{}.Decode(payload)
	ev.SessionID = ""
	return ev, err
}

// suites are the runs TestSuiteFails makes in a child process, by name.
var suites = map[string]agenttest.Suite{
	"broken": {Host: broken{}, Payloads: "../../../testdata/payloads/*.json", Transcript: "../../../testdata/transcripts/tools-and-compact.jsonl"},
	// A host that has a session end but declares it cannot.
	"overdeclared": {Host: claude.Host{}, Payloads: "../../../testdata/payloads/*.json", Transcript: "../../../testdata/transcripts/tools-and-compact.jsonl",
		Cannot: agenttest.Cannot{End: true}},
	// A host whose recordings miss its compaction and that declares nothing.
	"unrecorded": {Host: claude.Host{}, Payloads: "../../../testdata/payloads/session-*.json", Transcript: "../../../testdata/transcripts/tools-and-compact.jsonl"},
}

// TestSuiteChild runs the suite named by AGENTTEST_CHILD (only as
// TestSuiteFails's child).
func TestSuiteChild(t *testing.T) {
	name := os.Getenv("AGENTTEST_CHILD")
	if name == "" {
		t.Skip("runs only as TestSuiteFails's child process")
	}
	suites[name].Run(t)
}

// TestSuiteFails: the suite fails a host that breaks the contract, with a
// message that says what broke, and passes the real one it was built from.
func TestSuiteFails(t *testing.T) {
	for name, want := range map[string][]string{
		"broken": {
			"Encode of a start: no string in",
			"Register twice: changed=true",
			`decoded with no SessionID`,
		},
		"overdeclared": {"declares Cannot{End: true}, but"},
		"unrecorded":   {"no recorded payload decodes to BeforeCompact: record the client's event, or declare Cannot{Compact: true}"},
	} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestSuiteChild$", "-test.v")
			cmd.Env = append(os.Environ(), "AGENTTEST_CHILD="+name)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			if err == nil {
				t.Fatalf("the suite passed the %s host:\n%s", name, out.String())
			}
			for _, w := range want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("the suite's failure does not say %q:\n%s", w, out.String())
				}
			}
		})
	}
	t.Run("real", func(t *testing.T) {
		agenttest.Suite{Host: claude.Host{}, Payloads: "../../../testdata/payloads/*.json", Transcript: "../../../testdata/transcripts/tools-and-compact.jsonl"}.Run(t)
	})
}
