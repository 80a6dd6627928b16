package claude_test

import (
	"testing"

	"github.com/continuity-md/continuity/internal/agent/agenttest"
	"github.com/continuity-md/continuity/internal/agent/claude"
)

// TestSuite runs the hosts' conformance suite on Claude Code's recorded testdata.
func TestSuite(t *testing.T) {
	agenttest.Suite{Host: claude.Host{}, Payloads: "../../../testdata/payloads/*.json", Transcript: "../../../testdata/transcripts/tools-and-compact.jsonl"}.Run(t)
}
