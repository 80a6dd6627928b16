package copilot_test

import (
	"testing"

	"github.com/continuity-md/continuity/internal/agent/agenttest"
	"github.com/continuity-md/continuity/internal/agent/copilot"
)

// TestSuite runs the hosts' conformance suite on Copilot CLI's recorded testdata.
func TestSuite(t *testing.T) {
	agenttest.Suite{Host: copilot.Host{}, Payloads: "testdata/copilot/copilot-payload-*.json", Transcript: "testdata/copilot/copilot-events.jsonl",
		Cannot: agenttest.Cannot{SharedSettings: true}, // its hooks file is continuity's own, in .github/hooks
	}.Run(t)
}
