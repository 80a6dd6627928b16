package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/inject"
	"github.com/continuity-md/continuity/internal/project"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/ledger"
)

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// editActive makes edits on the active ledger (or the one named) under the
// lock, refreshing `updated`. A ledger that does not parse is left untouched.
// build makes the edits from text passed through red, which redacts secrets.
func (a *app) editActive(name string, build func(red func(string) string) []ledger.Edit) (string, error) {
	p, err := a.project()
	if err != nil {
		return "", err
	}
	edits := build(p.Redact)
	if name == "" {
		if name, err = a.activeName(p); err != nil {
			return "", err
		}
	}
	path, err := p.LedgerPath(name)
	if err != nil {
		return "", err
	}
	rel := p.Rel(path)
	err = safefile.Update(path, p.WriteOptions(), func(old []byte) ([]byte, error) {
		if old == nil {
			return nil, fmt.Errorf("ledger %s: %w (see `continuity list`)", rel, ledger.ErrNotFound)
		}
		// Apply parses and checks the ledger itself (a YAML parse less
		// on a long ledger); only a failed edit is explained by the
		// ledger's own problems, with its path and lines.
		out, err := ledger.Apply(old, a.now(), edits...)
		if err != nil {
			if _, perr := ledger.Parse(rel, old); perr != nil {
				return nil, perr
			}
		}
		return out, ledger.WithPath(err, rel)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return rel, fmt.Errorf("ledger %s: %w (see `continuity list`)", rel, ledger.ErrNotFound)
	}
	return rel, err
}

type newOptions struct {
	Name string
	Goal string
}

func newNewCmd(a *app) *cobra.Command {
	var o newOptions
	c := &cobra.Command{
		Use:   "new NAME",
		Short: "Start a ledger and make it active in this worktree",
		Long: `Start a ledger, thoughts/ledgers/CONTINUITY_NAME.md, and make it the active one in
this worktree. NAME is a slug such as auth-refactor; a work stream outlives many agent sessions.`,
		Example: `  continuity new auth-refactor --goal "Replace session cookies with short-lived JWTs"`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return runNew(a, o)
		},
	}
	c.Flags().StringVar(&o.Goal, "goal", "", "what this work stream is for")
	return c
}

func runNew(a *app, o newOptions) error {
	p, err := a.project()
	if err != nil {
		return err
	}
	path, err := p.LedgerPath(o.Name)
	if err != nil {
		return usageError{err}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create ledger directory: %w", err)
	}
	src := ledger.New(o.Name, p.Redact(o.Goal), a.now())
	if err := safefile.Create(path, src, p.WriteOptions()); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("ledger %s already exists (make it active with `continuity use %s`)", p.Rel(path), o.Name)
		}
		return err
	}
	if err := p.SetActive(o.Name); err != nil {
		return err
	}
	if a.json {
		return writeJSON(a.out, map[string]string{"name": o.Name, "path": p.Rel(path)})
	}
	fmt.Fprintf(a.out, "created %s (active in this worktree)\n", p.Rel(path))
	return nil
}

func newUseCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "use NAME",
		Short: "Make a ledger the active one in this worktree",
		Long: `Make a ledger the active one in this worktree. The choice is local state under the git
directory: never committed, no .gitignore entry needed. Without a choice the active ledger is
the one named after the current branch, else the most recently modified one.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runUse(a, args[0]) },
	}
}

func runUse(a *app, name string) error {
	p, err := a.project()
	if err != nil {
		return err
	}
	path, err := p.LedgerPath(name)
	if err != nil {
		return usageError{err}
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("ledger %s: %w (see `continuity list`)", p.Rel(path), ledger.ErrNotFound)
	}
	if err := p.SetActive(name); err != nil {
		return err
	}
	fmt.Fprintf(a.out, "active ledger: %s\n", p.Rel(path))
	return nil
}

func newScalarCmd(a *app, field string) *cobra.Command {
	short := map[string]string{"goal": "Set the goal of the active ledger", "now": "Set what is being worked on now"}[field]
	var ledgerName string
	c := &cobra.Command{
		Use:     field + " TEXT",
		Short:   short,
		Example: fmt.Sprintf("  continuity %s %q", field, map[string]string{"goal": "Replace session cookies with JWTs", "now": "Logout endpoint"}[field]),
		Args:    minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text := strings.TrimSpace(strings.Join(args, " "))
			if text == "" {
				return usageError{fmt.Errorf("%s needs a non-empty TEXT", field)}
			}
			rel, err := a.editActive(ledgerName, func(red func(string) string) []ledger.Edit {
				return []ledger.Edit{ledger.Set(field, red(text))}
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(a.out, "%s: %s (%s)\n", field, text, rel)
			return nil
		},
	}
	c.Flags().StringVarP(&ledgerName, "ledger", "l", "", "edit this ledger instead of the active one")
	return c
}

func newListEditCmd(a *app, verb string) *cobra.Command {
	key := map[string]string{"done": "done", "next": "next", "question": "questions"}[verb]
	short := map[string]string{
		"done":     "Record finished items (each also leaves next)",
		"next":     "Add items to what comes next",
		"question": "Record open questions",
	}[verb]
	var ledgerName string
	var remove bool
	c := &cobra.Command{
		Use:   verb + " TEXT...",
		Short: short,
		Long: short + `.
Each argument is one item: quote an item that has spaces. An item already in the list is not added twice.`,
		Example: fmt.Sprintf("  continuity %s \"Integration tests for refresh\" \"Update the API docs\"", verb),
		Args:    minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var items []string
			for _, s := range args {
				if s = strings.TrimSpace(s); s != "" {
					items = append(items, s)
				}
			}
			if len(items) == 0 {
				return usageError{fmt.Errorf("%s needs a non-empty TEXT", verb)}
			}
			rel, err := a.editActive(ledgerName, func(red func(string) string) []ledger.Edit {
				clean := make([]string, len(items))
				for i, it := range items {
					clean[i] = red(it)
				}
				if remove {
					var edits []ledger.Edit
					for _, it := range clean {
						edits = append(edits, ledger.RemoveExisting(key, it))
					}
					return edits
				}
				edits := []ledger.Edit{ledger.Append(key, clean...)}
				if verb == "done" {
					for _, it := range clean {
						edits = append(edits, ledger.Remove(ledger.KeyNext, it))
					}
				}
				return edits
			})
			if err != nil {
				return err
			}
			action := "added to"
			if remove {
				action = "removed from"
			}
			fmt.Fprintf(a.out, "%s %s %s (%s)\n", plural(len(items), "item"), action, key, rel)
			return nil
		},
	}
	c.Flags().StringVarP(&ledgerName, "ledger", "l", "", "edit this ledger instead of the active one")
	c.Flags().BoolVar(&remove, "remove", false, "remove the items instead of adding them")
	return c
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func newDecideCmd(a *app) *cobra.Command {
	var why, ledgerName string
	c := &cobra.Command{
		Use:     "decide TEXT --why TEXT",
		Short:   "Record a decision and why it was made",
		Example: `  continuity decide "RS256, not HS256" --why "keys rotate per service"`,
		Args:    minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text := strings.TrimSpace(strings.Join(args, " "))
			if text == "" || strings.TrimSpace(why) == "" {
				return usageError{errors.New("decide needs a decision TEXT and --why TEXT")}
			}
			d := ledger.Decision{Decision: text, Why: strings.TrimSpace(why), Date: a.now().UTC().Format("2006-01-02")}
			rel, err := a.editActive(ledgerName, func(red func(string) string) []ledger.Edit {
				d.Decision, d.Why = red(d.Decision), red(d.Why)
				return []ledger.Edit{ledger.Decide(d)}
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(a.out, "decision recorded (%s)\n", rel)
			return nil
		},
	}
	c.Flags().StringVar(&why, "why", "", "why the decision was made (required)")
	c.Flags().StringVarP(&ledgerName, "ledger", "l", "", "edit this ledger instead of the active one")
	return c
}

func newShowCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "show [NAME]",
		Short: "Print a ledger (the active one by default)",
		Long: `Print a ledger, the active one by default: styled for a terminal, the file's exact
bytes when piped, its parsed fields with --json. NO_COLOR turns styling off.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := a.project()
			if err != nil {
				return err
			}
			name := ""
			if len(args) == 1 {
				name = args[0]
			} else if name, err = a.activeName(p); err != nil {
				return err
			}
			path, err := p.LedgerPath(name)
			if err != nil {
				return usageError{err}
			}
			src, err := safefile.Read(path, p.WriteOptions())
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return fmt.Errorf("ledger %s: %w (see `continuity list`)", p.Rel(path), ledger.ErrNotFound)
				}
				return err
			}
			if !a.json && !a.isTerminal(a.out) {
				_, err = a.out.Write(src)
				return err
			}
			l, err := ledger.Parse(p.Rel(path), src)
			if err != nil {
				if !a.json {
					_, werr := a.out.Write(src) // show what is there; the problem goes to stderr
					fmt.Fprintf(a.errw, "continuity: %v\n", firstLine(err))
					return werr
				}
				return err
			}
			l.Path = p.Rel(path)
			if !a.json {
				renderLedger(a.out, l)
				return nil
			}
			return writeJSON(a.out, l)
		},
	}
}

type listHandoff struct {
	Path    string    `json:"path"`
	Event   string    `json:"event,omitempty"`
	Author  string    `json:"author,omitempty"`
	Branch  string    `json:"branch,omitempty"`
	Created time.Time `json:"created"`
	Stale   bool      `json:"stale"`
}

type listEntry struct {
	Name     string        `json:"name"`
	Path     string        `json:"path,omitempty"` // the ledger; "" when the work stream has handoffs only
	Active   bool          `json:"active"`
	Goal     string        `json:"goal,omitempty"`
	Now      string        `json:"now,omitempty"`
	Updated  string        `json:"updated,omitempty"`
	Problem  string        `json:"problem,omitempty"`
	Handoffs int           `json:"handoffs"`
	Authors  []string      `json:"authors"`
	Latest   *listHandoff  `json:"latest_handoff,omitempty"`
	Recent   []listHandoff `json:"recent_handoffs"`
}

func newListCmd(a *app) *cobra.Command {
	var recent int
	c := &cobra.Command{
		Use:   "list",
		Short: "List work streams: ledgers and their handoffs, whoever wrote them",
		Long: `List every work stream (a ledger, or handoffs that arrived from teammates), the active one
marked with *, with its goal and now, how many handoffs it has, who wrote the recent ones, and the
latest handoff: by whom, how long ago, on which branch, and whether it is stale (stale_after).`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if recent < 0 {
				return usageError{fmt.Errorf("--recent must be 0 or more, got %d", recent)}
			}
			p, err := a.project()
			if err != nil {
				return err
			}
			active, _, _ := p.Active(a.getenv)
			now := a.now()
			stale := time.Duration(p.Config.StaleAfter)
			entries := []listEntry{}
			for _, name := range workStreams(p) {
				e := listEntry{Name: name, Active: name == active, Authors: []string{}, Recent: []listHandoff{}}
				if lp, _ := p.LedgerPath(name); lp != "" {
					if _, err := os.Stat(lp); err == nil {
						e.Path = p.Rel(lp)
						if l, _, err := loadLedger(p, name); err != nil {
							e.Problem = strings.Split(err.Error(), "\n")[0]
						} else if l != nil {
							e.Goal, e.Now, e.Updated = l.Goal, l.Now, l.Updated
						}
					}
				}
				files := p.HandoffFiles(name)
				e.Handoffs = len(files)
				seen := map[string]bool{}
				for i := len(files) - 1; i >= 0 && len(files)-i <= recent; i-- {
					src, err := safefile.Read(files[i], p.WriteOptions())
					if err != nil {
						continue
					}
					h, err := handoff.Parse(src)
					if err != nil {
						continue
					}
					lh := listHandoff{Path: p.Rel(files[i]), Event: h.Meta.Event, Author: h.Meta.Author, Branch: h.Meta.Branch,
						Created: h.Meta.Created, Stale: stale > 0 && now.Sub(h.Meta.Created) > stale}
					e.Recent = append(e.Recent, lh)
					if e.Latest == nil {
						l := lh
						e.Latest = &l
					}
					if lh.Author != "" && !seen[lh.Author] {
						seen[lh.Author] = true
						e.Authors = append(e.Authors, lh.Author)
					}
				}
				entries = append(entries, e)
			}
			if a.json {
				return writeJSON(a.out, entries)
			}
			if len(entries) == 0 {
				fmt.Fprintln(a.out, "no ledgers yet: start one with `continuity new NAME --goal TEXT`")
				return nil
			}
			for _, e := range entries {
				mark := " "
				if e.Active {
					mark = "*"
				}
				fmt.Fprintf(a.out, "%s %s", mark, e.Name)
				switch {
				case e.Path == "":
					fmt.Fprint(a.out, "  (handoffs only, no ledger here)")
				case e.Updated != "":
					fmt.Fprintf(a.out, "  (updated %s)", e.Updated)
				}
				fmt.Fprintln(a.out)
				if e.Problem != "" {
					fmt.Fprintf(a.out, "    problem: %s\n", e.Problem)
				}
				if e.Goal != "" {
					fmt.Fprintf(a.out, "    goal: %s\n", e.Goal)
				}
				if e.Now != "" {
					fmt.Fprintf(a.out, "    now:  %s\n", e.Now)
				}
				if e.Latest != nil {
					staleMark := ""
					if e.Latest.Stale {
						staleMark = ", stale"
					}
					by := inject.Byline(handoff.Meta{Event: e.Latest.Event, Author: e.Latest.Author, Branch: e.Latest.Branch, Created: e.Latest.Created}, now)
					fmt.Fprintf(a.out, "    handoffs: %d, latest %s (%s%s)\n", e.Handoffs, e.Latest.Path, by, staleMark)
					if len(e.Authors) > 1 {
						fmt.Fprintf(a.out, "    recent authors: %s\n", strings.Join(e.Authors, ", "))
					}
				}
			}
			return nil
		},
	}
	c.Flags().IntVar(&recent, "recent", 10, "how many recent handoffs to read per work stream")
	return c
}

func newLintCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "lint [FILE...]",
		Short: "Validate ledgers (all of them by default); exit 1 on any problem",
		Long: `Validate ledgers and print each problem as FILE:LINE: PROBLEM. With no FILE, every ledger in
the ledger directory is checked. For pre-commit hooks and CI: exit 1 when any problem is found.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := a.project()
			if err != nil {
				return err
			}
			files := args
			if len(files) == 0 {
				infos, err := p.Ledgers()
				if err != nil {
					return err
				}
				for _, li := range infos {
					files = append(files, li.Path)
				}
			}
			bad := 0
			for _, f := range files {
				name := f
				if filepath.IsAbs(f) {
					name = p.Rel(f)
				}
				src, err := safefile.Read(f, safefile.Options{})
				if err == nil {
					_, err = ledger.Parse(name, src)
				} else {
					err = fmt.Errorf("%s: %w", name, err)
				}
				if err != nil {
					bad++
					fmt.Fprintln(a.out, err)
				}
			}
			if bad > 0 {
				fmt.Fprintf(a.errw, "continuity: %s with problems\n", plural(bad, "file"))
				return errSilent
			}
			if !a.json {
				fmt.Fprintf(a.out, "%s ok\n", plural(len(files), "ledger"))
			}
			return nil
		},
	}
}

// latestHandoff returns the newest handoff of work stream name, or "".
func latestHandoff(p *project.Project, name string) string {
	dir, err := p.HandoffSessionDir(name)
	if err != nil {
		return ""
	}
	path, err := handoff.Latest(dir)
	if err != nil {
		return ""
	}
	return path
}
