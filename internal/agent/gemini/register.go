package gemini

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/install"
	"github.com/continuity-md/continuity/internal/safefile"
)

// events are the Gemini CLI events continuity registers, in order.
var events = []string{evSessionStart, evBeforeAgent, evPreCompress, evAfterAgent, evSessionEnd}

// timeouts are the registered timeouts in milliseconds (Gemini CLI's unit;
// its default is 60,000). The hooks take a few milliseconds; a handoff
// (PreCompress, SessionEnd) reads the chat file, bounded by the budget.
var timeouts = map[string]int{
	evSessionStart: 10000,
	evBeforeAgent:  10000,
	evPreCompress:  endTimeout,
	evAfterAgent:   10000,
	evSessionEnd:   endTimeout,
}

// hook is the registration for command: every event, matcher "*" (every
// source, trigger and reason).
func hook(command string) install.Hook {
	m := make(map[string]string, len(events))
	for _, ev := range events {
		m[ev] = "*"
	}
	return install.Hook{Command: command, Events: events, Matchers: m, Timeouts: timeouts}
}

// SettingsPath is .gemini/settings.json in the project, or in Gemini CLI's
// home (GEMINI_CLI_HOME, else the user's home) for every project.
func (Host) SettingsPath(getenv func(string) string, root string, scope agent.Scope) (string, error) {
	file := filepath.Join(".gemini", "settings.json")
	return install.Settings{Agent: "gemini", Project: file, User: file, Home: geminiHome(getenv), HomeVar: "GEMINI_CLI_HOME"}.Path(scope, root)
}

// Register adds continuity's hooks, running command, to settings, keeping
// every other byte; a second time changes nothing.
func (Host) Register(settings []byte, command string) ([]byte, bool, error) {
	return install.Add(settings, hook(command))
}

// Unregister removes exactly what Register added.
func (Host) Unregister(settings []byte) ([]byte, bool, error) {
	return install.Remove(settings, events...)
}

// Registered reports the command registered for each event continuity
// uses; as stale, the events whose continuity hook is in an older form
// (not naming --agent gemini), which init rewrites; and notes when hooks are
// turned off or a timeout is shorter than the one init registers (Gemini
// CLI kills the hook then). Whether Gemini CLI trusts the folder (project
// hooks run only then) is not in the settings: see TrustNotes.
func (Host) Registered(settings []byte) (agent.Status, error) {
	st, err := install.Status(settings, events...)
	if err != nil {
		return agent.Status{}, err
	}
	out := agent.Status{Events: st}
	for _, ev := range events {
		if c := st[ev]; c != "" && !namesGemini(c) {
			out.Stale = append(out.Stale, ev)
		}
	}
	if len(strings.TrimSpace(string(settings))) == 0 {
		return out, nil
	}
	var s struct {
		HooksConfig struct {
			Enabled *bool `json:"enabled"`
		} `json:"hooksConfig"`
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
				Timeout *int   `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if json.Unmarshal(settings, &s) != nil {
		return out, nil // install.Status read it: shapes it does not need
	}
	if e := s.HooksConfig.Enabled; e != nil && !*e {
		out.Ignored = append(out.Ignored, "hooksConfig.enabled is false in these settings: Gemini CLI runs no hook at all, continuity's included")
	}
	for _, ev := range events {
		for _, g := range s.Hooks[ev] {
			for _, e := range g.Hooks {
				if install.IsContinuityHook(e.Command) && e.Timeout != nil && *e.Timeout < timeouts[ev] {
					out.Notes = append(out.Notes, fmt.Sprintf("the %s hook's timeout is %d ms (Gemini CLI counts milliseconds): it is killed before it can finish; init registers %d", ev, *e.Timeout, timeouts[ev]))
				}
			}
		}
	}
	return out, nil
}

// namesGemini reports whether a continuity hook command names this host
// (--agent gemini or --agent=gemini), the form init writes.
func namesGemini(command string) bool {
	f := strings.Fields(command)
	for i, w := range f {
		if w == "--agent=gemini" || w == "--agent" && i+1 < len(f) && f[i+1] == "gemini" {
			return true
		}
	}
	return false
}

// TrustNotes says plainly when Gemini CLI does not trust the folder root:
// it then loads no project hooks (.gemini/settings.json), continuity's
// included, and headless runs exit. Trust is read as Gemini CLI reads it:
// GEMINI_CLI_TRUST_WORKSPACE=true, security.folderTrust.enabled false in
// the user settings, or the most specific rule of trustedFolders.json
// (GEMINI_CLI_TRUSTED_FOLDERS_PATH, else in Gemini CLI's home) that covers
// root: TRUST_FOLDER (the folder and below), TRUST_PARENT (its parent and
// below) or DO_NOT_TRUST.
func (Host) TrustNotes(getenv func(string) string, root string) (ignored, notes []string) {
	if root == "" || getenv("GEMINI_CLI_TRUST_WORKSPACE") == "true" {
		return nil, nil
	}
	home := geminiHome(getenv)
	if home != "" && folderTrustOff(filepath.Join(home, ".gemini", "settings.json")) {
		return nil, nil
	}
	path := getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
	if path == "" && home != "" {
		path = filepath.Join(home, ".gemini", "trustedFolders.json")
	}
	trusted, rule := folderTrusted(path, root)
	if trusted {
		return nil, nil
	}
	why := "no rule in " + path + " covers it"
	if rule != "" {
		why = path + " says " + rule
	}
	return []string{"Gemini CLI does not trust " + root + " (" + why + "): it loads no project hooks there, so continuity's hooks in .gemini/settings.json do not run. Trust the folder when Gemini CLI asks (or /permissions), or register for every project with init --agent gemini --user."}, nil
}

// folderTrustOff reports whether user settings turn folder trust off.
func folderTrustOff(settings string) bool {
	b, err := safefile.Read(settings, safefile.Options{MaxSize: 4 << 20})
	if err != nil {
		return false
	}
	var s struct {
		Security struct {
			FolderTrust struct {
				Enabled *bool `json:"enabled"`
			} `json:"folderTrust"`
		} `json:"security"`
	}
	return json.Unmarshal(b, &s) == nil && s.Security.FolderTrust.Enabled != nil && !*s.Security.FolderTrust.Enabled
}

// folderTrusted applies the most specific rule of a trustedFolders.json
// that covers root; rule is the one applied ("" when none).
func folderTrusted(path, root string) (trusted bool, rule string) {
	b, err := safefile.Read(path, safefile.Options{MaxSize: 4 << 20})
	if err != nil {
		return false, ""
	}
	var rules map[string]string
	if json.Unmarshal(b, &rules) != nil {
		return false, ""
	}
	root = filepath.Clean(root)
	best := -1
	for p, r := range rules {
		dir := filepath.Clean(p)
		if r == "TRUST_PARENT" {
			dir = filepath.Dir(dir)
		}
		if !within(root, dir) || len(dir) <= best {
			continue
		}
		best = len(dir)
		trusted = r == "TRUST_FOLDER" || r == "TRUST_PARENT"
		rule = r + " for " + p
	}
	return trusted, rule
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	r, err := filepath.Rel(dir, path)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}
