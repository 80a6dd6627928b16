//go:build !linux && !darwin

package proc

// Supported is true where processes can be identified.
const Supported = false

func lookup(int) (info, error) { return info{}, ErrUnsupported }
