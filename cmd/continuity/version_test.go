package main

import (
	"runtime/debug"
	"testing"
)

// TestModuleVersion: a version set with -ldflags wins; the default gives way
// to the module version go install records, but not to "(devel)" or nothing.
func TestModuleVersion(t *testing.T) {
	info := func(v string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Path: "github.com/continuity-md/continuity", Version: v}}, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	for _, c := range []struct {
		name string
		set  string
		read func() (*debug.BuildInfo, bool)
		want string
	}{
		{"go install @v1.2.0", devVersion, info("v1.2.0"), "1.2.0"},
		{"pseudo-version", devVersion, info("v0.0.0-20261122140509-7e4dd79a1b2c+dirty"), "0.0.0-20261122140509-7e4dd79a1b2c+dirty"},
		{"go run", devVersion, info("(devel)"), devVersion},
		{"empty", devVersion, info(""), devVersion},
		{"no build info", devVersion, none, devVersion},
		{"ldflags", "2.0.0", info("v1.2.0"), "2.0.0"},
	} {
		if got := moduleVersion(c.set, c.read); got != c.want {
			t.Errorf("%s: moduleVersion(%q) = %q, want %q", c.name, c.set, got, c.want)
		}
	}
}
