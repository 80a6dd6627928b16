package transcript

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/safefile"
)

// checkpointVersion changes when a Checkpoint or a decoder's state changes
// shape; a checkpoint of another version is not resumed from.
const checkpointVersion = 2

// Checkpoint is where reading a session's transcript stopped and what the
// decoder had gathered by then, so that a later hook reads only what was
// appended since.
type Checkpoint struct {
	Version int    `json:"version"`
	Files   []Mark `json:"files"`
	// State is the decoder's, as JSON: redacted content only (the
	// decoder's MarshalJSON sees to it), since it is kept in local state.
	State json.RawMessage `json:"state"`
}

// Mark is how far one file was read, and what it was then, to notice a
// file that was rewritten or truncated since (it is then read whole).
type Mark struct {
	Path    string    `json:"path"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mod_time"`
	Dev     uint64    `json:"dev,omitempty"`
	Ino     uint64    `json:"ino,omitempty"`
	// Head is a hash of the file's first HeadLen bytes: a file rewritten
	// in place (same inode, as long as before) has other first bytes.
	Head    string `json:"head"`
	HeadLen int    `json:"head_len"`
	// Offset is the end of the last whole line read: the next read
	// starts there.
	Offset  int64 `json:"offset"`
	Lines   int   `json:"lines"`
	Skipped int   `json:"skipped"`
}

// headBytes is how much of a file's beginning a Mark hashes.
const headBytes = 4096

// ReadFrom reads the files of one session (paths[0] the transcript, the
// rest its subagents' files, if any) with d, resuming from cp (nil: from
// the start), and returns the facts of everything read so far and a
// checkpoint to resume from next time.
//
// d must be fresh: when cp can be resumed from, cp's state is loaded into
// it (json.Unmarshal) and each file is read from its mark on; when any file
// was rewritten or truncated since, or cp is of another version, all are
// read whole. A file new since cp is read from its start.
//
// When deadline is not zero and passes, reading stops there: the facts are
// marked Partial, and the checkpoint holds where it stopped, so the next
// read goes on from there. A last line without its line break (a record
// being written) is decoded but left out of the checkpoint: the next read
// takes it again, whole.
func ReadFrom(paths []string, d Decoder, cp *Checkpoint, deadline time.Time) (*handoff.Facts, *Checkpoint, error) {
	if len(paths) == 0 {
		return nil, nil, errors.New("read transcript: no file")
	}
	marks := resumable(paths, cp)
	if marks != nil {
		if err := json.Unmarshal(cp.State, d); err != nil {
			marks = nil // a state this decoder cannot take: read whole
		}
	}
	next := &Checkpoint{Version: checkpointVersion}
	var tails []streamResult
	var lines, skipped int
	var total int64
	partial := false
	for i, path := range paths {
		var from Mark
		if m, ok := marks[path]; ok {
			from = m
		}
		if partial {
			if from.Path != "" {
				next.Files = append(next.Files, from)
				lines, skipped, total = lines+from.Lines, skipped+from.Skipped, total+from.Offset
			}
			continue
		}
		m, res, err := readOne(path, from, d, deadline)
		if err != nil {
			if i > 0 && errors.Is(err, fs.ErrNotExist) {
				continue // a subagent's file gone: nothing to read
			}
			return nil, nil, fmt.Errorf("read transcript %s: %w", path, err)
		}
		next.Files = append(next.Files, m)
		lines, skipped, total = lines+m.Lines, skipped+m.Skipped, total+m.Offset
		if res.stopped {
			partial = true
			continue
		}
		tails = append(tails, res)
	}
	state, err := json.Marshal(d)
	if err != nil {
		return nil, nil, fmt.Errorf("read transcript: save the decoder's state: %w", err)
	}
	next.State = state
	for i := range tails {
		tails[i].feedTail(d)
		lines += tails[i].tailLines()
		skipped += tails[i].tailSkipped()
		total += tails[i].tailLen
	}
	f := d.Facts()
	f.Lines, f.SkippedLines, f.Bytes = lines, skipped, total
	f.Partial = partial
	return f, next, nil
}

// resumable returns the marks of cp by path when every file cp names is
// still the file it read, grown or not; nil when the files must be read
// whole.
func resumable(paths []string, cp *Checkpoint) map[string]Mark {
	if cp == nil || cp.Version != checkpointVersion || len(cp.Files) == 0 || cp.Files[0].Path != paths[0] {
		return nil
	}
	marks := make(map[string]Mark, len(cp.Files))
	for _, m := range cp.Files {
		if !m.same() {
			return nil
		}
		marks[m.Path] = m
	}
	return marks
}

// same reports whether the file at m.Path is still the one m read: the
// same file (device and inode, where known), no shorter than where reading
// stopped, with the same first bytes.
func (m Mark) same() bool {
	f, fi, err := openRegular(m.Path)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi.Size() < m.Offset || fi.Size() < m.Size {
		return false
	}
	if dev, ino := safefile.FileID(fi); ino != 0 && m.Ino != 0 && (dev != m.Dev || ino != m.Ino) {
		return false
	}
	head, err := hashHead(f, m.HeadLen)
	return err == nil && head == m.Head
}

// readOne reads one file from mark from on (from the start when from is
// empty) and returns the new mark.
func readOne(path string, from Mark, d Decoder, deadline time.Time) (Mark, streamResult, error) {
	f, fi, err := openRegular(path)
	if err != nil {
		return Mark{}, streamResult{}, err
	}
	defer f.Close()
	if from.Offset > 0 {
		if _, err := f.Seek(from.Offset, io.SeekStart); err != nil {
			return Mark{}, streamResult{}, err
		}
	}
	res, err := stream(f, d, deadline)
	if err != nil {
		return Mark{}, streamResult{}, err
	}
	m := Mark{
		Path: path, Size: fi.Size(), ModTime: fi.ModTime(),
		Offset:  from.Offset + res.whole,
		Lines:   from.Lines + res.lines,
		Skipped: from.Skipped + res.skipped,
	}
	m.Dev, m.Ino = safefile.FileID(fi)
	m.HeadLen = int(min(m.Offset, headBytes))
	if m.Head, err = hashHead(f, m.HeadLen); err != nil {
		return Mark{}, streamResult{}, err
	}
	return m, res, nil
}

// hashHead hashes the first n bytes of f.
func hashHead(f *os.File, n int) (string, error) {
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, 0); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return "", err
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:8]), nil
}

// checkpointName is the file a session's checkpoint is kept in.
func checkpointName(dir, session string) string {
	sum := sha256.Sum256([]byte(session))
	return filepath.Join(dir, "transcript-"+hex.EncodeToString(sum[:8])+".json")
}

// maxCheckpointBytes bounds a checkpoint file read back.
const maxCheckpointBytes = 8 << 20

// LoadCheckpoint returns the checkpoint kept in dir for session (any
// string naming it: the host's session id), or nil when there is none or it
// cannot be read: the transcript is then read whole, which is always right.
// A checkpoint that resolves (through a symlink) outside root is not read.
func LoadCheckpoint(dir, root, session string) *Checkpoint {
	data, err := safefile.Read(checkpointName(dir, session), safefile.Options{Root: root, MaxSize: maxCheckpointBytes})
	if err != nil {
		return nil
	}
	var cp Checkpoint
	if json.Unmarshal(data, &cp) != nil || cp.Version != checkpointVersion {
		return nil
	}
	return &cp
}

// SaveCheckpoint keeps cp in dir for session, atomically (local state:
// not synced to disk, a checkpoint lost in a crash only costs a whole read),
// never outside root: dir, and the checkpoint in it, may not resolve
// elsewhere through a symlink.
func SaveCheckpoint(dir, root, session string, cp *Checkpoint) error {
	data, err := json.Marshal(cp)
	if err != nil {
		return fmt.Errorf("save transcript checkpoint: %w", err)
	}
	if err := safefile.MkdirAll(dir, root, 0o755); err != nil {
		return fmt.Errorf("save transcript checkpoint: %w", err)
	}
	opts := safefile.Options{LockDir: dir, Root: root, NoSync: true, MaxSize: maxCheckpointBytes}
	return safefile.Update(checkpointName(dir, session), opts, func([]byte) ([]byte, error) { return data, nil })
}
