package codex_test

import (
	"testing"

	"github.com/continuity-md/continuity/internal/agent/agenttest"
	"github.com/continuity-md/continuity/internal/agent/codex"
)

// TestSuite runs the hosts' conformance suite on Codex's recorded testdata.
func TestSuite(t *testing.T) {
	agenttest.Suite{Host: codex.Host{}, Payloads: "../../../testdata/codex/payloads/*.json", Transcript: "../../../testdata/codex/rollout.jsonl"}.Run(t)
}
