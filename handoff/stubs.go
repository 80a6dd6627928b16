package handoff

// Temporary stubs so callers compile; the implementation replaces this file.

import (
	"errors"
	"io"
	"time"

	"github.com/continuity-md/continuity/ledger"
)

var errTODO = errors.New("not implemented yet")

// ReadTranscript reads a transcript as a stream; root makes file paths relative.
// A truncated or garbage line is skipped, never fatal.
func ReadTranscript(r io.Reader, root string) (*Facts, error) { return nil, errTODO }

// ReadTranscriptFile opens path (a regular file only) and reads it.
func ReadTranscriptFile(path, root string) (*Facts, error) { return nil, errTODO }

// Build assembles a handoff from the transcript's facts and the ledger (l may be nil).
// since holds the decisions already reported by the previous handoff (dates or text) and may be nil.
func Build(meta Meta, f *Facts, l *ledger.Ledger) *Handoff { return nil }

// Render renders h with the given template text (the embedded default when tmpl is "").
func Render(h *Handoff, tmpl string) ([]byte, error) { return nil, errTODO }

// FileName is the handoff's file name: <UTC time>_<event>_<id8>.md.
func FileName(created time.Time, event, agentSession string) string { return "" }

// Latest returns the path of the newest handoff in dir (one session's
// directory) without reading or stat-ing every file.
func Latest(dir string) (string, error) { return "", errTODO }

// Parsed is a handoff read back from disk, for injection and listing.
type Parsed struct {
	Meta     Meta
	Sections map[string]string // section heading → markdown text
	Order    []string          // section headings in file order
}

// Parse reads a handoff file's front matter and sections.
func Parse(src []byte) (*Parsed, error) { return nil, errTODO }
