// Package templates embeds continuity's default templates: the new ledger
// and the handoff. (The context injected at a session start is worded in
// internal/inject/wording.go: a start renders it, and a template cost a
// start more than its rendering.)
package templates

import "embed"

// FS holds the default templates (*.tmpl).
//
//go:embed *.tmpl
var FS embed.FS

// Read returns the named default template.
func Read(name string) string {
	b, err := FS.ReadFile(name)
	if err != nil {
		panic("templates: missing " + name)
	}
	return string(b)
}
