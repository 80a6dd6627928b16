package claude

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/transcript"
	"github.com/continuity-md/continuity/internal/transcript/transcripttest"
)

// TestResumedStepByStep: the recorded transcripts read by a hook at every
// cut in turn (after a record, inside one, just before its line break),
// each read resuming from the one before, and from each cut in two long
// strides: at each point, the facts of one whole read of what is there
// (the hosts' shared check; TestResumedReadEqualsWholeRead covers the
// subagents' files).
func TestResumedStepByStep(t *testing.T) {
	for _, rec := range recordings {
		data := loadSession(t, rec.name)[rec.name]
		read := func(paths []string, cp *transcript.Checkpoint) (*handoff.Facts, *transcript.Checkpoint, error) {
			return readTranscriptFrom(paths[0], rec.root, nil, cp, time.Time{})
		}
		transcripttest.ResumedEqualsWhole(t, filepath.Base(rec.name), data, transcripttest.Cuts(data), read)
	}
}
