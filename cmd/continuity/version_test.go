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

// TestReadStamp: what the linker set wins; what it left empty comes from
// the go command's VCS settings; the line shows the commit cut to 12 digits.
func TestReadStamp(t *testing.T) {
	vcs := func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "7e4dd79a1b2c3d4e5f60718293a4b5c6d7e8f901"},
			{Key: "vcs.time", Value: "2026-11-22T14:05:09Z"},
			{Key: "vcs.modified", Value: "true"},
		}}, true
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	for _, c := range []struct {
		name                  string
		version, commit, date string
		read                  func() (*debug.BuildInfo, bool)
		want                  buildStamp
		line                  string
	}{
		{"script/dist", "1.2.0", "abcdef0123456789", "2026-11-26T12:00:00Z", vcs,
			buildStamp{Version: "1.2.0", Commit: "abcdef0123456789", Date: "2026-11-26T12:00:00Z"},
			"continuity 1.2.0 (commit abcdef012345, 2026-11-26T12:00:00Z)"},
		{"go build in a clone", devVersion, "", "", vcs,
			buildStamp{Version: devVersion, Commit: "7e4dd79a1b2c3d4e5f60718293a4b5c6d7e8f901", Date: "2026-11-22T14:05:09Z", Modified: true},
			"continuity 0.1.0-dev (commit 7e4dd79a1b2c, modified, 2026-11-22T14:05:09Z)"},
		{"go install @v1.2.0", "1.2.0", "", "", none,
			buildStamp{Version: "1.2.0"}, "continuity 1.2.0"},
	} {
		got := readStamp(c.version, c.commit, c.date, c.read)
		if got != c.want {
			t.Errorf("%s: readStamp = %+v, want %+v", c.name, got, c.want)
		}
		if got.String() != c.line {
			t.Errorf("%s: line %q, want %q", c.name, got.String(), c.line)
		}
	}
}
