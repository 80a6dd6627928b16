package handoff

import (
	"strings"
	"testing"
)

// TestRenderCommandsAsTheyRan: a command's runs of spaces are its own
// (quoted arguments, printf formats): the rendered handoff keeps them.
func TestRenderCommandsAsTheyRan(t *testing.T) {
	cmd := `printf '%s  %s\n'   a   b > evict.log`
	out, err := Render(&Handoff{Meta: Meta{Stream: "s"}, Commands: []string{cmd, "go test\n./..."}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), cmd) {
		t.Errorf("the command was altered:\n%s", out)
	}
	if !strings.Contains(string(out), "go test ./...") {
		t.Errorf("a line break in a command is not folded:\n%s", out)
	}
}
