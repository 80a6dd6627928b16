//go:build benchslow

package transcript

import "time"

// The benchslow build's accumulator spends 100 µs of CPU on each
// observation: on the bench's 200 MB transcript (about 2,000 of them)
// some 0.2 s more, nearly three times the cost. script/bench must fail on
// it: go run ./script/bench -quick -transcript -tags benchslow.
func init() {
	slowdown = func() {
		for start := time.Now(); time.Since(start) < 100*time.Microsecond; {
		}
	}
}
