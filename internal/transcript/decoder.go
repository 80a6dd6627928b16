// Package transcript is the one engine that reads a session's transcript:
// a stream of records (JSON lines), bounded in memory and in time, read
// incrementally from where the last hook stopped. Each host supplies a
// Records decoder for its own record format, which reports what it reads as
// neutral Observations; the one Accumulator turns them into handoff.Facts
// (see observe.go), and a checkpoint keeps both states. The engine never
// looks inside a record.
package transcript

import (
	"bytes"
	"unicode/utf8"

	"github.com/continuity-md/continuity/handoff"
)

// A Decoder turns one host's transcript records into handoff facts:
// NewDecoder joins a host's Records with the accumulator.
//
// A Decoder's state must round-trip through encoding/json (exported fields
// with json tags, or MarshalJSON/UnmarshalJSON), so that the engine can
// checkpoint it in local state and resume reading where it stopped.
type Decoder interface {
	// Wants reports, from the first bytes of a record (at least 64 KiB, or
	// the whole record when shorter), whether the record can matter; the
	// rest of a record it does not want streams past unread.
	Wants(head []byte) bool
	// Record takes one whole record, without its line break. The slice is
	// only valid during the call: copy what is kept.
	Record(rec []byte)
	// Facts is what the records so far say. It may be called more than
	// once; later records still add to it.
	Facts() *handoff.Facts
}

// ValidUTF8 returns rec with each invalid UTF-8 sequence replaced by
// U+FFFD, as encoding/json reads strings (rec itself when it is valid). A
// decoder that reads records with another parser runs them through it:
// what it keeps must come back unchanged from its checkpoint's JSON, or a
// read resumed from the checkpoint would differ from a whole one.
func ValidUTF8(rec []byte) []byte {
	if utf8.Valid(rec) {
		return rec
	}
	return bytes.ToValidUTF8(rec, []byte("\uFFFD"))
}
