package core

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/agent/hosts"
)

// evalSession writes a Claude Code session, to the shape of the client's
// records, in which the agent reads a.go and notes.md, edits b.go, runs a
// failing test, and is compacted with a summary that names only b.go;
// after the compaction it reads a.go again and edits b.go. It returns the
// transcript's lines and the line of the summary.
func evalSession(cwd string) ([]string, int) {
	n := 0
	ts := func() string {
		n++
		return time.Date(2026, 5, 1, 10, 0, n, 0, time.UTC).Format(time.RFC3339)
	}
	rec := func(typ, msg string) string {
		return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"type":%q,"message":%s,"uuid":"u%d","timestamp":%q,"cwd":%q,"sessionId":"s1","version":"2.1.90"}`, typ, msg, n, ts(), cwd)
	}
	prompt := func(text string) string { return rec("user", fmt.Sprintf(`{"role":"user","content":%q}`, text)) }
	call := func(id, name, input string) []string {
		return []string{
			rec("assistant", fmt.Sprintf(`{"role":"assistant","model":"claude-opus-4-7","content":[{"type":"tool_use","id":%q,"name":%q,"input":%s}]}`, id, name, input)),
			rec("user", fmt.Sprintf(`{"role":"user","content":[{"tool_use_id":%q,"type":"tool_result","content":"ok"}]}`, id)),
		}
	}
	fail := func(id, cmd string) []string {
		return []string{
			rec("assistant", fmt.Sprintf(`{"role":"assistant","model":"claude-opus-4-7","content":[{"type":"tool_use","id":%q,"name":"Bash","input":{"command":%q}}]}`, id, cmd)),
			rec("user", fmt.Sprintf(`{"role":"user","content":[{"tool_use_id":%q,"type":"tool_result","content":"Exit code 1\n--- FAIL: TestRefresh","is_error":true}]}`, id)),
		}
	}
	var lines []string
	lines = append(lines, prompt("Make the token refresh endpoint rotate the refresh token"))
	lines = append(lines, call("t1", "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(cwd, "a.go")))...)
	lines = append(lines, call("t2", "Bash", `{"command":"sed -n '1,40p' notes.md"}`)...)
	lines = append(lines, call("t3", "Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"x","new_string":"y"}`, filepath.Join(cwd, "b.go")))...)
	lines = append(lines, call("t4", "Grep", `{"pattern":"Refresh|Rotate","path":"."}`)...)
	lines = append(lines, fail("t5", "go test ./...")...)
	lines = append(lines, rec("system", `{"role":"system","content":"Conversation compacted"}`))
	summary := len(lines) + 1
	lines = append(lines, strings.Replace(prompt("This session is being continued from a previous conversation. Summary: the refresh endpoint is in b.go; next, rotate the token."), `"type":"user"`, `"type":"user","isCompactSummary":true`, 1))
	lines = append(lines, call("t6", "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(cwd, "a.go")))...)
	lines = append(lines, call("t7", "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(cwd, "notes.md")))...)
	lines = append(lines, call("t8", "Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"y","new_string":"z"}`, filepath.Join(cwd, "b.go")))...)
	return lines, summary
}

func writeLines(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEvalCompaction: at the compaction a session recorded, continuity's
// context names the file edited and the files only read that the agent
// goes back to, the failing check and the task; the agent's summary names
// only the file it mentions (and the task, in its words). The split is found in the transcript, or
// given by a splits file: the same scores.
func TestEvalCompaction(t *testing.T) {
	dir := t.TempDir()
	cwd := "/home/dev/proj"
	lines, summary := evalSession(cwd)
	writeLines(t, filepath.Join(dir, "claude", "s1.jsonl"), lines)
	splits := filepath.Join(dir, "splits.tsv")
	if err := os.WriteFile(splits, []byte(fmt.Sprintf("file\tsplit\tkind\tsummary_line\tunit\nclaude/s1.jsonl\t%d\tcompaction\t%d\tline\n", summary-1, summary)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sp := range []string{"", splits} {
		rep, err := Eval(EvalOptions{Hosts: hosts.All(), Dir: dir, Splits: sp, Now: time.Date(2026, 5, 1, 11, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Splits != 1 || len(rep.Agents) != 1 || rep.Agents[0].Agent != "claude" {
			t.Fatalf("splits file %q: report %+v, want one claude split", sp, rep)
		}
		a := rep.Agents[0]
		c, s := a.Continuity, a.Summary
		if s == nil || a.AtSummaries == nil {
			t.Fatalf("splits file %q: no summary scored: %+v", sp, a)
		}
		for _, x := range []struct {
			name      string
			got, want Ratio
		}{
			{"continuity edited", c.Edited, Ratio{1, 1}},
			{"continuity read-only", c.ReadOnly, Ratio{2, 2}},
			{"continuity files", c.Files, Ratio{3, 3}},
			{"continuity uncommitted", c.Uncommitted, Ratio{1, 1}},
			{"continuity open errors", c.OpenErrors, Ratio{1, 1}},
			{"continuity last check", c.LastCheck, Ratio{1, 1}},
			{"continuity task", c.Task, Ratio{1, 1}},
			{"summary edited", s.Edited, Ratio{1, 1}},
			{"summary read-only", s.ReadOnly, Ratio{0, 2}},
			{"summary open errors", s.OpenErrors, Ratio{0, 1}},
			{"summary task", s.Task, Ratio{1, 1}},
		} {
			if x.got != x.want {
				t.Errorf("splits file %q: %s = %+v, want %+v", sp, x.name, x.got, x.want)
			}
		}
		if c.Tokens <= 0 || s.Tokens <= 0 || s.Tokens >= c.Tokens {
			t.Errorf("tokens: continuity %d, summary %d (the summary is one line)", c.Tokens, s.Tokens)
		}
		if !math.IsNaN(c.Plan.Value()) {
			t.Errorf("plan scored with no plan: %+v", c.Plan)
		}
	}
}

// TestEvalRepository: without a folder, eval replays the transcripts the
// agent keeps of this repository's sessions, and no other project's; a
// session without a compaction is split at its prompts when there was
// work on both sides.
func TestEvalRepository(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, "proj")
	env := map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": filepath.Join(home, ".claude"), "CODEX_HOME": filepath.Join(home, ".codex")}
	getenv := func(k string) string { return env[k] }
	claude, _ := hosts.Named("claude")
	codex, _ := hosts.Named("codex")
	lines, _ := evalSession(root)
	writeLines(t, filepath.Join(claude.TranscriptDir(getenv, root), "s1.jsonl"), lines)
	writeLines(t, filepath.Join(claude.TranscriptDir(getenv, filepath.Join(home, "other")), "s2.jsonl"), lines)

	// A Codex session of the repository: four turns of five commands each.
	rollout := []string{fmt.Sprintf(`{"timestamp":"2026-05-01T10:00:00Z","type":"session_meta","payload":{"id":"c1","cwd":%q,"originator":"codex_cli_rs","cli_version":"0.130.0"}}`, root)}
	for turn := range 4 {
		rollout = append(rollout,
			fmt.Sprintf(`{"timestamp":"2026-05-01T10:%02d:00Z","type":"turn_context","payload":{"cwd":%q,"model":"gpt-5.5"}}`, turn*10, root),
			fmt.Sprintf(`{"timestamp":"2026-05-01T10:%02d:00Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"step %d of the refresh token rotation work"}]}}`, turn*10, turn))
		for i := range 5 {
			id := fmt.Sprintf("c%d_%d", turn, i)
			rollout = append(rollout,
				fmt.Sprintf(`{"timestamp":"2026-05-01T10:%02d:%02dZ","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":%q,"call_id":%q}}`, turn*10, i*2+1, fmt.Sprintf(`{"cmd":"sed -n 1,80p src/part%d.go","workdir":%q}`, i, root), id),
				fmt.Sprintf(`{"timestamp":"2026-05-01T10:%02d:%02dZ","type":"response_item","payload":{"type":"function_call_output","call_id":%q,"output":"Process exited with code 0\nOutput:\npackage src"}}`, turn*10, i*2+2, id))
		}
	}
	writeLines(t, filepath.Join(codex.TranscriptDir(getenv, root), "2026", "05", "01", "rollout-2026-05-01T10-00-00-c1.jsonl"), rollout)
	other := strings.Replace(strings.Join(rollout, "\n"), root, filepath.Join(home, "other"), 1)
	writeLines(t, filepath.Join(codex.TranscriptDir(getenv, root), "2026", "05", "02", "rollout-2026-05-02T10-00-00-c2.jsonl"), []string{other})

	var progress []string
	rep, err := Eval(EvalOptions{Hosts: []agent.Served{claude, codex}, Root: root, Getenv: getenv,
		Progress: func(done, total int, file string) { progress = append(progress, fmt.Sprintf("%d/%d", done, total)) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Transcripts != 2 || len(rep.Agents) != 2 {
		t.Fatalf("report %+v, want one transcript of each agent", rep)
	}
	if got := strings.Join(progress, " "); got != "0/2 1/2 2/2" {
		t.Errorf("progress %q, want 0/2 1/2 2/2", got)
	}
	cx := rep.Agents[1]
	if cx.Agent != "codex" || cx.Continuity.Splits != 2 || cx.Summary != nil {
		t.Fatalf("codex: %+v, want two prompt splits and no summary", cx)
	}
	// Each later turn reads the five files the earlier ones read.
	if r := cx.Continuity.ReadOnly; r.Of != 10 || r.Named != 10 {
		t.Errorf("codex read-only = %+v, want 10/10", r)
	}
}
