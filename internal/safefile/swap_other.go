//go:build !linux && !darwin

package safefile

import "errors"

// exchange is not available here: the caller falls back to a checked rename.
func exchange(a, b string) error { return errors.ErrUnsupported }
