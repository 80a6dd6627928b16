package install

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Git runs git in the repository init works on and returns its standard
// output. The caller supplies it (the project's one git runner), so this
// package never starts a process itself.
type Git func(args ...string) ([]byte, error)

// MergeDriver is the name of the git merge driver init registers for ledgers.
const MergeDriver = "continuity-ledger"

// attrSuffix ends every .gitattributes line init writes.
const attrSuffix = "CONTINUITY_*.md merge=" + MergeDriver

// AttributesLine is the .gitattributes line that sends the ledgers in
// ledgerDir (relative to the repository root, with forward slashes) to the
// driver; ok is false for a directory outside the repository or with a name
// .gitattributes cannot hold unquoted.
func AttributesLine(ledgerDir string) (line string, ok bool) {
	if ledgerDir == "" || strings.HasPrefix(ledgerDir, "/") || ledgerDir == ".." || strings.HasPrefix(ledgerDir, "../") ||
		strings.ContainsAny(ledgerDir, "\"\\#") || len(ledgerDir) > 1 && ledgerDir[1] == ':' || !utf8.ValidString(ledgerDir) ||
		strings.IndexFunc(ledgerDir, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return "", false
	}
	if ledgerDir == "." {
		return attrSuffix, true
	}
	return strings.TrimSuffix(ledgerDir, "/") + "/" + attrSuffix, true
}

// isOurAttributesLine reports a line of the form AttributesLine writes, for
// any ledger directory: one init wrote before ledger_dir changed is still ours.
func isOurAttributesLine(l string) bool {
	f := strings.Fields(l)
	if len(f) != 2 || f[1] != "merge="+MergeDriver {
		return false
	}
	return f[0] == "CONTINUITY_*.md" || strings.HasSuffix(f[0], "/CONTINUITY_*.md")
}

// splitLines splits src after each "\n", the last line possibly unterminated.
func splitLines(src []byte) []string {
	if len(src) == 0 {
		return nil
	}
	return strings.SplitAfter(string(src), "\n")
}

// content is a line without its line end.
func content(l string) string { return strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r") }

// AddAttributes returns .gitattributes (its bytes; empty when there is none)
// with line: unchanged when it is there already; in place of a line of the
// same form for another ledger directory (ledger_dir changed since the last
// init), further ones dropped; else appended, ending like the file's lines.
func AddAttributes(src []byte, line string) (out []byte, changed bool) {
	lines := splitLines(src)
	var b strings.Builder
	placed := false // whether line is in b; an exact copy of it is the one kept
	exact := -1
	for i, l := range lines {
		if strings.TrimSpace(content(l)) == line {
			exact = i
			break
		}
	}
	for i, l := range lines {
		c := content(l)
		if !isOurAttributesLine(c) {
			b.WriteString(l)
			continue
		}
		switch {
		case i == exact:
			b.WriteString(l)
			placed = true
		case !placed && exact < 0:
			b.WriteString(strings.Replace(l, strings.TrimSpace(c), line, 1))
			placed = true
		}
	}
	if !placed {
		s := b.String()
		nl := "\n"
		if strings.Contains(s, "\r\n") {
			nl = "\r\n"
		}
		if s != "" && !strings.HasSuffix(s, "\n") {
			b.WriteString(nl)
		}
		b.WriteString(line + nl)
	}
	if b.String() == string(src) {
		return src, false
	}
	return []byte(b.String()), true
}

// RemoveAttributes returns .gitattributes without every line of the form
// AddAttributes writes. Everything else is kept byte for byte; an empty
// result means nothing else was in the file, and the caller removes it.
func RemoveAttributes(src []byte) (out []byte, changed bool) {
	var b strings.Builder
	for _, l := range splitLines(src) {
		if isOurAttributesLine(content(l)) {
			changed = true
			continue
		}
		b.WriteString(l)
	}
	if !changed {
		return src, false
	}
	return []byte(b.String()), true
}

// AttributesStatus returns the lines of .gitattributes that send ledgers to
// the driver, in order (several, or one for another directory, are what
// AddAttributes would rewrite).
func AttributesStatus(src []byte) []string {
	var found []string
	for _, l := range splitLines(src) {
		if c := content(l); isOurAttributesLine(c) {
			found = append(found, strings.TrimSpace(c))
		}
	}
	return found
}

// DriverCommand is the git config driver line that runs prefix (the program
// that runs continuity) as the merge driver. With labels (git 2.44 and
// later, see Labels), git also passes the names of the merged branches so
// that conflict markers name them; an older git would pass "%X" literally.
func DriverCommand(prefix string, labels bool) string {
	cmd := prefix + " merge-ledger"
	if labels {
		cmd += " --base-label %S --ours-label %X --theirs-label %Y"
	}
	return cmd + " %O %A %B %P"
}

// Labels reports whether the git whose `git version` output is version
// expands the %S, %X and %Y placeholders in a merge driver (git 2.44 and
// later). An output it cannot read is an older git.
func Labels(version string) bool {
	f := strings.Fields(version)
	if len(f) < 3 || f[0] != "git" || f[1] != "version" {
		return false
	}
	parts := strings.SplitN(f[2], ".", 3)
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return major > 2 || major == 2 && minor >= 44
}

// driverConfig is the configuration that defines the driver, in the order set.
func driverConfig(command string) [][2]string {
	return [][2]string{
		{"merge." + MergeDriver + ".name", "continuity ledger merge"},
		{"merge." + MergeDriver + ".driver", command},
	}
}

// config reads git's configuration (every scope, or only the repository's
// with local) as key → last value. Keys are as git prints them: section
// and variable lowercased, the subsection as written.
func config(git Git, local bool) (map[string]string, error) {
	args := []string{"config", "--list", "-z"}
	if local {
		args = []string{"config", "--local", "--list", "-z"}
	}
	out, err := git(args...)
	if err != nil {
		return nil, err
	}
	kv := map[string]string{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		k, v, _ := strings.Cut(string(rec), "\n")
		kv[k] = v
	}
	return kv, nil
}

// AddMergeDriver defines the driver in the repository's local git config
// (never committed, so each clone runs init once) to run command, setting
// only what differs.
func AddMergeDriver(git Git, command string) (changed bool, err error) {
	have, err := config(git, true)
	if err != nil {
		return false, err
	}
	for _, kv := range driverConfig(command) {
		if v, ok := have[kv[0]]; ok && v == kv[1] {
			continue
		}
		if _, err := git("config", "--local", kv[0], kv[1]); err != nil {
			return changed, err
		}
		changed = true
	}
	return changed, nil
}

// RemoveMergeDriver removes the driver's section from the repository's
// local git config; changed is false when it was not there.
func RemoveMergeDriver(git Git) (changed bool, err error) {
	have, err := config(git, true)
	if err != nil {
		return false, err
	}
	prefix := "merge." + MergeDriver + "."
	for k := range have {
		if strings.HasPrefix(k, prefix) {
			if _, err := git("config", "--local", "--remove-section", "merge."+MergeDriver); err != nil {
				return false, err
			}
			return true, nil
		}
	}
	return false, nil
}

// MergeDriverStatus returns the merge attribute git gives the file path
// (relative to the repository root: "unspecified", "set", "unset" or a
// driver's name) and, when it names a driver, the command git config
// defines for it in any scope ("" when none: a fresh clone).
func MergeDriverStatus(git Git, path string) (attr, driver string, err error) {
	out, err := git("check-attr", "merge", "--", path)
	if err != nil {
		return "", "", err
	}
	// "PATH: merge: VALUE"
	line := strings.TrimSpace(string(out))
	i := strings.LastIndex(line, ": merge: ")
	if i < 0 {
		return "", "", fmt.Errorf("git check-attr: unexpected output %q", line)
	}
	attr = line[i+len(": merge: "):]
	switch attr {
	case "unspecified", "set", "unset":
		return attr, "", nil
	}
	kv, err := config(git, false)
	if err != nil {
		return "", "", err
	}
	return attr, kv["merge."+attr+".driver"], nil
}
