package e2e

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDroidSession: with the real Droid, `continuity init --agent droid`
// registers hooks Droid runs; the ledger reaches the first model request
// verbatim; the session's end writes a handoff labelled droid with its
// files, commands and failing command; a session forked from it (source
// resume) gets goal and now again.
func TestDroidSession(t *testing.T) {
	dp := newDroidProject(t)
	dp.write("app.txt", "line one\nline two\n")
	dp.run("git", "add", "app.txt")
	dp.run("git", "commit", "-q", "-m", "app")
	dp.run(dp.bin, "init", "--agent", "droid")
	if s := dp.read(".factory/settings.json"); !strings.Contains(s, "hook --agent droid") {
		t.Fatalf("init --agent droid registered nothing:\n%s", s)
	}
	dp.run(dp.bin, "new", workStream, "--goal", copilotGoal)
	dp.run(dp.bin, "now", copilotNow)
	dp.run("git", "add", "-A")
	dp.run("git", "commit", "-q", "-m", "Register continuity for Droid")

	r := dp.runDroid([]ChatResponse{
		ChatCall("Create", map[string]any{"file_path": filepath.Join(dp.dir, "made.txt"), "content": "made by Create\n"}),
		ChatCall("Execute", map[string]any{"command": "mkdir /nonexistent-e2e-dir/sub", "summary": "make a dir", "riskLevel": "low", "riskLevelReason": "fails harmlessly"}),
		ChatCall("Edit", map[string]any{"file_path": filepath.Join(dp.dir, "app.txt"), "old_str": "line two", "new_str": "line two (edited)"}),
		ChatText("Made made.txt and edited app.txt."),
	}, "exec", "--auto", "high", "make made.txt and edit app.txt")
	first := turns(r.Requests)
	if len(first) == 0 {
		t.Fatalf("no model request; stdout: %s", r.Stdout)
	}
	var ledger string
	for _, u := range userTexts(first[0]) {
		if strings.Contains(u, copilotGoal) {
			ledger = u
		}
	}
	if !strings.HasPrefix(ledger, "continuity") || strings.Contains(ledger, "hookSpecificOutput") {
		t.Fatalf("the ledger did not reach the first request verbatim: %q", userTexts(first[0]))
	}
	names, _ := dp.handoffs()
	end := dp.handoff(names, "_session-end_")
	for _, want := range []string{"made.txt", "app.txt"} {
		if !strings.Contains(end["Files touched"], want) {
			t.Errorf("files lack %s:\n%s", want, end["Files touched"])
		}
	}
	if !strings.Contains(end["Commands"], "mkdir /nonexistent-e2e-dir/sub") || !strings.Contains(end["Errors"], "`mkdir /nonexistent-e2e-dir/sub`: exit 1") {
		t.Errorf("commands %q, errors %q", end["Commands"], end["Errors"])
	}
	head := dp.read(filepath.Join("thoughts", "shared", "handoffs", workStream, names[len(names)-1]))
	if !regexp.MustCompile(`(?m)^agent: "?droid"?$`).MatchString(head) {
		t.Errorf("handoff not labelled droid:\n%s", head)
	}

	// A session forked from it starts with source resume: goal and now again.
	sessions, _ := filepath.Glob(filepath.Join(dp.home, ".factory", "sessions", "*", "*.jsonl"))
	if len(sessions) != 1 {
		t.Fatalf("sessions %q, want one", sessions)
	}
	id := strings.TrimSuffix(filepath.Base(sessions[0]), ".jsonl")
	f := dp.runDroid([]ChatResponse{ChatText("Going on.")}, "exec", "--auto", "high", "--fork", id, "go on")
	forked := turns(f.Requests)
	if len(forked) == 0 {
		t.Fatal("the forked session made no model request")
	}
	got := strings.Join(userTexts(forked[0]), "\n")
	requireAll(t, "the forked session's first request", got, copilotGoal, copilotNow)
}
