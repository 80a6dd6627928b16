package workspace

// The configuration: the repository's .continuity.yaml (committed) over the
// user's $XDG_CONFIG_HOME/continuity/config.yaml over built-in defaults,
// with CONTINUITY_* environment variables over all three. Every value
// remembers where it came from, and a bad file is reported with its line
// while the rest of the configuration keeps working.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/continuity-md/continuity/internal/redact"
	"github.com/continuity-md/continuity/internal/safefile"
)

// ConfigFile is the project configuration file, relative to the repository root.
const ConfigFile = ".continuity.yaml"

// MaxBudget is the largest budget accepted: anything at or over the host's
// 10,000-character cliff would be cut off by the host. The injector caps
// what it is given at the same figure (inject.MaxBudget is this constant).
const MaxBudget = 9900

// HandoffSections are the sections a handoff may hold, by config name.
var HandoffSections = []string{"state", "summary", "goal", "now", "done", "next", "decisions", "files", "commands", "errors", "requests"}

// Config is the effective configuration.
type Config struct {
	LedgerDir  string `yaml:"ledger_dir" json:"ledger_dir"`
	HandoffDir string `yaml:"handoff_dir" json:"handoff_dir"`
	// Budget is the most characters SessionStart injects (below the host's 10,000 cliff).
	Budget int `yaml:"budget" json:"budget"`
	// Sources says what SessionStart injects per source: full, short (goal, now, next) or none.
	Sources map[string]string `yaml:"sources" json:"sources"`
	Handoff struct {
		// Sections lists the handoff sections to write (empty: all).
		Sections []string `yaml:"sections" json:"sections"`
		// MaxBytes bounds a handoff's size.
		MaxBytes int `yaml:"max_bytes" json:"max_bytes"`
		// Template is a project's own handoff template, relative to the root ("" = the embedded one).
		Template string `yaml:"template" json:"template"`
		// Checks are a project's own test, build or lint commands, as
		// regular expressions over one command from its start
		// (`^\./scripts/ci\b`), beside the common toolchains'.
		Checks []string `yaml:"checks" json:"checks"`
	} `yaml:"handoff" json:"handoff"`
	// StaleAfter marks handoffs older than this as stale when injected and listed.
	StaleAfter Duration `yaml:"stale_after" json:"stale_after"`
	// Redact adds a project's secret patterns and known false positives
	// to the built-in rules.
	Redact    redact.Config `yaml:"redact" json:"redact"`
	Retention struct {
		Days int `yaml:"days" json:"days"`
		Max  int `yaml:"max" json:"max"`
	} `yaml:"retention" json:"retention"`
	Disable bool `yaml:"disable" json:"disable"`
	// Worktrees says whether a stream of the same name is one stream across
	// the repository's worktrees (shared: a start is given the newest
	// handoff and ledger state written in any of them) or each worktree's
	// own (isolated).
	Worktrees string `yaml:"worktrees" json:"worktrees"`
	// Subagents says what a subagent is given when it starts: full,
	// short (goal, now, next) or none.
	Subagents string `yaml:"subagents" json:"subagents"`
	// Sync says whether each stream's latest handoff, ledger and
	// uncommitted work travel through the repository's remote on refs of
	// continuity's own (ref) or stay on this machine (off, the default).
	Sync string `yaml:"sync" json:"sync"`
}

// Duration is a time.Duration written as 90m, 36h or 7d.
type Duration time.Duration

// UnmarshalYAML reads 90m, 36h, 7d or 2w.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseDuration(n.Value)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration in days when it is whole days.
func (d Duration) MarshalText() ([]byte, error) {
	t := time.Duration(d)
	if t > 0 && t%(24*time.Hour) == 0 {
		return []byte(strconv.Itoa(int(t/(24*time.Hour))) + "d"), nil
	}
	return []byte(t.String()), nil
}

// ParseDuration reads Go durations plus days (d) and weeks (w).
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			if v, err := strconv.ParseFloat(n, 64); err == nil && v >= 0 {
				return time.Duration(v * float64(unit)), nil
			}
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration (use 90m, 36h, 7d)", s)
	}
	return d, nil
}

// DefaultConfig returns the built-in configuration.
func DefaultConfig() Config {
	var c Config
	c.LedgerDir = "thoughts/ledgers"
	c.HandoffDir = "thoughts/shared/handoffs"
	c.Budget = 9000
	c.Sources = map[string]string{"startup": "full", "clear": "full", "compact": "full", "resume": "short", "fork": "short"}
	c.Handoff.MaxBytes = 24 << 10
	c.StaleAfter = Duration(7 * 24 * time.Hour)
	c.Retention.Days = 30
	c.Retention.Max = 200
	c.Worktrees = "shared"
	c.Subagents = "short"
	c.Sync = "off"
	return c
}

// LoadedConfig is a configuration with the origin of every key that was set.
type LoadedConfig struct {
	Config
	// From maps a key (e.g. "budget", "handoff.max_bytes") to where its value came from.
	From map[string]string
	// Problems are the errors found; the values they concern kept their earlier setting.
	Problems []error
}

// loadConfig reads the configuration for the repository at root. getenv reads the
// environment; userDir is the user's config directory ("" to skip).
func loadConfig(root, userDir string, getenv func(string) string) *LoadedConfig {
	l := &LoadedConfig{Config: DefaultConfig(), From: map[string]string{}}
	if userDir != "" {
		l.file(filepath.Join(userDir, "continuity", "config.yaml"), userDir)
	}
	if root != "" {
		l.file(filepath.Join(root, ConfigFile), root)
	}
	l.env(getenv)
	return l
}

// UserConfigDir is the user's configuration directory: $XDG_CONFIG_HOME, else ~/.config.
func UserConfigDir(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return d
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".config")
	}
	return ""
}

// MaxConfigSize bounds a configuration file: a committed file (or a symlink
// to a device) must not stall or exhaust every hook.
const MaxConfigSize = 256 << 10

// file merges one YAML file over the configuration so far. The file must
// be a regular file of at most MaxConfigSize bytes, inside within once its
// symlinks are resolved.
func (l *LoadedConfig) file(path, within string) {
	src, err := safefile.Read(path, safefile.Options{Root: within, MaxSize: MaxConfigSize})
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		l.Problems = append(l.Problems, fmt.Errorf("%s: not read: %w", path, errors.Unwrap(err)))
		return
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		l.Problems = append(l.Problems, fmt.Errorf("%s:%s (not valid YAML)", path, yamlErr(err)))
		return
	}
	if len(doc.Content) == 0 {
		return
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		l.Problems = append(l.Problems, fmt.Errorf("%s:%d: the configuration must be a mapping of keys", path, root.Line))
		return
	}
	// Each top-level key is decoded on its own, so one bad value costs only itself.
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		next := l.Config.clone()
		if err := decodeKey(&next, k.Value, v); err != nil {
			l.Problems = append(l.Problems, fmt.Errorf("%s:%d: %s: %v", path, v.Line, k.Value, err))
			continue
		}
		var refused []error
		next.Redact.Allow, refused = redact.SplitAllow(next.Redact.Allow)
		for _, err := range refused {
			l.Problems = append(l.Problems, fmt.Errorf("%s:%d: %v", path, v.Line, err))
		}
		if err := next.check(); err != nil {
			l.Problems = append(l.Problems, fmt.Errorf("%s:%d: %v", path, v.Line, err))
			continue
		}
		l.Config = next
		l.From[k.Value] = fmt.Sprintf("%s:%d", path, k.Line)
	}
}

// known lists the configuration's keys and, for nested ones, their keys.
var known = map[string][]string{
	"ledger_dir": nil, "handoff_dir": nil, "budget": nil, "sources": nil, "stale_after": nil, "disable": nil,
	"worktrees": nil, "subagents": nil, "sync": nil,
	"handoff": {"sections", "max_bytes", "template", "checks"}, "redact": {"extra", "allow"}, "retention": {"days", "max"},
}

// decodeKey sets one top-level key of c from a YAML node, refusing unknown
// keys, with errors that carry the file's own line numbers.
func decodeKey(c *Config, key string, v *yaml.Node) error {
	sub, ok := known[key]
	if !ok {
		return fmt.Errorf("unknown key (known: ledger_dir, handoff_dir, budget, sources, handoff, stale_after, redact, retention, disable, worktrees, subagents, sync)")
	}
	if sub != nil && v.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(v.Content); i += 2 {
			if !contains(sub, v.Content[i].Value) {
				return fmt.Errorf("unknown key %q (known: %s)", v.Content[i].Value, strings.Join(sub, ", "))
			}
		}
	}
	wrap := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: key}, v}}
	if err := wrap.Decode(c); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			return errors.New(typeProblem(te.Errors[0]))
		}
		return errors.New(strings.TrimSpace(yamlErr(err)))
	}
	return nil
}

// typeProblem says in words what a YAML type error means: "line 3: cannot
// unmarshal !!str `lots` into int" is "must be a whole number, got lots".
func typeProblem(e string) string {
	m := typeError().FindStringSubmatch(e)
	if m == nil {
		return e
	}
	want, ok := wanted[m[3]]
	if !ok {
		want = "a " + m[3]
	}
	got := m[2]
	switch {
	case m[1] == "seq":
		got = "a list"
	case m[1] == "map":
		got = "a mapping"
	case got == "":
		got = "!!" + m[1]
	}
	return "must be " + want + ", got " + got
}

// typeError is yaml.v3's wording of a value of the wrong type.
var typeError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("cannot unmarshal !!(\\w+) (?:`([^`]*)` )?into (\\S+)")
})

// wanted names the Go types of the configuration in words.
var wanted = map[string]string{
	"int": "a whole number", "bool": "true or false", "string": "text", "float64": "a number",
	"[]string": "a list", "map[string]string": "a mapping of keys", "[]redact.Rule": "a list of rules (name, pattern)",
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// clone copies c deeply enough that decoding into the copy leaves c alone.
func (c Config) clone() Config {
	m := make(map[string]string, len(c.Sources))
	for k, v := range c.Sources {
		m[k] = v
	}
	c.Sources = m
	c.Handoff.Sections = append([]string(nil), c.Handoff.Sections...)
	c.Handoff.Checks = append([]string(nil), c.Handoff.Checks...)
	c.Redact.Extra = append([]redact.Rule(nil), c.Redact.Extra...)
	c.Redact.Allow = append([]string(nil), c.Redact.Allow...)
	return c
}

func yamlErr(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "yaml: unmarshal errors:\n  ")
	s = strings.TrimPrefix(s, "yaml: ")
	if strings.HasPrefix(s, "line ") {
		if rest, ok := strings.CutPrefix(s, "line "); ok {
			if i := strings.Index(rest, ":"); i > 0 {
				return rest[:i] + ":" + rest[i+1:]
			}
		}
	}
	return " " + s
}

// check refuses values that would write outside the repository or break the host.
func (c Config) check() error {
	for name, dir := range map[string]string{"ledger_dir": c.LedgerDir, "handoff_dir": c.HandoffDir} {
		clean := filepath.ToSlash(filepath.Clean(dir))
		if dir == "" || filepath.IsAbs(dir) || clean == ".." || strings.HasPrefix(clean, "../") || clean == "." || strings.HasPrefix(clean, ".git/") || clean == ".git" {
			return fmt.Errorf("%s must be a directory inside the repository, got %q", name, dir)
		}
	}
	if c.Budget < 500 || c.Budget > MaxBudget {
		return fmt.Errorf("budget must be from 500 to 9,900 characters (Claude Code cuts 10,000 and more to a preview), got %d", c.Budget)
	}
	for src, policy := range c.Sources {
		switch src {
		case "startup", "resume", "clear", "compact", "fork":
		default:
			return fmt.Errorf("sources: unknown source %q (startup, resume, clear, compact, fork)", src)
		}
		switch policy {
		case "full", "short", "none":
		default:
			return fmt.Errorf("sources.%s must be full, short or none, got %q", src, policy)
		}
	}
	for _, sec := range c.Handoff.Sections {
		if !contains(HandoffSections, sec) {
			return fmt.Errorf("handoff.sections: unknown section %q (%s)", sec, strings.Join(HandoffSections, ", "))
		}
	}
	if t := filepath.ToSlash(filepath.Clean(c.Handoff.Template)); c.Handoff.Template != "" && (filepath.IsAbs(c.Handoff.Template) || strings.HasPrefix(t, "../")) {
		return fmt.Errorf("handoff.template must be a file inside the repository, got %q", c.Handoff.Template)
	}
	for _, re := range c.Handoff.Checks {
		if _, err := regexp.Compile(re); err != nil {
			return fmt.Errorf("handoff.checks: %q is not a regular expression: %v", re, err)
		}
	}
	if c.Handoff.MaxBytes < 2048 {
		return fmt.Errorf("handoff.max_bytes must be at least 2048, got %d", c.Handoff.MaxBytes)
	}
	if len(c.Redact.Extra) > 0 || len(c.Redact.Allow) > 0 {
		if _, err := redact.New(c.Redact); err != nil {
			return err
		}
	}
	if c.Worktrees != "shared" && c.Worktrees != "isolated" {
		return fmt.Errorf("worktrees must be shared or isolated, got %q", c.Worktrees)
	}
	if c.Subagents != "full" && c.Subagents != "short" && c.Subagents != "none" {
		return fmt.Errorf("subagents must be full, short or none, got %q", c.Subagents)
	}
	if c.Sync != "off" && c.Sync != "ref" {
		return fmt.Errorf("sync must be off or ref, got %q", c.Sync)
	}
	if c.Retention.Days < 0 || c.Retention.Max < 0 {
		return errors.New("retention days and max must not be negative")
	}
	return nil
}

// env applies CONTINUITY_* overrides.
func (l *LoadedConfig) env(getenv func(string) string) {
	if getenv == nil {
		return
	}
	set := func(key, name string, apply func(c *Config, v string) error) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return
		}
		next := l.Config.clone()
		if err := apply(&next, v); err != nil {
			l.Problems = append(l.Problems, fmt.Errorf("%s: %v", name, err))
			return
		}
		if err := next.check(); err != nil {
			l.Problems = append(l.Problems, fmt.Errorf("%s: %v", name, err))
			return
		}
		l.Config = next
		l.From[key] = "$" + name
	}
	set("ledger_dir", "CONTINUITY_LEDGER_DIR", func(c *Config, v string) error { c.LedgerDir = v; return nil })
	set("handoff_dir", "CONTINUITY_HANDOFF_DIR", func(c *Config, v string) error { c.HandoffDir = v; return nil })
	set("budget", "CONTINUITY_BUDGET", func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		c.Budget = n
		return err
	})
	set("stale_after", "CONTINUITY_STALE_AFTER", func(c *Config, v string) error {
		d, err := ParseDuration(v)
		c.StaleAfter = Duration(d)
		return err
	})
	set("sync", "CONTINUITY_SYNC", func(c *Config, v string) error { c.Sync = v; return nil })
	set("disable", "CONTINUITY_DISABLE", func(c *Config, v string) error {
		c.Disable = v != "0" && !strings.EqualFold(v, "false") && !strings.EqualFold(v, "no") && !strings.EqualFold(v, "off")
		return nil
	})
}

// Summary is the configuration's problems in one line ("" when none), for
// a hook's stderr: one bad file is one line, however many values it got wrong.
func (l *LoadedConfig) Summary() string {
	switch len(l.Problems) {
	case 0:
		return ""
	case 1:
		return l.Problems[0].Error()
	}
	return fmt.Sprintf("%d problems, ignored; the first: %v (`continuity config` lists them)", len(l.Problems), l.Problems[0])
}
