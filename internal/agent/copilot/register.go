package copilot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/install"
	"github.com/continuity-md/continuity/internal/safefile"
)

// events are the native events continuity registers, in order.
// userPromptSubmitted and postToolUse give the model its goal back after a
// compaction (they print nothing otherwise); agentStop checkpoints what the
// transcript held, so a session killed before sessionEnd can be recovered.
var events = []string{evSessionStart, evPrompt, evPostTool, evPreCompact, evAgentStop, evSessionEnd}

// timeouts are the timeoutSec init registers: Copilot's default (30 s) for
// the handoffs, short ones for the hooks a person waits on.
var timeouts = map[string]int{evSessionStart: 10, evPrompt: 10, evPostTool: 10, evPreCompact: endTimeout,
	evAgentStop: 10, evSessionEnd: endTimeout}

// fileName is continuity's own hooks file in a hooks directory: Copilot
// reads every *.json there, so continuity keeps to a file of its own and
// never edits a person's.
const fileName = "continuity.json"

// HookEvents are the events Register registers, in order.
func (Host) HookEvents() []string { return append([]string(nil), events...) }

// SettingsPath is continuity's hooks file: .github/hooks/continuity.json in
// the repository, or $COPILOT_HOME/hooks/continuity.json (~/.copilot) for
// every project.
func (Host) SettingsPath(getenv func(string) string, root string, scope agent.Scope) (string, error) {
	return install.Settings{Agent: "copilot", Project: filepath.Join(".github", "hooks", fileName), User: filepath.Join("hooks", fileName),
		Home: Home(getenv), HomeVar: "COPILOT_HOME or HOME"}.Path(scope, root)
}

// hooksFile is Copilot's hooks file: {"version": 1, "hooks": {EVENT: [entry…]}}.
type hooksFile struct {
	Version int                    `json:"version"`
	Hooks   map[string][]hookEntry `json:"hooks"`
}

type hookEntry struct {
	Type       string `json:"type"`
	Bash       string `json:"bash,omitempty"`
	PowerShell string `json:"powershell,omitempty"`
	TimeoutSec int    `json:"timeoutSec,omitempty"`
}

// eventCommand is the command registered for ev: the hook names its event,
// since Copilot's payloads do not.
func eventCommand(command, ev string) string { return command + " --event " + ev }

// render is the file Register writes for command.
func render(command string) []byte {
	var b strings.Builder
	b.WriteString("{\n  \"version\": 1,\n  \"hooks\": {\n")
	for i, ev := range events {
		entry, _ := json.Marshal(hookEntry{Type: "command", Bash: eventCommand(command, ev), TimeoutSec: timeouts[ev]})
		fmt.Fprintf(&b, "    %q: [%s]", ev, bytes.ReplaceAll(entry, []byte(`","`), []byte(`", "`)))
		if i < len(events)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  }\n}\n")
	return []byte(b.String())
}

// empty is what Unregister leaves: a hooks file with no hooks, which
// Copilot loads without complaint.
var empty = []byte("{\n  \"version\": 1,\n  \"hooks\": {}\n}\n")

// parse reads a hooks file continuity may rewrite: valid, and holding
// continuity's hooks only. A file that holds anything else is the
// person's: continuity never rewrites it.
func parse(settings []byte) (hooksFile, error) {
	var f hooksFile
	if err := json.Unmarshal(settings, &f); err != nil {
		return f, fmt.Errorf("not a Copilot hooks file: %w", err)
	}
	var top map[string]json.RawMessage
	_ = json.Unmarshal(settings, &top)
	for k := range top {
		if k != "version" && k != "hooks" {
			return f, fmt.Errorf("holds %q beside continuity's hooks: move it to another file of the directory", k)
		}
	}
	for ev, entries := range f.Hooks {
		for _, e := range entries {
			if !install.IsContinuityHook(e.Bash) && !install.IsContinuityHook(e.PowerShell) {
				return f, fmt.Errorf("holds a %s hook that is not continuity's: move it to another file of the directory", ev)
			}
		}
	}
	return f, nil
}

// Register writes continuity's hooks file for command. Registering twice
// changes nothing; a file continuity did not write alone is refused.
func (Host) Register(settings []byte, command string) ([]byte, bool, error) {
	if !install.IsContinuityHook(command) {
		return nil, false, fmt.Errorf("hook command %q does not run \"continuity hook\"", command)
	}
	out := render(command)
	if len(bytes.TrimSpace(settings)) > 0 {
		if _, err := parse(settings); err != nil {
			return nil, false, err
		}
	}
	if bytes.Equal(out, settings) {
		return settings, false, nil
	}
	return out, true, nil
}

// Unregister empties continuity's hooks file.
func (Host) Unregister(settings []byte) ([]byte, bool, error) {
	if len(bytes.TrimSpace(settings)) == 0 {
		return settings, false, nil
	}
	f, err := parse(settings)
	if err != nil {
		return nil, false, err
	}
	if len(f.Hooks) == 0 {
		return settings, false, nil
	}
	return empty, true, nil
}

// Registered reports the command registered for each event, and
// registrations init would rewrite (a command that does not name its
// event, another timeout).
func (Host) Registered(settings []byte) (agent.Status, error) {
	st := agent.Status{Events: map[string]string{}}
	for _, ev := range events {
		st.Events[ev] = ""
	}
	if len(bytes.TrimSpace(settings)) == 0 {
		return st, nil
	}
	f, err := parse(settings)
	if err != nil {
		return st, err
	}
	for _, ev := range events {
		for _, e := range f.Hooks[ev] {
			if !install.IsContinuityHook(e.Bash) {
				continue
			}
			st.Events[ev] = e.Bash
			switch {
			case install.Agent(e.Bash) != "copilot":
				st.Stale = append(st.Stale, fmt.Sprintf("%s runs %q, without --agent copilot", ev, e.Bash))
			case !strings.HasSuffix(e.Bash, " --event "+ev):
				st.Stale = append(st.Stale, fmt.Sprintf("%s runs %q, which does not name its event (--event %s)", ev, e.Bash, ev))
			case e.TimeoutSec != timeouts[ev]:
				st.Stale = append(st.Stale, fmt.Sprintf("%s: timeoutSec %d, not %d", ev, e.TimeoutSec, timeouts[ev]))
			}
		}
	}
	return st, nil
}

// TrustNotes says what Copilot needs before it runs the repository's
// hooks: a trusted folder. Copilot skips the hooks of .github/hooks and
// .claude/settings.json silently in a folder nobody trusted; the user's
// hooks run everywhere.
func (h Host) TrustNotes(getenv func(string) string, root string) (ignored, notes []string) {
	path, err := h.SettingsPath(getenv, root, agent.Project)
	if err != nil || !registeredAt(path) {
		return nil, nil
	}
	if getenv("COPILOT_ALLOW_ALL") == "true" {
		return nil, nil
	}
	return nil, []string{fmt.Sprintf("Copilot CLI runs the hooks of %s only in a folder you trust, and skips them without a word otherwise: "+
		"accept %s when copilot asks on its first start there; `copilot -p` needs --trust-folder (or COPILOT_ALLOW_ALL=true, which --resume needs). "+
		"Hooks registered with `continuity init --agent copilot --user` (in %s) run in every folder",
		filepath.Join(".github", "hooks", fileName), root, filepath.Join(Home(getenv), "hooks"))}
}

// maxHooksFile bounds a hooks file read.
const maxHooksFile = 1 << 20

// registeredAt reports whether the hooks file at path registers
// continuity for Copilot.
func registeredAt(path string) bool {
	b, err := safefile.Read(path, safefile.Options{MaxSize: maxHooksFile})
	if err != nil {
		return false
	}
	st, err := Host{}.Registered(b)
	if err != nil {
		return false
	}
	for _, c := range st.Events {
		if install.Agent(c) == "copilot" {
			return true
		}
	}
	return false
}

// Registered reports whether continuity's own Copilot registration is in
// place for a session in project root (the repository's or the user's
// hooks file): the hooks Copilot runs from Claude Code's settings then
// leave the work to it.
func Registered(getenv func(string) string, root string) bool {
	for _, sc := range []agent.Scope{agent.Project, agent.User} {
		if path, err := (Host{}).SettingsPath(getenv, root, sc); err == nil && registeredAt(path) {
			return true
		}
	}
	return false
}
