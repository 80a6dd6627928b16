//go:build !linux && !darwin && !windows

package proc

import "time"

// Supported is true where processes can be identified.
const Supported = false

// tick is the unit of a start time.
const tick = time.Second

func lookup(int) (info, error) { return info{}, ErrUnsupported }

func where() string { return "" }
