package safefile_test

import (
	"os"
	"testing"
)

// TestMain fixes the umask the permission tests expect and, when the test
// binary is re-executed as a helper process (SAFEFILE_HELPER set), runs
// that helper instead of the tests.
func TestMain(m *testing.M) {
	setUmask()
	if role := os.Getenv("SAFEFILE_HELPER"); role != "" {
		os.Exit(runHelper(role))
	}
	os.Exit(m.Run())
}
