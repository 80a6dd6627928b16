//go:build unix

package main

import (
	"os"
	"syscall"
)

// maxRSS is the largest resident set size of the finished process ps, in
// bytes (0 when the platform does not say).
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss) << 10 // kilobytes on Linux
	}
	return 0
}
