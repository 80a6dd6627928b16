package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// devVersion is the version of a build that says nothing better.
const devVersion = "0.1.0-dev"

// version is set at build time with -ldflags "-X main.version=…". Left at
// devVersion, it becomes the module version the go command recorded (see
// moduleVersion), so `go install …@v1.2.0` reports 1.2.0.
var version = devVersion

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

// versionLine is what `continuity version` and `continuity --version` print.
func versionLine() string { return "continuity " + version }

type versionOptions struct{ JSON bool }

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := versionOptions{JSON: a.json}
			return a.runWith(o, func() error { return runVersion(a, o) })
		},
	}
}

func runVersion(a *app, o versionOptions) error {
	if o.JSON {
		return writeJSON(a.out, map[string]string{"version": version})
	}
	fmt.Fprintln(a.out, versionLine())
	return nil
}
