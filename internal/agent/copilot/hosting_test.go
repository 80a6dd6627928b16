package copilot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
)

// TestHostingClaudeRegistration: under Copilot CLI the hook of Claude
// Code's registration acts as Copilot, or steps aside when Copilot's own
// registration is there; outside Copilot, and for any other agent's hook,
// Copilot hosts nothing.
func TestHostingClaudeRegistration(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	env := map[string]string{"COPILOT_HOME": home, "COPILOT_PROJECT_DIR": root}
	getenv := func(k string) string { return env[k] }
	if h, hosting := (Host{}).Hosting(claudeRegistrant, getenv); hosting {
		t.Fatalf("outside Copilot: hosting, %v", h)
	}
	env["COPILOT_CLI"] = "1"
	if h, hosting := (Host{}).Hosting("codex", getenv); hosting {
		t.Fatalf("a Codex hook under Copilot: hosting, %v", h)
	}
	h, hosting := Host{}.Hosting(claudeRegistrant, getenv)
	if !hosting || h == nil || h.Name() != "copilot" {
		t.Fatalf("under Copilot without its registration: %v, %v", h, hosting)
	}
	payload := []byte(`{"hook_event_name":"SessionStart","session_id":"s1","cwd":"/r","source":"new"}`)
	ev, err := h.Decode(payload)
	if err != nil || ev.Kind != agent.Start || ev.Source != "startup" {
		t.Fatalf("%+v %v", ev, err)
	}
	out, _ := h.Encode(ev, agent.Answer{Context: "continuity: x", Message: "m"})
	if string(out) != `{"additionalContext":"continuity: x"}`+"\n" {
		t.Errorf("output %s: not Copilot's flat shape", out)
	}
	hooks, _, _ := Host{}.Register(nil, "continuity hook --agent copilot")
	if err := os.MkdirAll(filepath.Join(root, ".github", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".github", "hooks", "continuity.json"), hooks, 0o644); err != nil {
		t.Fatal(err)
	}
	if h, hosting := (Host{}).Hosting(claudeRegistrant, getenv); !hosting || h != nil {
		t.Errorf("with Copilot's own registration: %v, %v; want nil, hosting (step aside)", h, hosting)
	}
}
