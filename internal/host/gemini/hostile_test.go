package gemini

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestHostileFilesBounded: a workspace settings file that is a symlink to
// a device, and a transcript path on a /proc file or a FIFO, are refused
// at once, never read.
func TestHostileFilesBounded(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "settings.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool, 1)
	go func() {
		_, ok := settingsThreshold(zero)
		done <- ok
	}()
	select {
	case ok := <-done:
		if ok {
			t.Error("a threshold read from /dev/zero")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("settingsThreshold read /dev/zero")
	}
	for _, p := range []string{"/proc/kmsg", "/dev/zero", "/proc/self/fd/0"} {
		if f, _, err := openChat(p); err == nil {
			f.Close()
			t.Errorf("openChat(%s) opened it", p)
		}
	}
}
