package core

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestMarkGiven: the time a stream was last given is read back as it was
// marked, a later mark replaces it, and a link planted where the marker
// goes is neither followed nor taken for one.
func TestMarkGiven(t *testing.T) {
	r := newRepo(t)
	if got := lastGiven(r.p, "auth"); !got.IsZero() {
		t.Fatalf("never marked: %v", got)
	}
	t1 := time.Date(2026, 11, 22, 14, 5, 9, 123456789, time.UTC)
	markGiven(r.p, "auth", t1)
	if got := lastGiven(r.p, "auth"); !got.Equal(t1) {
		t.Fatalf("after a mark at %v: %v", t1, got)
	}
	t2 := t1.Add(90 * time.Minute)
	markGiven(r.p, "auth", t2)
	if got := lastGiven(r.p, "auth"); !got.Equal(t2) {
		t.Fatalf("after a mark at %v: %v", t2, got)
	}
	if runtime.GOOS == "windows" {
		return
	}
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(victim)
	if err := os.Symlink(victim, givenFile(r.p, "billing")); err != nil {
		t.Fatal(err)
	}
	markGiven(r.p, "billing", t2)
	after, _ := os.Stat(victim)
	if !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the link's target was touched: %v -> %v", before.ModTime(), after.ModTime())
	}
	if got := lastGiven(r.p, "billing"); !got.IsZero() {
		t.Errorf("a link read as a marker: %v", got)
	}
}
