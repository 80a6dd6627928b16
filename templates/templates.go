// Package templates embeds continuity's default templates: the new ledger,
// the handoff, and the context injected when a session starts.
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
