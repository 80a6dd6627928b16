// Package install registers and removes continuity's hooks in a Claude Code
// settings file, editing the JSON in place so every other setting keeps its
// order and formatting.
package install

import "errors"

// Events are the hook events continuity registers, in order.
var Events = []string{"SessionStart", "PreCompact", "PostCompact", "SessionEnd"}

// Hook is what init registers: the command and, per event, a timeout in seconds (0: none).
type Hook struct {
	Command  string         // e.g. "/usr/local/bin/continuity hook"
	Timeouts map[string]int // e.g. {"SessionEnd": 30}
}

// Add returns settings with continuity's hooks registered for every event.
// It is idempotent: when the hooks are already there (recognised by a command
// whose program is named continuity and whose first argument is hook) it
// returns the input unchanged and changed == false. Malformed JSON is an
// error (with line and column) and nothing is returned.
func Add(settings []byte, h Hook) (out []byte, changed bool, err error) {
	return nil, false, errors.New("not implemented yet")
}

// Remove returns settings without the hooks Add put there; everything else is byte-identical.
func Remove(settings []byte) (out []byte, changed bool, err error) {
	return nil, false, errors.New("not implemented yet")
}

// Status reports, per event, the continuity hook command registered there ("" when none).
func Status(settings []byte) (map[string]string, error) {
	return nil, errors.New("not implemented yet")
}
