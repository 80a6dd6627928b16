package testkit

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// Update is the one -update flag of every test binary that uses the kit:
// goldens change by the flag, never by hand.
var Update = flag.Bool("update", false, "rewrite golden files from what the tests produce")

// Check compares got with testdata/golden/name, or writes it there under -update.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (go test -update rewrites it):\n%s", path, got)
	}
}

// LongEnv is the switch that turns on the long tests: the end-to-end tests
// with the real clients and the stress tests. script/test and CI set it; a
// plain `go test ./...` leaves them out and stays quick.
const LongEnv = "CONTINUITY_LONG"

// Short reports whether the long tests are off: without LongEnv=1, or
// under -short.
func Short() bool { return testing.Short() || os.Getenv(LongEnv) != "1" }

// Long skips t unless the long tests are on, saying how to turn them on.
func Long(t testing.TB) {
	t.Helper()
	if Short() {
		t.Skip("a long test: set " + LongEnv + "=1 (script/test does)")
	}
}

// Sample is items whole when the long tests are on, and otherwise about n
// of them spread evenly (the first and the last among them): a quick run
// still meets every part of a corpus's range.
func Sample[T any](items []T, n int) []T {
	if !Short() || n <= 1 || len(items) <= n {
		return items
	}
	out := make([]T, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, items[i*(len(items)-1)/(n-1)])
	}
	return out
}

// AddFiles seeds f with each file that pattern (filepath.Glob's) matches.
func AddFiles(f *testing.F, pattern string) {
	paths, err := filepath.Glob(pattern)
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// ReadFile is the content of the file at path; a file that cannot be
// read fails the test.
func ReadFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Dir is the folder the environment variable name gives: files a test
// reads that are not committed (other people's, collected by hand). A
// test without it is skipped.
func Dir(t testing.TB, name string) string {
	t.Helper()
	dir := os.Getenv(name)
	if dir == "" {
		t.Skip(name + " names no folder")
	}
	return dir
}
