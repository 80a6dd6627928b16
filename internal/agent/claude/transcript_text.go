package claude

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/continuity-md/continuity/handoff"
)

// cleanTranscriptSummary extracts the summary text from the user entry the
// client writes after compaction: its fixed preamble, reminders and
// closing instructions are dropped, as are <analysis> and <summary> tags.
func cleanTranscriptSummary(text string) string {
	s := stripBlocks(text, "<system-reminder>", "</system-reminder>")
	s = stripBlocks(s, "<analysis>", "</analysis>")
	if strings.HasPrefix(strings.TrimSpace(s), "This session is being continued") {
		if _, after, ok := strings.Cut(s, "Summary:"); ok {
			s = after
		}
		for _, tail := range []string{
			"\nIf you need specific details from before compaction",
			"\nPlease continue the conversation from where we left",
			"\nContinue the conversation from where it left off",
		} {
			if i := strings.Index(s, tail); i >= 0 {
				s = s[:i]
			}
		}
	}
	return handoff.CleanSummary(s)
}

// stripBlocks removes every open…close block from s.
func stripBlocks(s, open, close string) string {
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], close)
		if j < 0 {
			return s
		}
		s = s[:i] + s[i+j+len(close):]
	}
}

// clientWrappers start user entries the client writes itself: slash
// commands and their output, shell escapes, hook output, notifications.
var clientWrappers = []string{
	"<command-name>", "<command-message>", "<command-args>", "<local-command-",
	"<bash-input>", "<bash-stdout>", "<bash-stderr>", "<user-prompt-submit-hook>",
	"<task-notification>", "Caveat: The messages below were generated",
	"[Request interrupted by user",
}

// promptText is what the person typed in a user entry: the blocks an IDE
// or the client wraps around it (<ide_opened_file>, <ide_selection>, any
// <ide_…> block, <system-reminder>) taken out. It is "" when nothing typed
// is left, or when the whole entry is the client's own.
func promptText(text string) string {
	t := strings.TrimSpace(stripWrappers(text))
	if strings.Contains(t, "<teammate-message") {
		t = teammateText(t)
	}
	if t == "" {
		return ""
	}
	if strings.HasPrefix(t, "<command-name>") || strings.HasPrefix(t, "<command-message>") {
		return slashCommand(t)
	}
	if name, _, _ := strings.Cut(strings.TrimPrefix(t, "/"), " "); strings.HasPrefix(t, "/") && clientCommands[name] {
		return "" // a built-in command typed as it is (/compact, /clear)
	}
	for _, w := range clientWrappers {
		if strings.HasPrefix(t, w) {
			return ""
		}
	}
	return t
}

// stripWrappers removes every <ide_*>…</ide_*> and
// <system-reminder>…</system-reminder> block; an unclosed one runs to the
// end of the text.
func stripWrappers(s string) string {
	if !strings.Contains(s, "<ide_") && !strings.Contains(s, "<system-reminder>") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		s = s[i:]
		name := ""
		if end := strings.IndexByte(s, '>'); end > 0 {
			if n := s[1:end]; strings.HasPrefix(n, "ide_") && !strings.ContainsAny(n, " /<") || n == "system-reminder" {
				name = n
			}
		}
		if name == "" {
			b.WriteByte('<')
			s = s[1:]
			continue
		}
		closing := "</" + name + ">"
		j := strings.Index(s, closing)
		if j < 0 {
			return b.String()
		}
		s = s[j+len(closing):]
	}
}

// clientCommands are Claude Code's built-in slash commands, which the
// client carries out itself: no request to the model.
var clientCommands = map[string]bool{
	"clear": true, "exit": true, "quit": true, "copy": true, "model": true, "plugin": true, "plugins": true, "effort": true,
	"compact": true, "mcp": true, "config": true, "settings": true, "context": true, "cost": true, "usage": true, "help": true,
	"login": true, "logout": true, "resume": true, "continue": true, "status": true, "memory": true, "permissions": true,
	"hooks": true, "agents": true, "doctor": true, "rewind": true, "export": true, "vim": true, "theme": true, "ide": true,
	"add-dir": true, "terminal-setup": true, "bug": true, "feedback": true, "release-notes": true, "upgrade": true,
	"privacy-settings": true, "output-style": true, "statusline": true, "todos": true, "tasks": true, "bashes": true,
	"fast": true, "sandbox": true, "stats": true, "install-github-app": true, "migrate-installer": true, "extra-usage": true,
}

// slashCommand is the request a slash command entry makes: "/name args"
// for a command that sends the model a prompt (a skill, a plugin's or the
// project's own command: /code-review ultra --fix), "" for a built-in one
// the client carries out itself (/clear, /model, /compact).
func slashCommand(t string) string {
	name := strings.TrimPrefix(strings.TrimSpace(between(t, "<command-name>", "</command-name>")), "/")
	if name == "" || clientCommands[name] {
		return ""
	}
	args := strings.TrimSpace(between(t, "<command-args>", "</command-args>"))
	return strings.TrimSpace("/" + name + " " + args)
}

// between is the text between open and close in s, "" when not there.
func between(s, open, close string) string {
	_, after, ok := strings.Cut(s, open)
	if !ok {
		return ""
	}
	in, _, _ := strings.Cut(after, close)
	return in
}

// teamLead is the name Claude Code gives an agent team's lead.
const teamLead = "team-lead"

// teammateMessage is one message of an agent team's teammate, as Claude
// Code puts it in a teammate's conversation.
var teammateMessage = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)<teammate-message teammate_id="([^"]*)"[^>]*>(.*?)</teammate-message>`)
})

// teammateText is the request teammates' messages make: in a teammate's
// conversation, the task its lead (team-lead) gives it, as "teammate
// team-lead: text". The reports teammates send their lead, and their
// lifecycle notices (JSON payloads: idle, shutdown, terminated), are no
// request: "" when nothing else is left.
func teammateText(t string) string {
	var out []string
	for _, m := range teammateMessage().FindAllStringSubmatch(t, -1) {
		body := strings.TrimSpace(m[2])
		if strings.HasPrefix(body, "{") && json.Valid([]byte(body)) || m[1] != teamLead {
			continue
		}
		if body != "" {
			out = append(out, "teammate "+m[1]+": "+body)
		}
	}
	return strings.Join(out, "\n")
}
