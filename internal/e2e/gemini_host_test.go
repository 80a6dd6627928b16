package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/agent/gemini"
	"github.com/continuity-md/continuity/internal/transcript"
)

// standInHook is a program named continuity that records each hook call
// (the payload, and the chat file as it stood) and answers SessionStart
// with a fixed context in Gemini CLI's JSON shape. It lets the host's
// registration, decoding and chat reading be checked against the live
// client independently of the core.
const standInHook = `#!/bin/sh
# continuity hook --agent gemini, as a recorder: LOG/N.json, LOG/N.chat
log="$(dirname "$0")/log"; mkdir -p "$log"
n=$(ls "$log" | grep -c '\.json$'); f="$log/$n.json"
cat > "$f"
tp=$(sed -n 's/.*"transcript_path":"\([^"]*\)".*/\1/p' "$f")
[ -f "$tp" ] && cp "$tp" "$log/$n.chat"
case "$(sed -n 's/.*"hook_event_name":"\([^"]*\)".*/\1/p' "$f")" in
SessionStart) printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"continuity: STAND-IN <goal>"}}\n' ;;
esac
exit 0
`

// hookCall is one recorded call of the stand-in hook.
type hookCall struct {
	Payload map[string]any
	Chat    string // the chat file's copy when the hook ran ("" when none yet)
}

// TestGeminiHostWithRealClient registers a stand-in hook with the Gemini
// host's Register, runs the real Gemini CLI (a fresh session of tool calls,
// then a resumed one that is compressed), and checks the host on what the
// client really sent: the registration loads and every event arrives, only
// the PreCompress before the compression decodes as BeforeCompact, the
// injected context reaches the model, and the chat file decodes into the
// session's files, commands, error, prompts, last reply and snapshot.
func TestGeminiHostWithRealClient(t *testing.T) {
	g := newGeminiProject(t)
	hookDir := t.TempDir()
	hookPath := filepath.Join(hookDir, "continuity")
	if err := os.WriteFile(hookPath, []byte(standInHook), 0o755); err != nil {
		t.Fatal(err)
	}
	// The recorded chats are read back from the stand-in's log, which
	// stands for Gemini CLI's own chat directory: the host reads chats
	// from nowhere else.
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(hookDir, "log"), filepath.Join(home, ".gemini", "tmp")); err != nil {
		t.Fatal(err)
	}
	h := gemini.Host{Getenv: func(k string) string {
		if k == "GEMINI_CLI_HOME" {
			return home
		}
		return os.Getenv(k)
	}}
	settings, _, err := h.Register(nil, hookPath+" hook --agent gemini")
	if err != nil {
		t.Fatal(err)
	}
	g.write(".gemini/settings.json", string(settings))

	s := g.runGemini(geminiWork(g.dir), "-p", "add the token refresh endpoint", "--session-id", geminiSessionID)
	if got := strings.Join(hookContexts(mainRequests(s.Requests)[0].Body), "\n"); got != "continuity: STAND-IN <goal>" {
		t.Fatalf("the first model request's hook context is %q", got)
	}
	g.gapi.SetSummary(geminiSnapshot)
	g.runGemini([]GeminiResponse{
		{Call: &Call{Name: "read_file", Args: map[string]any{"file_path": filepath.Join(g.dir, "README.md")}}, PromptTokens: 900000},
		GeminiText("Resumed after the compression."),
	}, "-p", "go on with the logout endpoint", "--resume", geminiSessionID)

	calls := readHookCalls(t, filepath.Join(hookDir, "log"))
	var order []string
	kinds := map[string][]agent.Kind{}
	for _, c := range calls {
		name, _ := c.Payload["hook_event_name"].(string)
		order = append(order, name)
		// Decode and refine as the hook would have in a repository that
		// opted in, against the chat as it stood.
		c.Payload["transcript_path"] = c.Chat
		b, _ := json.Marshal(c.Payload)
		ev, err := h.Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ev = h.Refine(ev)
		kinds[name] = append(kinds[name], ev.Kind)
		if ev.Kind == agent.BeforePrompt && ev.Compacted {
			t.Errorf("BeforeAgent %q: a refresh although the prompt carries SessionStart's context", ev.Prompt)
		}
	}
	t.Logf("hook calls: %s", strings.Join(order, " > "))
	pre := kinds["PreCompress"]
	if len(pre) != 12 { // ten calls in run 1, two in run 2
		t.Errorf("%d PreCompress calls, want 12 (one per model call)", len(pre))
	}
	if n := countKind(pre, agent.BeforeCompact); n != 1 || len(pre) < 2 || pre[len(pre)-1] != agent.BeforeCompact {
		t.Errorf("PreCompress decoded as %v: want Ignore but for the last (the one before the compression)", pre)
	}
	for _, ev := range []string{"SessionStart", "BeforeAgent", "AfterAgent", "SessionEnd"} {
		if len(kinds[ev]) != 2 {
			t.Errorf("%s ran %d times, want 2", ev, len(kinds[ev]))
		}
	}

	f, err := transcript.ReadFile(g.chatFile(geminiSessionID), h.NewDecoder(g.dir, nil))
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, ok bool) {
		t.Helper()
		if !ok {
			t.Errorf("chat facts: %s: %+v", what, f)
		}
	}
	check("files", slices.Equal(f.Files, []string{"src/auth/token.go", "README.md"}))
	// ls only looks: left out of the commands (counted), its failure an error.
	check("the failing command", !slices.Contains(f.Commands, geminiFailing) && f.LookOnly > 0 && len(f.Errors) == 1 && strings.Contains(f.Errors[0], geminiFailing))
	check("prompts", slices.Equal(f.Prompts, []string{"add the token refresh endpoint", "go on with the logout endpoint"}))
	check("last reply", f.LastAssistant == "Resumed after the compression.")
	check("snapshot", f.CompactSummary == geminiSnapshot)
	check("usage", f.Model != "" && f.Tokens == 1000)
}

func countKind(list []agent.Kind, k agent.Kind) int {
	n := 0
	for _, x := range list {
		if x == k {
			n++
		}
	}
	return n
}

// readHookCalls reads the stand-in hook's records, in call order.
func readHookCalls(t *testing.T, dir string) []hookCall {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("the stand-in hook never ran: %v", err)
	}
	var ns []int
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			if i, err := strconv.Atoi(n); err == nil {
				ns = append(ns, i)
			}
		}
	}
	sort.Ints(ns)
	var calls []hookCall
	for _, n := range ns {
		b, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(n)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var c hookCall
		if err := json.Unmarshal(b, &c.Payload); err != nil {
			t.Fatalf("payload %d: %v", n, err)
		}
		if chat := filepath.Join(dir, strconv.Itoa(n)+".chat"); fileExists(chat) {
			c.Chat = chat
		}
		calls = append(calls, c)
	}
	return calls
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
