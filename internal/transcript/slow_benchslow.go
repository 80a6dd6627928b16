//go:build benchslow

package transcript

import "time"

// The benchslow build's accumulator spends 20 µs of CPU on each
// observation (about half a second on a 200 MB transcript): a regression
// script/bench must fail on (script/bench -tags benchslow).
func init() {
	slowdown = func() {
		for start := time.Now(); time.Since(start) < 20*time.Microsecond; {
		}
	}
}
