package main

import (
	"runtime/debug"
	"testing"
)

// lessGC sets the collector's target unless GOGC is set.
func TestLessGC(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	lessGC(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("GC percent %d, want %d", got, gcPercent)
	}
	lessGC(func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent %d with GOGC set, want it left alone (100)", got)
	}
}
