package gemini

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/agent"
)

// chatStore is HOME/.gemini/tmp of every home env makes: the only place
// a hook reads chats from.
var chatStore string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gemini-chats-")
	if err != nil {
		panic(err)
	}
	chatStore = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// storeDir is a new project's chats directory in the chat store.
func storeDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp(chatStore, "proj-")
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(dir, "chats")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

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
		if f, _, err := (Host{Getenv: env(t)}).openChat(p); err == nil {
			f.Close()
			t.Errorf("openChat(%s) opened it", p)
		}
	}
}

// TestChatConfined: the chat tail a hook looks at must lie in Gemini CLI's
// own chat store once symlinks are resolved: the same chat outside it, or
// reached through a symlink in the store that points out, is never read
// (PreCompress then stays Ignore, as for a missing chat), while the chat in
// the store makes the same PreCompress a BeforeCompact.
func TestChatConfined(t *testing.T) {
	getenv := env(t)
	h := Host{Getenv: getenv}
	inside := atLine(t, toolsChat, 41) // PreCompress-8's chat: a compression is coming
	b, err := os.ReadFile(inside)
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(outside, b, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(storeDir(t), "session.jsonl")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	// The store itself reached through a symlink is still the store.
	linkedHome := t.TempDir()
	if err := os.Symlink(getenv("GEMINI_CLI_HOME"), filepath.Join(linkedHome, "home")); err != nil {
		t.Fatal(err)
	}
	viaLinkedHome := func(k string) string {
		if k == "GEMINI_CLI_HOME" {
			return filepath.Join(linkedHome, "home")
		}
		return getenv(k)
	}
	rel, err := filepath.Rel(chatStore, outside)
	if err != nil {
		t.Fatal(err)
	}
	climb := chatStore + string(filepath.Separator) + rel // not cleaned: it starts in the store
	for _, tt := range []struct {
		name, path string
		h          Host
		want       agent.Kind
	}{
		{"in the store", inside, h, agent.BeforeCompact},
		{"in the store, the home a symlink", inside, Host{Getenv: viaLinkedHome}, agent.BeforeCompact},
		{"outside the store", outside, h, agent.Ignore},
		{"a symlink in the store pointing out", link, h, agent.Ignore},
		{"a path climbing out of the store", climb, h, agent.Ignore},
		{"/proc/self/fd/0", "/proc/self/fd/0", h, agent.Ignore},
	} {
		p := payloadFile(t, "PreCompress-8.json")
		p["transcript_path"] = tt.path
		ev, err := decodeRefined(tt.h, mustJSON(t, p))
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, ev.Kind, tt.want)
		}
	}
}
