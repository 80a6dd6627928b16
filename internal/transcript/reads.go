package transcript

import (
	"math"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
)

// The working set is the files a session read or searched and did not
// change: what it would have to read again after losing its context. Each
// read adds one to the file's weight, and every weight halves each
// readHalfLife tool calls, so the files read most and most recently come
// first. A subagent's reads count like the agent's own: the agent read its
// report.
const (
	// MaxRead bounds the working set the facts list.
	MaxRead = 40
	// maxSeen bounds the files the working set weighs; past it the
	// lightest is forgotten.
	maxSeen = 200
	// readHalfLife is how many tool calls halve a read's weight.
	readHalfLife = 40
)

// seen is one file of the working set: its weight W as of tool call At.
type seen struct {
	S  string  `json:"s"`
	W  float64 `json:"w"`
	At int     `json:"at"`
}

// weight is w as of call now.
func (s seen) weight(now int) float64 {
	return s.W * math.Exp2(-float64(now-s.At)/readHalfLife)
}

// read adds a read of p at call at to the working set.
func (st *accState) read(p string, at int) {
	if i := slices.IndexFunc(st.Seen, func(s seen) bool { return s.S == p }); i >= 0 {
		s := &st.Seen[i]
		s.W, s.At = s.weight(at)+1, at
		return
	}
	if len(st.Seen) >= maxSeen {
		light := 0
		for i := range st.Seen {
			if st.Seen[i].weight(at) < st.Seen[light].weight(at) {
				light = i
			}
		}
		st.Seen = slices.Delete(st.Seen, light, light+1)
	}
	st.Seen = append(st.Seen, seen{S: p, W: 1, At: at})
}

// workingSet is the files read, heaviest first (the latest read first
// among equals), leaving out those in changed, at most max.
func (st *accState) workingSet(changed []string, max int) []string {
	ranked := slices.Clone(st.Seen)
	slices.SortStableFunc(ranked, func(a, b seen) int {
		wa, wb := a.weight(st.Calls), b.weight(st.Calls)
		switch {
		case wa > wb:
			return -1
		case wa < wb:
			return 1
		}
		return b.At - a.At
	})
	var out []string
	for _, s := range ranked {
		if len(out) == max {
			break
		}
		if !slices.Contains(changed, s.S) {
			out = append(out, s.S)
		}
	}
	return out
}

// readable reports whether a path the working set may list: a file inside
// the repository (relative), not a pattern, nor a number (an option's
// value), nor another system's absolute path.
func (a *Accumulator) readable(p string) bool {
	return p != "" && !a.outside(p) && !filepath.IsAbs(p) && !strings.HasPrefix(p, "/") &&
		!strings.ContainsAny(p, "*?[{$`<>|\\") && p != "." && p != ".." && !strings.HasPrefix(p, "~") &&
		!(len(p) > 1 && p[1] == ':') && strings.ContainsFunc(p, unicode.IsLetter)
}

// NamesFile is p when it names a file rather than a directory, as far as
// its name tells (a base name with an extension, or a dotfile), else "":
// what a search tool's target adds to the working set.
func NamesFile(p string) string {
	if hasExtension(p) {
		return p
	}
	return ""
}

// readers print the files they are given (every argument that is not an
// option is a file); searchers take a pattern first, then the files or
// directories to search.
var (
	readers = map[string]bool{
		"cat": true, "head": true, "tail": true, "nl": true, "less": true, "more": true, "bat": true,
		"batcat": true, "wc": true, "view": true, "xxd": true, "od": true, "hexdump": true, "diff": true,
		"Get-Content": true, "gc": true, "type": false,
	}
	searchers = map[string]bool{"grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true, "ack": true, "sed": true, "awk": true, "jq": true, "Select-String": false}
	// withValue are the options, of readers and searchers, that take the
	// next word as their value.
	withValue = map[string]bool{
		"-n": true, "-c": true, "-e": true, "-f": true, "-A": true, "-B": true, "-C": true, "-m": true,
		"-g": true, "-t": true, "-T": true, "-M": true, "-j": true, "--glob": true, "--type": true,
		"--type-not": true, "--max-count": true, "--regexp": true, "--file": true, "--lines": true,
		"--bytes": true, "--context": true, "--after-context": true, "--before-context": true,
		"--max-depth": true, "--iglob": true, "-r": false, "--arg": true, "--argjson": true,
	}
)

// ReadTargets are the files a shell command reads: the arguments of cat,
// sed -n, head, rg and the like, made relative to the directory a leading
// `cd` moved to (dir when none: the command's own directory, "" for the
// session's). A search's targets count only when they name a file (a base
// name with an extension): a directory searched is no file read.
func ReadTargets(cmd, dir string) []string {
	if !mentionsReader(cmd) {
		return nil // most commands: split into no words at all
	}
	var out []string
	for _, w := range shellCommands(cmd) {
		for len(w) > 0 && (strings.Contains(w[0], "=") && !strings.HasPrefix(w[0], "-") || w[0] == "env" || w[0] == "command" || w[0] == "time" || w[0] == "sudo") {
			w = w[1:]
		}
		if len(w) == 0 {
			continue
		}
		name := path.Base(filepath.ToSlash(w[0]))
		if name == "cd" || name == "pushd" {
			if len(w) > 1 {
				dir = joinDir(dir, w[1])
			}
			continue
		}
		for _, t := range argsRead(name, w[1:]) {
			if t = joinDir(dir, t); t != "" && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// mentionsReader reports whether cmd holds the name of a reader or a
// searcher anywhere: a command without one reads no file.
func mentionsReader(cmd string) bool {
	for name, ok := range readers {
		if ok && strings.Contains(cmd, name) {
			return true
		}
	}
	for name, ok := range searchers {
		if ok && strings.Contains(cmd, name) {
			return true
		}
	}
	return false
}

// argsRead are the files among a reader's or a searcher's arguments.
func argsRead(name string, args []string) []string {
	reader, searcher := readers[name], searchers[name]
	if !reader && !searcher {
		return nil
	}
	if (name == "sed" || name == "awk") && slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-i") }) {
		return nil // edits in place: a change, not a read
	}
	var out []string
	pattern := searcher // the first plain word is the pattern, not a file
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			continue
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if a == "-e" || a == "--regexp" || a == "-f" || a == "--file" || (name == "sed" && a == "--expression") {
				pattern = false // the pattern came as an option
			}
			if withValue[a] && !(name == "sed" && a == "-n") && !(name == "rg" && a == "-n") && !(name == "grep" && (a == "-n" || a == "-c")) && !(name == "wc" && a == "-c") {
				i++
			}
			continue
		case pattern:
			pattern = false
			continue
		case strings.ContainsAny(a, "<>"):
			if strings.TrimLeft(a, "0123456789<>") == "" {
				i++ // the file redirected to or from
			}
			continue
		case a == "" || a == "/dev/null":
			continue
		}
		if !reader && !hasExtension(a) || !strings.ContainsFunc(a, unicode.IsLetter) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// hasExtension reports whether a path's base name has an extension (or is
// a dotfile): what a file searched looks like, apart from a directory.
func hasExtension(p string) bool {
	base := path.Base(filepath.ToSlash(p))
	return strings.LastIndexByte(base, '.') > 0 || strings.HasPrefix(base, ".") && len(base) > 1 && base != ".."
}

// joinDir is p taken from dir when relative.
func joinDir(dir, p string) string {
	p = strings.TrimSpace(p)
	if p == "" || p == "-" || dir == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
		return p
	}
	return filepath.ToSlash(filepath.Join(dir, p))
}

// shellCommands splits a command line into its simple commands (at
// unquoted |, ;, &, newlines and parentheses), each as its words the way
// a POSIX shell reads them: quotes removed, backslash escapes taken; a
// word holding an expansion ($, `) or a glob keeps it (and is no file the
// working set names).
func shellCommands(s string) [][]string {
	var cmds [][]string
	var words []string
	var b strings.Builder
	// A word is s[start:i] while it holds no quote nor escape (no copy),
	// else it is built in b.
	start, in, built, quote := 0, false, false, byte(0)
	begin := func(i int) {
		if !in {
			start, in, built = i, true, false
		}
	}
	build := func(i int) { // from here on the word is built
		if !built {
			b.Reset()
			b.WriteString(s[start:i])
			built = true
		}
	}
	endWord := func(i int) {
		if in {
			if built {
				words = append(words, b.String())
			} else {
				words = append(words, s[start:i])
			}
			in = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				b.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0:
				i++
				b.WriteByte(s[i])
			default:
				b.WriteByte(c)
			}
		case c == '\'' || c == '"':
			begin(i)
			build(i)
			quote = c
		case c == '\\' && i+1 < len(s):
			begin(i)
			build(i)
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
		case c == ' ' || c == '\t' || c == '\r':
			endWord(i)
		case strings.IndexByte("|;&\n()", c) >= 0:
			endWord(i)
			if len(words) > 0 {
				cmds = append(cmds, words)
				words = nil
			}
		default:
			begin(i)
			if built {
				b.WriteByte(c)
			}
		}
	}
	endWord(len(s))
	if len(words) > 0 {
		cmds = append(cmds, words)
	}
	return cmds
}
