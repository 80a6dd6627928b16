// Package claude is Claude Code as a continuity host: its hook payloads and
// answers, its transcripts, its settings and its measured limits (see
// claude-code-facts.md in the design notes).
package claude

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/transcript"
)

// Host is Claude Code.
type Host struct{}

var _ agent.Host = Host{}

// Name is the host's name on the command line.
func (Host) Name() string { return "claude" }

// Title is the host's name for people.
func (Host) Title() string { return "Claude Code" }

// sessionEndTimeout (seconds) is the SessionEnd timeout Register writes:
// it covers reading a transcript of hundreds of MB, above the client's
// default 1.5 s budget for SessionEnd hooks.
const sessionEndTimeout = 30

// Limits: additionalContext of 10,000 characters and more reaches the model
// only as a preview; SessionEnd hooks get the timeout Register writes.
func (Host) Limits() agent.Limits {
	return agent.Limits{InjectMax: 10000, InjectUnit: agent.Runes, EndBudget: sessionEndTimeout * time.Second}
}

// Decode turns a Claude Code hook payload into an event.
func (Host) Decode(payload []byte) (agent.Event, error) {
	pl, err := decodePayload(payload)
	if err != nil {
		return agent.Event{}, err
	}
	ev := agent.Event{Name: pl.Event, Source: pl.Source, Trigger: pl.Trigger, Reason: pl.Reason,
		SessionID: pl.SessionID, Transcript: pl.TranscriptPath, Cwd: pl.Cwd, Summary: pl.CompactSummary,
		Subagent: pl.AgentID}
	switch pl.Event {
	case "SessionStart":
		ev.Kind = agent.Start
	case "SubagentStart":
		// A subagent of session_id starting (agent_id names it): it is
		// given the context its configuration says, as a start.
		ev.Kind = agent.Start
		ev.Source = "subagent"
	case "PreCompact":
		ev.Kind = agent.BeforeCompact
	case "PostCompact":
		ev.Kind = agent.AfterCompact
	case "SessionEnd":
		ev.Kind = agent.End
	case "Stop":
		// A turn's end: a checkpoint. Its answer is always empty, so the
		// turn is never kept going (stop_hook_active needs no check).
		ev.Kind = agent.TurnEnd
	default:
		ev.Kind = agent.Ignore
	}
	return ev, nil
}

// Encode prints SessionStart's answer; the other events print nothing
// (on Stop, output could ask the client to keep the turn going).
func (Host) Encode(ev agent.Event, a agent.Answer) ([]byte, error) {
	if ev.Kind != agent.Start || (a.Context == "" && a.Message == "") {
		return nil, nil
	}
	event := "SessionStart"
	if ev.Subagent != "" {
		event = "SubagentStart"
	}
	return encodeLine(sessionStart(event, a.Context, a.Message))
}

// ProjectDir is CLAUDE_PROJECT_DIR.
func (Host) ProjectDir(getenv func(string) string) string { return getenv("CLAUDE_PROJECT_DIR") }

// EnvLedger is the variable that names the active ledger to the agent's
// later shell commands.
const EnvLedger = "CONTINUITY_LEDGER"

// ExportLedger appends `export CONTINUITY_LEDGER=name` to the file the
// client sources before each of the agent's shell commands (CLAUDE_ENV_FILE).
func (Host) ExportLedger(getenv func(string) string, name string) (bool, error) {
	path := getenv("CLAUDE_ENV_FILE")
	if path == "" {
		return false, nil
	}
	// Only ever a regular file: opening a FIFO for writing would block
	// until a reader came, holding the session start forever.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return false, fmt.Errorf("CLAUDE_ENV_FILE %s: not a regular file", path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return false, fmt.Errorf("CLAUDE_ENV_FILE: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false, fmt.Errorf("CLAUDE_ENV_FILE %s: not a regular file", path)
	}
	if _, err := fmt.Fprintf(f, "export %s=%s\n", EnvLedger, name); err != nil {
		return false, fmt.Errorf("CLAUDE_ENV_FILE: %w", err)
	}
	return true, nil
}

// NewDecoder returns a decoder of Claude Code transcripts.
func (Host) NewDecoder(root string, red func(string) string) transcript.Decoder {
	return newCollector(root, red)
}

// configDir is CLAUDE_CONFIG_DIR, or ~/.claude.
func configDir(getenv func(string) string) (string, error) {
	if cfg := getenv("CLAUDE_CONFIG_DIR"); cfg != "" {
		return cfg, nil
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("find the home directory: %w", err)
		}
	}
	return filepath.Join(home, ".claude"), nil
}

// TranscriptDir is where the client keeps the transcripts of sessions
// started in root: projects/<slug of root>.
func (Host) TranscriptDir(getenv func(string) string, root string) string {
	cfg, err := configDir(getenv)
	if err != nil || root == "" {
		return ""
	}
	return filepath.Join(cfg, "projects", slugOf(root))
}

// slugMax is the longest slug the client uses as it is; a longer one is
// cut there and given a hash of the whole path.
const slugMax = 200

// slugOf is the client's name for the directory of dir's sessions: every
// UTF-16 code unit that is not an ASCII letter or digit becomes '-' (so a
// character outside the BMP becomes two), cut at slugMax (the client then
// appends "-<hash>", which TranscriptRoots allows for).
func slugOf(dir string) string {
	var b strings.Builder
	for _, c := range dir {
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9':
			b.WriteRune(c)
		case c > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	s := b.String()
	if len(s) > slugMax {
		s = s[:slugMax]
	}
	return s
}

// TranscriptRoots are every directory the client keeps the project's
// sessions in: besides TranscriptDir, one per subdirectory of root a
// session was started in (the client names the directory after the
// session's working directory), and a long root's directory, whose name
// ends in a hash. Only directories that exist are listed.
func (Host) TranscriptRoots(getenv func(string) string, root string) []string {
	cfg, err := configDir(getenv)
	if err != nil || root == "" {
		return nil
	}
	projects := filepath.Join(cfg, "projects")
	ents, err := os.ReadDir(projects)
	if err != nil {
		return nil
	}
	slug := slugOf(root)
	var dirs []string
	for _, e := range ents {
		if n := e.Name(); n != slug && strings.HasPrefix(n, slug+"-") {
			dirs = append(dirs, filepath.Join(projects, n))
		}
	}
	return dirs
}

// TranscriptFiles are the files of the session whose transcript is at
// path: the transcript, then its subagents' transcripts.
func (Host) TranscriptFiles(path string) []string { return TranscriptFiles(path) }
