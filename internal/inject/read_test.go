package inject

import (
	"fmt"
	"strings"
	"testing"
)

// TestRenderFilesRead: the handoff's working set is named after the
// ledger's files, the most used first; when room is short it is cut from
// its end, before the files the session changed.
func TestRenderFilesRead(t *testing.T) {
	in := input(bigLedger(2), "compact", 9000)
	for i := range 30 {
		in.Handoff.State.Read = append(in.Handoff.State.Read, fmt.Sprintf("src/read%02d.go", i))
	}
	out := Render(in)
	if !strings.Contains(out, sayReadTitle()+":\n- src/read00.go\n- src/read01.go") || !strings.Contains(out, "- src/read29.go") {
		t.Errorf("the working set is not named in order:\n%s", out)
	}
	if strings.Index(out, "Files:\n- src/pkg0/file.go") > strings.Index(out, sayReadTitle()) {
		t.Errorf("the working set comes before the files changed:\n%s", out)
	}
	small := input(bigLedger(20), "compact", 2400)
	small.Handoff.State.Read = in.Handoff.State.Read
	out = Render(small)
	if strings.Contains(out, "src/read29.go") || strings.Contains(out, "src/read00.go") && !strings.Contains(out, "src/pkg19/file.go") {
		t.Errorf("at a small budget the working set is not cut first:\n%s", out)
	}
}
