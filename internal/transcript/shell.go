package transcript

import "strings"

// A shell command line as the facts need it: its simple commands (split
// at | || && ; & newlines and parentheses outside quotes), each as its
// words with the quotes and escapes read and its raw text, and whether it
// redirects output into a file. It is no shell: enough to tell what a
// command runs, whatever the spelling ("a|b" inside quotes is one word).

// simple is one simple command of a line.
type simple struct {
	words []string // quotes and escapes read
	raw   string   // as written, trimmed
	piped bool     // its output goes into a pipe
}

// shellLine splits cmd into its simple commands; writes says an unquoted
// redirection sends output to a file (not /dev/null, not a descriptor).
func shellLine(cmd string) (cmds []simple, writes bool) {
	var (
		words []string
		word  strings.Builder
		inW   bool
		start = 0
	)
	endWord := func() {
		if inW {
			words = append(words, word.String())
			word.Reset()
			inW = false
		}
	}
	endCmd := func(i int, piped bool) {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, simple{words: words, raw: strings.TrimSpace(cmd[start:i]), piped: piped})
		}
		words = nil
		start = i + 1
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch c {
		case '\\':
			if i+1 < len(cmd) {
				i++
				if cmd[i] != '\n' {
					word.WriteByte(cmd[i])
					inW = true
				}
			}
		case '\'':
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				j = len(cmd) - i - 1
			}
			word.WriteString(cmd[i+1 : i+1+j])
			inW = true
			i += j + 1
		case '"':
			inW = true
			for i++; i < len(cmd) && cmd[i] != '"'; i++ {
				if cmd[i] == '\\' && i+1 < len(cmd) && strings.IndexByte("\"\\$`", cmd[i+1]) >= 0 {
					i++
				}
				word.WriteByte(cmd[i])
			}
		case ' ', '\t', '\r':
			endWord()
		case '|':
			if i+1 < len(cmd) && cmd[i+1] == '|' {
				endCmd(i, false)
				i++
				start = i + 1
				continue
			}
			endCmd(i, true)
		case ';', '\n', '(', ')':
			endCmd(i, false)
		case '&':
			if i+1 < len(cmd) && cmd[i+1] == '&' {
				endCmd(i, false)
				i++
				start = i + 1
				continue
			}
			if i > 0 && (cmd[i-1] == '>' || cmd[i-1] == '<') {
				word.WriteByte(c)
				inW = true
				continue
			}
			if i+1 < len(cmd) && cmd[i+1] == '>' { // &> file
				word.WriteByte(c)
				inW = true
				continue
			}
			endCmd(i, false)
		case '>':
			// The target is the rest of this word or the next one.
			j := i + 1
			if j < len(cmd) && (cmd[j] == '>' || cmd[j] == '|') {
				j++
			}
			if j < len(cmd) && cmd[j] == '&' { // >&2: a descriptor
				i = j
				continue
			}
			for j < len(cmd) && (cmd[j] == ' ' || cmd[j] == '\t') {
				j++
			}
			k := j
			for k < len(cmd) && strings.IndexByte(" \t\n;&|()", cmd[k]) < 0 {
				k++
			}
			if target := strings.Trim(cmd[j:k], `"'`); target != "/dev/null" && target != "" {
				writes = true
			}
			// A descriptor number before it ("2>") is no word of the command.
			if inW && isDigits(word.String()) {
				word.Reset()
				inW = false
			}
			endWord()
			i = k - 1
		default:
			word.WriteByte(c)
			inW = true
		}
	}
	endCmd(len(cmd), false)
	return cmds, writes
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// command is a simple command's words past what only sets up how it
// runs: VAR=value assignments, env (and its assignments), time, command,
// nice, timeout N, sudo.
func (s simple) command() []string {
	f := s.words
	for len(f) > 0 {
		switch {
		case strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "-") && !strings.HasPrefix(f[0], "="):
			f = f[1:]
		case f[0] == "time" || f[0] == "env" || f[0] == "command" || f[0] == "nice" || f[0] == "sudo" || f[0] == "exec":
			f = f[1:]
			for len(f) > 0 && strings.HasPrefix(f[0], "-") && f[0] != "-" {
				f = f[1:] // env -i, nice -n… (an option with its own value is rare)
			}
		case f[0] == "timeout" && len(f) > 1:
			f = f[1:]
			for len(f) > 0 && strings.HasPrefix(f[0], "-") {
				f = f[1:]
			}
			if len(f) > 0 {
				f = f[1:] // the duration
			}
		default:
			return f
		}
	}
	return f
}

// rawCommand is the simple command as written, from its command word on
// (assignments and env before it left out), "" when there is none.
func (s simple) rawCommand() string {
	words := s.command()
	if len(words) == 0 {
		return ""
	}
	skip := len(s.words) - len(words)
	raw := s.raw
	for i := 0; i < skip; i++ {
		raw = strings.TrimLeft(raw, " \t")
		raw = skipWord(raw)
	}
	return strings.TrimSpace(raw)
}

// skipWord is s past its first shell word (quotes and escapes in it).
func skipWord(s string) string {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t':
			return s[i:]
		case '\\':
			i++
		case '\'', '"':
			if j := strings.IndexByte(s[i+1:], s[i]); j >= 0 {
				i += j + 1
			} else {
				return ""
			}
		}
	}
	return ""
}
