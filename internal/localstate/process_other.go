//go:build !linux && !darwin && !windows

package localstate

import "time"

// Supported is true where processes can be identified.
const ProcessesSupported = false

// tick is the unit of a start time.
const tick = time.Second

func lookup(int) (info, error) { return info{}, ErrNoProcessIdentity }

func where() string { return "" }
