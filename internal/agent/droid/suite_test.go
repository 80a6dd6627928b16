package droid_test

import (
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/agent/agenttest"
	"github.com/continuity-md/continuity/internal/agent/droid"
)

// TestSuite runs the hosts' conformance suite on Droid's recorded testdata.
func TestSuite(t *testing.T) {
	agenttest.Suite{Host: droid.Host{}, Payloads: "testdata/droid/droid-payload-*.json", Transcript: "testdata/droid/droid-session.jsonl",
		Unrecorded: map[agent.Kind]string{agent.BeforeCompact: "PreCompact is registered but never fired in droid exec (copilot-droid-facts.md)"},
	}.Run(t)
}
