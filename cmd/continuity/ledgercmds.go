package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/ledger"
)

func newImportCmd(a *app) *cobra.Command {
	var stdout bool
	c := &cobra.Command{
		Use:   "import FILE",
		Short: "Convert a Continuous-Claude section-style ledger to the front matter form",
		Long: `Convert a section-style ledger (## Goal, ## Done, ## Now, ## Next, ## Decisions,
## Open Questions, ## Working Set) to continuity's front matter form, in place, atomically.
Other sections and notes are kept in the body. --stdout prints the result instead.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := a.project()
			if err != nil {
				return err
			}
			path := args[0]
			if !filepath.IsAbs(path) {
				path = filepath.Join(a.dir, path)
			}
			rel := p.Rel(path)
			var result []byte
			convert := func(old []byte) ([]byte, error) {
				if old == nil {
					return nil, fmt.Errorf("%s: %w", rel, fs.ErrNotExist)
				}
				out, err := ledger.Import(rel, old, a.now())
				if err != nil {
					return nil, err
				}
				// The converted ledger is a new file to commit: no secrets.
				out = []byte(p.Redact(string(out)))
				result = out
				if stdout {
					return nil, safefile.ErrNoChange
				}
				return out, nil
			}
			if stdout {
				src, err := safefile.Read(path, safefile.Options{})
				if err != nil {
					return err
				}
				if _, err := convert(src); err != nil && !errors.Is(err, safefile.ErrNoChange) {
					return err
				}
				_, err = a.out.Write(result)
				return err
			}
			if err := safefile.Update(path, p.WriteOptions(), convert); err != nil {
				return err
			}
			fmt.Fprintf(a.out, "converted %s to front matter form\n", rel)
			return nil
		},
	}
	c.Flags().BoolVar(&stdout, "stdout", false, "print the converted ledger instead of rewriting the file")
	return c
}
