package gemini_test

import (
	"testing"

	"github.com/continuity-md/continuity/internal/agent/agenttest"
	"github.com/continuity-md/continuity/internal/agent/gemini"
)

// TestSuite runs the hosts' conformance suite on Gemini CLI's recorded testdata.
func TestSuite(t *testing.T) {
	agenttest.Suite{Host: gemini.Host{}, Payloads: "../../../testdata/gemini/payloads/*.json", Transcript: "../../../testdata/gemini/chat-tools-resume-compress.jsonl"}.Run(t)
}
