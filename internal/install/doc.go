// Package install registers continuity's hooks in a Claude Code settings
// file and removes them again. It edits the JSON bytes in place: every byte
// outside the entries it adds or removes (key order, indentation, other hooks
// and settings, a trailing newline) survives, and removing after adding gives
// back the original file.
package install
