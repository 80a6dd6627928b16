package claude

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/continuity-md/continuity/handoff"
)

// errorLine is the one line reported for a failed tool call: the tool,
// for a shell command the command, and the first informative line.
func errorLine(u pendingUse, text string) string {
	text = strings.ReplaceAll(text, "<tool_use_error>", "")
	text = strings.ReplaceAll(text, "</tool_use_error>", "")
	var lines []string
	for _, l := range strings.SplitN(text, "\n", 50) {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	msg := "(no message)"
	if len(lines) > 0 {
		msg = lines[0]
		// "Exit code 1" alone says little: add the first line after it
		// that is not a "# package" header.
		if strings.HasPrefix(msg, "Exit code ") {
			for _, l := range lines[1:] {
				if !strings.HasPrefix(l, "#") {
					msg += ": " + l
					break
				}
			}
		}
	}
	prefix := u.Name
	if u.Name == "Bash" && u.Command != "" {
		prefix = "Bash `" + handoff.Cut(commandLine(u.Command), 80) + "`"
	} else if u.Path != "" {
		prefix += " " + filepath.Base(u.Path)
	}
	if prefix != "" {
		msg = prefix + ": " + msg
	}
	return handoff.Cut(msg, maxLineRunes)
}

// commandLine is a command as it ran, on one line: its first non-empty
// line, never rewritten (runs of spaces kept), with a mark saying how many
// lines were left out when more followed, at most maxLineRunes long.
func commandLine(cmd string) string {
	cmd = strings.TrimSpace(cmd)
	first, rest, more := strings.Cut(cmd, "\n")
	first = strings.TrimRight(first, " \t\r")
	if more {
		if n := strings.Count(strings.TrimSpace(rest), "\n") + 1; strings.TrimSpace(rest) != "" {
			first += " … (+" + strconv.Itoa(n) + " " + plural(n, "line") + ")"
		}
	}
	return handoff.Cut(first, maxLineRunes)
}

// trivialCommands only look around; a command made of nothing else (and
// writing no file) is not worth a line in a handoff.
var trivialCommands = map[string]bool{
	"ls": true, "cat": true, "pwd": true, "echo": true, "head": true, "tail": true, "wc": true,
	"which": true, "whoami": true, "date": true, "tree": true, "file": true, "stat": true, "du": true,
	"df": true, "type": true, "env": true, "printenv": true, "true": true, "cd": true, "less": true,
	"grep": true, "rg": true, "find": true, "sleep": true, "clear": true,
}

var harmlessRedirects = strings.NewReplacer("2>&1", " ", "2>/dev/null", " ", ">/dev/null", " ", "> /dev/null", " ")

func trivialCommand(cmd string) bool {
	cmd = harmlessRedirects.Replace(cmd)
	if strings.Contains(cmd, ">") {
		return false // writes a file
	}
	segments := strings.FieldsFunc(cmd, func(r rune) bool { return r == '|' || r == '&' || r == ';' || r == '\n' })
	if len(segments) == 0 {
		return true
	}
	for _, seg := range segments {
		fields := strings.Fields(seg)
		if len(fields) > 0 && !trivialCommands[fields[0]] {
			return false
		}
	}
	return true
}

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

func clonePending(u pendingUse) pendingUse {
	u.ID = strings.Clone(u.ID)
	u.T = strings.Clone(u.T)
	u.Name = strings.Clone(u.Name)
	u.Path = strings.Clone(u.Path)
	u.Subject = handoff.Cut(u.Subject, maxLineRunes)
	u.Command = handoff.Cut(u.Command, 4*maxLineRunes)
	if u.Update != nil {
		u.Update = &taskUpdate{ID: strings.Clone(u.Update.ID), Status: strings.Clone(u.Update.Status), Subject: handoff.Cut(u.Update.Subject, maxLineRunes)}
	}
	for i := range u.Todos {
		u.Todos[i].ID = strings.Clone(u.Todos[i].ID)
		u.Todos[i].Status = strings.Clone(u.Todos[i].Status)
	}
	return u
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
	if t == "" {
		return ""
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

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
