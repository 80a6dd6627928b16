// Package project locates a repository's continuity files: the ledger and
// handoff directories, and the per-worktree local state (active ledger, which
// agent session wrote which handoff, locks) kept under the git directory so it
// is never committed and needs no .gitignore entry.
package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/localstate"
	"github.com/continuity-md/continuity/internal/redact"
	"github.com/continuity-md/continuity/internal/safefile"
)

// ErrBadName reports a ledger name that is not a plain slug.
var ErrBadName = errors.New("invalid ledger name")

// Workspace is one repository (or plain directory) that continuity works in.
type Workspace struct {
	Root       string        // absolute repository root
	Repo       gitfacts.Repo // zero when Root is not in a git repository
	LedgerDir  string        // absolute
	HandoffDir string        // absolute
	Config     *LoadedConfig
	// Local is the worktree's local state: never committed.
	Local    *localstate.State
	redactor *redact.Redactor
}

// Open finds the workspace that dir belongs to, reading the configuration
// from the process environment. Outside a git repository the root is dir
// itself and local state lives under the user's state directory.
func Open(dir string) (*Workspace, error) { return OpenWith(dir, os.Getenv) }

// ErrBareRepo: the directory is a bare repository, or inside a git
// directory, with no working tree to keep ledgers and handoffs in.
var ErrBareRepo = errors.New("a bare git repository (or a git directory) has no work tree for continuity's files: run it in a clone with one")

// OpenWith is Open with the environment read through getenv.
func OpenWith(dir string, getenv func(string) string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("project directory %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("project directory %s: not a directory", dir)
	}
	p := &Workspace{Root: abs}
	var stateDir, common string
	repo, ferr := gitfacts.Find(abs)
	if gd, ok := gitfacts.GitDirAt(abs); ok && (ferr != nil || gd != repo.Root && strings.HasPrefix(gd, repo.Root+string(filepath.Separator))) {
		return nil, fmt.Errorf("%s: %w", gd, ErrBareRepo)
	}
	if ferr == nil {
		p.Repo = repo
		p.Root = repo.Root
		stateDir = filepath.Join(repo.GitDir, "continuity")
		common = filepath.Join(repo.CommonDir, "continuity", "shared")
	} else {
		base := getenv("XDG_STATE_HOME")
		if base == "" {
			home, herr := os.UserHomeDir()
			if herr != nil {
				return nil, fmt.Errorf("no git repository and no home directory for local state: %w", herr)
			}
			base = filepath.Join(home, ".local", "state")
		}
		sum := sha256.Sum256([]byte(abs))
		stateDir = filepath.Join(base, "continuity", filepath.Base(abs)+"-"+hex.EncodeToString(sum[:6]))
	}
	p.Config = loadConfig(p.Root, UserConfigDir(getenv), getenv)
	p.Local = localstate.New(stateDir, common, p.Redact)
	p.LedgerDir = filepath.Join(p.Root, filepath.FromSlash(p.Config.LedgerDir))
	p.HandoffDir = filepath.Join(p.Root, filepath.FromSlash(p.Config.HandoffDir))
	return p, nil
}

// OptedIn reports whether the repository has chosen continuity (a config
// file or a ledger directory). Hooks write nothing to a repository that has not.
func (p *Workspace) OptedIn() bool {
	if _, err := os.Stat(filepath.Join(p.Root, ConfigFile)); err == nil {
		return true
	}
	st, err := os.Stat(p.LedgerDir)
	return err == nil && st.IsDir()
}

// Rel returns path relative to the project root, with forward slashes, or
// path itself when it lies outside.
func (p *Workspace) Rel(path string) string {
	r, err := filepath.Rel(p.Root, path)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return path
	}
	return filepath.ToSlash(r)
}

// Redactor finds secrets by the built-in rules and the project's own
// (redact.extra, redact.allow). Built on first use.
func (p *Workspace) Redactor() *redact.Redactor {
	if p.redactor == nil {
		var cfg redact.Config
		if p.Config != nil {
			cfg = p.Config.Redact
		}
		r, err := redact.New(cfg)
		if err != nil { // the configuration was checked on load; this is only a fallback
			r, _ = redact.New(redact.Config{})
		}
		p.redactor = r
	}
	return p.redactor
}

// AllowanceNotes says what the configuration's redact.allow entries did
// in this process, one line each (none when they did nothing): what an
// entry spared, with the entry, so a committed entry never spares a value
// unsaid; and what an entry matched without naming it, redacted anyway.
func (p *Workspace) AllowanceNotes() []string {
	if p.redactor == nil {
		return nil
	}
	var out []string
	for _, a := range p.redactor.Allowances() {
		if a.Spared > 0 {
			out = append(out, fmt.Sprintf("redact allow %q spared %d %s value(s) it names (left in the text)", a.Entry, a.Spared, a.Kind))
		}
		if a.Overruled > 0 {
			out = append(out, fmt.Sprintf("redact allow %q matches %d %s value(s) without naming them (a prefix, a length, a name or a fragment): redacted anyway; write the whole false positive", a.Entry, a.Overruled, a.Kind))
		}
	}
	return out
}

// Redact returns s with every secret replaced by a marker such as
// [REDACTED:github-token]. Whatever the project writes to a file that may be
// committed, or injects, goes through it.
func (p *Workspace) Redact(s string) string {
	out, _ := p.Redactor().Redact(s)
	return out
}

// WriteOptions are the safefile options for files in this workspace.
// Writes never land in the repository's git directories, whatever symlink
// a commit planted.
func (p *Workspace) WriteOptions() safefile.Options {
	return safefile.Options{LockDir: p.Local.LockDir(), Root: p.Root, Avoid: p.gitDirs()}
}

// gitDirs are the repository's git directories: this worktree's and the
// common one.
func (p *Workspace) gitDirs() []string {
	if p.Repo.GitDir == "" {
		return nil
	}
	return []string{p.Repo.GitDir, p.Repo.CommonDir}
}

// plainToken reports whether s is 1 to max characters from [A-Za-z0-9]
// and extra, starting with a letter or digit unless anyFirst. (A loop, not
// a regexp: every hook checks names, and compiling regexps at start-up
// costs a short-lived process more than the check itself.)
func plainToken(s string, max int, extra string, anyFirst bool) bool {
	if len(s) == 0 || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			continue
		}
		if (i > 0 || anyFirst) && strings.IndexByte(extra, c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// CheckName refuses a ledger name that could escape the ledger directory or
// is not a plain slug.
func CheckName(name string) error {
	if !plainToken(name, 100, "._-", false) || strings.Contains(name, "..") {
		return fmt.Errorf("%w %q: use letters, digits, '-', '_' or '.' (at most 100), e.g. auth-refactor", ErrBadName, quoteCut(name))
	}
	if fs := redact.Scan([]byte(name)); len(fs) > 0 {
		// A name becomes a committed file's name: never a credential's.
		return fmt.Errorf("%w: it looks like a secret (%s); a ledger's name is a committed file's name", ErrBadName, fs[0].Kind)
	}
	return nil
}

// quoteCut shortens a rejected name for an error message, so a
// 10,000-character name still makes one readable line.
func quoteCut(name string) string {
	if r := []rune(name); len(r) > 60 {
		return string(r[:40]) + fmt.Sprintf("…(%d characters)", len(r))
	}
	return name
}

// StreamKey is a work stream's name without the spelling others vary:
// case, '_' for '-', and Continuous-Claude's "CLAUDE-" prefix. Names with
// one key are one stream when continuity reads what others wrote
// (thoughts/shared/handoffs/Beat_Studio/ and CONTINUITY_CLAUDE-beat-studio.md);
// the key is also the one form continuity writes a new stream's files in.
func StreamKey(name string) string {
	if rest, ok := strings.CutPrefix(name, "CLAUDE-"); ok && rest != "" {
		name = rest
	}
	return strings.ReplaceAll(strings.ToLower(name), "_", "-")
}

// ledgerName is the stream name of a ledger file's name (CONTINUITY_x.md,
// Continuous-Claude's CONTINUITY_CLAUDE-x.md), "" for another file.
func ledgerName(file string) (name string, native bool) {
	n, ok := strings.CutPrefix(file, "CONTINUITY_")
	if !ok || !strings.HasSuffix(n, ".md") {
		return "", false
	}
	n = strings.TrimSuffix(n, ".md")
	if rest, ok := strings.CutPrefix(n, "CLAUDE-"); ok && rest != "" {
		return rest, false
	}
	return n, true
}

// LedgerPath is the path of the ledger named name: CONTINUITY_<name>.md
// when it exists, else the ledger of the same stream under another
// spelling (Continuous-Claude's CONTINUITY_CLAUDE-<name>.md, Beat_Studio
// for beat-studio; a native one first), else CONTINUITY_<key>.md, the one
// form continuity writes a new ledger in.
func (p *Workspace) LedgerPath(name string) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	path := filepath.Join(p.LedgerDir, "CONTINUITY_"+name+".md")
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return path, nil
	}
	if ls, _ := p.Ledgers(); len(ls) > 0 {
		key := StreamKey(name)
		for _, l := range ls {
			if StreamKey(l.Name) == key {
				return l.Path, nil
			}
		}
	}
	return filepath.Join(p.LedgerDir, "CONTINUITY_"+StreamKey(name)+".md"), nil
}

// StreamHandoffDir is the directory holding the named work stream's
// handoffs: the folder of that name when it exists, else the stream's
// folder under another spelling (Continuous-Claude's Beat_Studio for
// beat-studio or CLAUDE-beat-studio), else the folder named by its key,
// the one form continuity creates.
func (p *Workspace) StreamHandoffDir(name string) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	dir := filepath.Join(p.HandoffDir, name)
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		return dir, nil
	}
	if dirs := p.streamDirs(name); len(dirs) > 0 {
		return dirs[0], nil
	}
	return filepath.Join(p.HandoffDir, StreamKey(name)), nil
}

// streamDirs lists the folders of the handoff directory that hold the
// named stream's handoffs under any spelling, the exact name first, then
// by name.
func (p *Workspace) streamDirs(name string) []string {
	ents, err := os.ReadDir(p.HandoffDir)
	if err != nil {
		return nil
	}
	key := StreamKey(name)
	var out []string
	for _, e := range ents {
		if n := e.Name(); e.IsDir() && StreamKey(n) == key && CheckName(n) == nil {
			if n == name {
				out = append([]string{filepath.Join(p.HandoffDir, n)}, out...)
				continue
			}
			out = append(out, filepath.Join(p.HandoffDir, n))
		}
	}
	return out
}

// LedgerInfo is one ledger file found in the ledger directory.
type LedgerInfo struct {
	Name    string
	Path    string
	ModTime int64 // unix nanoseconds
}

// Ledgers lists the ledgers in the ledger directory, most recently modified first.
func (p *Workspace) Ledgers() ([]LedgerInfo, error) {
	ents, err := os.ReadDir(p.LedgerDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list ledgers: %w", err)
	}
	// One ledger a stream: Continuous-Claude's CONTINUITY_CLAUDE-x.md is
	// work stream x (its handoffs are in the folder x), and names that
	// differ only in spelling (see StreamKey) are one stream. A native
	// ledger wins over Continuous-Claude's, then the key's own spelling,
	// then the first by name (ReadDir sorts); doctor names the others.
	var out []LedgerInfo
	at := map[string]int{}
	native := map[string]bool{}
	for _, e := range ents {
		n := e.Name()
		name, nat := ledgerName(n)
		if name == "" || e.IsDir() || CheckName(name) != nil {
			continue
		}
		key := StreamKey(name)
		i, dup := at[key]
		if dup && (native[key] && !nat || native[key] == nat && out[i].Name == key) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		li := LedgerInfo{Name: name, Path: filepath.Join(p.LedgerDir, n), ModTime: info.ModTime().UnixNano()}
		native[key] = nat
		if dup {
			out[i] = li
			continue
		}
		at[key] = len(out)
		out = append(out, li)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].ModTime != out[j].ModTime {
			return out[i].ModTime > out[j].ModTime
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// MkdirAll creates dir and its parents inside the project root only: a
// directory of the repository that is a symlink to elsewhere makes it fail
// with nothing created.
func (p *Workspace) MkdirAll(dir string) error {
	return safefile.MkdirAllAvoiding(dir, p.Root, p.gitDirs(), 0o755)
}

// EnvLedger names the environment variable that selects the active ledger
// (exported to the agent's shell through CLAUDE_ENV_FILE at SessionStart).
const EnvLedger = "CONTINUITY_LEDGER"

// ErrNoLedger reports that the workspace has no ledger to work on.
var ErrNoLedger = errors.New("no ledger yet")

// Active resolves the active ledger's name and says how it was chosen: the
// CONTINUITY_LEDGER variable, the worktree's `continuity use` choice, the
// ledger named after the current branch, or the most recently modified one.
func (p *Workspace) Active(getenv func(string) string) (name, why string, err error) {
	if getenv != nil {
		if v := strings.TrimSpace(getenv(EnvLedger)); v != "" {
			if err := CheckName(v); err != nil {
				return "", "", fmt.Errorf("%s: %w", EnvLedger, err)
			}
			return v, "set by " + EnvLedger, nil
		}
	}
	if v := p.Local.Chosen(); v != "" && CheckName(v) == nil {
		return v, "chosen with continuity use", nil
	}
	if p.Repo.Root != "" {
		if slug := gitfacts.Slug(gitfacts.Branch(p.Repo)); slug != "" {
			if path, err := p.LedgerPath(slug); err == nil {
				if _, err := os.Stat(path); err == nil {
					return slug, "named after the current branch", nil
				}
			}
		}
	}
	ls, err := p.Ledgers()
	if err != nil {
		return "", "", err
	}
	if len(ls) == 0 {
		return "", "", ErrNoLedger
	}
	return ls[0].Name, "the most recently modified ledger", nil
}

// SetActive records name as this worktree's active ledger.
func (p *Workspace) SetActive(name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	return p.Local.Choose(name)
}
