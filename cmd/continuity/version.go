package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// devVersion is the version of a build that says nothing better.
const devVersion = "0.1.0-dev"

// version, commit and date are set at link time by script/dist (GoReleaser:
// -ldflags "-X main.version=… -X main.commit=… -X main.date=…"). Left
// unset, they are read from the build information the go command records
// (see readStamp): `go install …@v1.2.0` gives the version, a build in a
// clone the commit and its time.
var (
	version = devVersion
	commit  string
	date    string
)

func init() {
	version = moduleVersion(version, debug.ReadBuildInfo)
}

// moduleVersion returns set unless it is devVersion and the build info
// holds a real module version (not "(devel)", as `go run` and tests record),
// which it returns without its leading "v".
func moduleVersion(set string, readBuildInfo func() (*debug.BuildInfo, bool)) string {
	if set != devVersion {
		return set
	}
	info, ok := readBuildInfo()
	if !ok || info == nil || info.Main.Version == "" || info.Main.Version == "(devel)" {
		return set
	}
	return strings.TrimPrefix(info.Main.Version, "v")
}

// buildStamp is what a binary says of its own build.
type buildStamp struct {
	Version string `json:"version"`
	// Commit is the full revision the binary was built from.
	Commit string `json:"commit,omitempty"`
	// Date is the commit's time (script/dist stamps the commit date, not
	// the build's, so that a build is reproducible; go build records it).
	Date string `json:"date,omitempty"`
	// Modified: built from a work tree with uncommitted changes.
	Modified bool `json:"modified,omitempty"`
}

// readStamp is the stamp of this binary: what the linker set wins, and what
// it left empty comes from the go command's build info (vcs.revision,
// vcs.time, vcs.modified), which a build from a clone records and `go
// install …@version` (a module, no repository) does not.
func readStamp(version, commit, date string, readBuildInfo func() (*debug.BuildInfo, bool)) buildStamp {
	s := buildStamp{Version: version, Commit: commit, Date: date}
	if commit != "" {
		return s
	}
	info, ok := readBuildInfo()
	if !ok || info == nil {
		return s
	}
	for _, kv := range info.Settings {
		switch kv.Key {
		case "vcs.revision":
			s.Commit = kv.Value
		case "vcs.time":
			if s.Date == "" {
				s.Date = kv.Value
			}
		case "vcs.modified":
			s.Modified = kv.Value == "true"
		}
	}
	return s
}

// String is the line `continuity version` prints: the version, then the
// commit (12 digits) and its date when known.
func (s buildStamp) String() string {
	line := "continuity " + s.Version
	var about []string
	if s.Commit != "" {
		c := s.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if s.Modified {
			c += ", modified"
		}
		about = append(about, "commit "+c)
	}
	if s.Date != "" {
		about = append(about, s.Date)
	}
	if len(about) > 0 {
		line += " (" + strings.Join(about, ", ") + ")"
	}
	return line
}

// versionLine is what `continuity version` and `continuity --version` print.
func versionLine() string { return readStamp(version, commit, date, debug.ReadBuildInfo).String() }

type versionOptions struct{ JSON bool }

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := versionOptions{JSON: a.json}
			return a.runWith(o, func() error { return runVersion(a, o) })
		},
	}
}

func runVersion(a *app, o versionOptions) error {
	if o.JSON {
		return writeJSON(a.out, readStamp(version, commit, date, debug.ReadBuildInfo))
	}
	fmt.Fprintln(a.out, versionLine())
	return nil
}
