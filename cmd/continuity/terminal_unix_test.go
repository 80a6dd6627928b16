//go:build unix

package main

import (
	"io"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// TestShowStyledOnATerminal: show prints its styled view when its output
// is a real terminal (a pseudo-terminal here), though every command
// prints through the redacting writer, and the file's bytes when piped.
func TestShowStyledOnATerminal(t *testing.T) {
	dir := firstHourDir(t)
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm-256color")
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(ptmx)
		got <- string(b)
	}()
	t.Chdir(dir)
	var errw strings.Builder
	code := run([]string{"show", "billing"}, strings.NewReader(""), tty, &errw)
	tty.Close()
	out := <-got
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errw.String())
	}
	if !strings.Contains(out, "\x1b[") || strings.Contains(out, "session: billing") {
		t.Errorf("show on a terminal is not styled:\n%q", out)
	}
	_, piped, _ := runIn(t, dir, "show", "billing")
	if !strings.HasPrefix(piped, "---\nsession: billing\n") {
		t.Errorf("show piped: %q", piped)
	}
}
