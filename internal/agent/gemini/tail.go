package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/tidwall/gjson"

	"github.com/continuity-md/continuity/internal/safefile"
)

// Bounds on the look at a chat file's tail. A hook reads back from the end
// in blocks and stops at the first record that decides; it never reads the
// whole file, nor more than these many bytes back.
const (
	tailBlock = 64 << 10
	// tailLimit bounds the look back: past it, the hooks decide as if
	// nothing were found (no handoff, no refresh).
	tailLimit = 32 << 20
	// headMax is how much of each record's start is kept: the fields the
	// hooks read (type, tokens, model) come first in Gemini CLI's records.
	headMax = 4 << 10
)

// tailLine is one record of a chat file, read from the end.
type tailLine struct {
	head  []byte // the record's first bytes, at most headMax
	marks uint   // bit i: patterns[i] occurs somewhere in the record
}

// blockSize is tailBlock; tests shrink it to cross block boundaries.
var blockSize = tailBlock

// errTooFar stops a scan that reached tailLimit.
var errTooFar = errors.New("too far back")

// scanBack calls fn with the records of f (size bytes long) from the last to
// the first, until fn returns false, the file's start, or limit bytes read.
// Each pattern is searched across the whole record, however long; only the
// record's head is kept in memory.
func scanBack(f io.ReaderAt, size, limit int64, patterns [][]byte, fn func(l *tailLine) bool) error {
	overlap := 0
	for _, p := range patterns {
		overlap = max(overlap, len(p)-1)
	}
	buf := make([]byte, blockSize)
	var carry []byte // head of the partial record after the block read last
	var marks uint
	partial := false // carry holds bytes of a record not emitted yet
	// join adds seg (the bytes before the known part of the current record)
	// to it: the head keeps the first headMax bytes, the marks see every
	// pattern, also one spanning seg and what follows it.
	join := func(seg []byte) {
		window := seg
		if n := min(len(carry), overlap); n > 0 {
			window = append(append(make([]byte, 0, len(seg)+n), seg...), carry[:n]...)
		}
		for i, p := range patterns {
			if marks&(1<<i) == 0 && bytes.Contains(window, p) {
				marks |= 1 << i
			}
		}
		if len(seg) >= headMax {
			carry = append(carry[:0], seg[:headMax]...)
		} else {
			keep := min(len(carry), headMax-len(seg))
			next := make([]byte, 0, len(seg)+keep)
			carry = append(append(next, seg...), carry[:keep]...)
		}
		partial = true
	}
	emit := func() bool {
		l := tailLine{head: carry, marks: marks}
		carry, marks, partial = nil, 0, false
		if len(bytes.TrimSpace(l.head)) == 0 {
			return true
		}
		return fn(&l)
	}
	pos := size
	var read int64
	for pos > 0 {
		if read >= limit {
			return errTooFar
		}
		n := int64(len(buf))
		if pos < n {
			n = pos
		}
		pos -= n
		block := buf[:n]
		if _, err := f.ReadAt(block, pos); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		read += n
		end := len(block)
		for end > 0 {
			i := bytes.LastIndexByte(block[:end], '\n')
			if i < 0 {
				join(block[:end])
				break
			}
			join(block[i+1 : end])
			if !emit() {
				return nil
			}
			end = i
		}
	}
	if partial {
		emit()
	}
	return nil
}

// openChat opens a chat file for a look at its tail: a regular file only
// (opening a FIFO would block the hook), and only one inside Gemini CLI's
// own directory of chats, symlinks resolved first (a payload must not make
// a hook read a file from anywhere).
func (h Host) openChat(path string) (*os.File, int64, error) {
	if path == "" {
		return nil, 0, errors.New("no transcript")
	}
	store := h.chatStore()
	if store == "" {
		return nil, 0, errors.New("no chat directory known")
	}
	// Never a FIFO, a device or a /proc file: one could hold the hook.
	f, fi, err := safefile.OpenRegular(path, store)
	if err != nil {
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// recordKind is what a chat record is, told from its head.
type recordKind int

const (
	recOther    recordKind = iota
	recUser                // a user message: a prompt, a tool result
	recGemini              // a model message
	recMessages            // a $set that rewrites the history (resume, compression)
	recHeader              // a session header (start or resume)
)

var setMessages = []byte(`{"$set":{"messages":`)

func kindOf(head []byte) recordKind {
	if bytes.HasPrefix(head, setMessages) {
		return recMessages
	}
	switch gjson.GetBytes(head, "type").Str {
	case "user":
		return recUser
	case "gemini":
		return recGemini
	}
	if gjson.GetBytes(head, "projectHash").Exists() && gjson.GetBytes(head, "sessionId").Exists() {
		return recHeader
	}
	return recOther
}

// usage is what the last model reply says of the context.
type usage struct {
	tokens int    // prompt tokens of the last reply (Gemini CLI's count for compression)
	model  string // its model
}

// readUsage reads tokens and model from a gemini record's head.
func readUsage(head []byte) (usage, bool) {
	t := gjson.GetBytes(head, "tokens.input")
	if t.Type != gjson.Number {
		return usage{}, false
	}
	return usage{tokens: int(t.Int()), model: gjson.GetBytes(head, "model").Str}, true
}

// The model's context window, as Gemini CLI's tokenLimit has it.
const (
	defaultTokenLimit = 1_048_576
	gemmaTokenLimit   = 256_000
)

func tokenLimit(model string) int {
	switch model {
	case "gemma-4-31b-it", "gemma-4-26b-a4b-it":
		return gemmaTokenLimit
	}
	return defaultTokenLimit
}

// defaultThreshold is model.compressionThreshold's default: Gemini CLI
// compresses when the last reply's prompt reached this share of the window.
const defaultThreshold = 0.5

// over reports whether u reached the compression threshold.
func (u usage) over(threshold float64) bool {
	return u.tokens > 0 && float64(u.tokens) >= threshold*float64(tokenLimit(u.model))
}

// threshold is model.compressionThreshold as Gemini CLI would read it for a
// session in cwd: the system settings, then the workspace's, then the
// user's; the first that sets it wins (Gemini CLI's precedence), else 0.5.
func (h Host) threshold(cwd string) float64 {
	system := h.getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
	if system == "" {
		system = "/etc/gemini-cli/settings.json"
	}
	files := []string{system}
	if cwd != "" {
		files = append(files, filepath.Join(cwd, ".gemini", "settings.json"))
	}
	if home := geminiHome(h.getenv); home != "" {
		files = append(files, filepath.Join(home, ".gemini", "settings.json"))
	}
	for _, f := range files {
		if t, ok := settingsThreshold(f); ok {
			return t
		}
	}
	return defaultThreshold
}

// settingsThreshold reads model.compressionThreshold from a settings file.
func settingsThreshold(path string) (float64, bool) {
	// The workspace's settings are the repository's: bounded, regular only.
	b, err := safefile.Read(path, safefile.Options{MaxSize: 1 << 20})
	if err != nil {
		return 0, false
	}
	var s struct {
		Model struct {
			CompressionThreshold *float64 `json:"compressionThreshold"`
		} `json:"model"`
	}
	if json.Unmarshal(b, &s) != nil || s.Model.CompressionThreshold == nil {
		return 0, false
	}
	t := *s.Model.CompressionThreshold
	if t <= 0 || t > 1 {
		return 0, false
	}
	return t, true
}

// compressionComing decides a PreCompress: Gemini CLI fires it before every
// model call, and compresses only when the last reply's prompt tokens
// reached the threshold and the history has an earlier user turn to split
// at. The common case (the last model record is under the threshold) reads
// one block of the file's tail.
func (h Host) compressionComing(p payload) bool {
	f, size, err := h.openChat(p.Transcript)
	if err != nil {
		return false
	}
	defer f.Close()
	var last usage
	found := false
	_ = scanBack(f, size, tailLimit, [][]byte{patSnapshot}, func(l *tailLine) bool {
		switch kindOf(l.head) {
		case recGemini:
			last, found = readUsage(l.head)
		case recMessages:
			// A history rebuilt around a <state_snapshot> with no reply
			// since: the compression just ran, the count before it is
			// stale. (A resume's rebuild without one keeps the count
			// before it: Gemini CLI re-estimates about as much.)
			return l.marks == 0
		}
		return !found
	})
	if !found || !last.over(h.threshold(p.Cwd)) {
		return false
	}
	return canSplit(f, size)
}

// canSplit reports whether Gemini CLI's compression would find something to
// compress: an earlier user prompt in the history than the latest (a first
// prompt alone is never split), or history from before a resume or an
// earlier compression. Called only near the threshold, so it may read far.
func canSplit(f io.ReaderAt, size int64) bool {
	prompts := 0
	possible := false
	resumed := false // a header seen, records after it: a resume if any come before it
	_ = scanBack(f, size, tailLimit, nil, func(l *tailLine) bool {
		switch kindOf(l.head) {
		case recUser:
			if isPromptHead(l.head) {
				prompts++
			}
			possible = possible || resumed
		case recGemini:
			possible = possible || resumed
		case recMessages:
			// A restated history that holds model turns (a resume, an
			// earlier compression): there is history before the prompt.
			possible = possible || bytes.Contains(l.head, []byte(`"type":"gemini"`))
		case recHeader:
			resumed = true
		}
		possible = possible || prompts >= 2
		return !possible
	})
	return possible
}

// isPromptHead reports whether a user record is a prompt, not a tool result.
func isPromptHead(head []byte) bool {
	c := gjson.GetBytes(head, "content")
	if c.Type == gjson.String {
		return true
	}
	first := gjson.GetBytes(head, "content.0")
	return first.Get("text").Exists()
}

// Patterns refreshNeeded searches for across whole records.
var (
	patOurs     = []byte(ourMark)
	patGemini   = []byte(`"type":"gemini"`)
	patSnapshot = []byte("<state_snapshot>")
)

// refreshNeeded decides whether BeforeAgent must give the model goal, now
// and next again: when what continuity injected is no longer in the
// history Gemini CLI sends, because a compression replaced it with a
// <state_snapshot> or a resume dropped the prompt that carried it; and
// when a compression is coming before this prompt reaches the model (the
// refresh then rides on the prompt, which compression always keeps).
// (Decode leaves a prompt that carries continuity's context itself as
// nothing to do.)
func (h Host) refreshNeeded(p payload) bool {
	f, size, err := h.openChat(p.Transcript)
	if err != nil {
		return false
	}
	defer f.Close()
	lost, decided := false, false
	var last usage
	haveUsage := false
	_ = scanBack(f, size, tailLimit, [][]byte{patOurs, patGemini, patSnapshot}, func(l *tailLine) bool {
		switch kindOf(l.head) {
		case recUser:
			if !decided && l.marks&1 != 0 {
				lost, decided = false, true
			}
		case recGemini:
			if !haveUsage {
				last, haveUsage = readUsage(l.head)
			}
		case recMessages:
			if !decided {
				// The history as rebuilt: ours survived in it, or it was
				// rebuilt from model turns (resume) or a snapshot
				// (compression) without it. A rebuild holding only the
				// session context is a fresh start: nothing was lost.
				lost, decided = l.marks&1 == 0 && l.marks&(2|4) != 0, true
			}
			// Replies before a rebuild say nothing of the history now.
			return false
		}
		return !decided || !haveUsage
	})
	if lost {
		return true
	}
	return haveUsage && last.over(h.threshold(p.Cwd))
}
