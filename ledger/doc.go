// Package ledger reads, validates and edits continuity ledgers: markdown files
// whose YAML front matter holds a work stream's goal, progress and decisions.
//
// Edits work on the source bytes: each one replaces only the bytes of the field
// it touches, so a person's comments, key order, quoting and body survive.
// The package takes bytes and returns bytes; files and clocks stay with callers.
package ledger
