package main

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/install"
	"github.com/continuity-md/continuity/internal/transcript"
)

// fakeHost is a second host for the setup scripts, registered only when a
// script sets CONTINUITY_TEST_FAKE_HOST (so that init, uninstall and doctor
// are shown handling several hosts without depending on a real one). Its
// hooks live in .fake/hooks.json (the user's: $HOME/.fake/hooks.json), in
// the hooks shape the three real hosts share, and it reports a note until
// the file says "trusted": true, as Codex and Gemini CLI report trust.
type fakeHost struct{}

func init() {
	if os.Getenv("CONTINUITY_TEST_FAKE_HOST") != "" {
		known = append(known, agent.Serve(fakeHost{}))
	}
}

var fakeEvents = []string{"Begin", "Finish"}

func (fakeHost) Name() string                                     { return "fake" }
func (fakeHost) Title() string                                    { return "Fake Agent" }
func (fakeHost) Limits() agent.Limits                             { return agent.Limits{} }
func (fakeHost) Decode([]byte) (agent.Event, error)               { return agent.Event{}, nil }
func (fakeHost) Encode(agent.Event, agent.Answer) ([]byte, error) { return nil, nil }
func (fakeHost) ProjectDir(func(string) string) string            { return "" }
func (fakeHost) ExportLedger(func(string) string, string) (bool, error) {
	return false, nil
}
func (fakeHost) NewDecoder(string, func(string) string) transcript.Decoder { return nil }
func (fakeHost) TranscriptDir(func(string) string, string) string          { return "" }

func (fakeHost) SettingsPath(getenv func(string) string, root string, scope agent.Scope) (string, error) {
	if scope == agent.User {
		return filepath.Join(getenv("HOME"), ".fake", "hooks.json"), nil
	}
	return filepath.Join(root, ".fake", "hooks.json"), nil
}

func (fakeHost) Register(settings []byte, command string) ([]byte, bool, error) {
	return install.Add(settings, install.Hook{Command: command, Events: fakeEvents,
		Matchers: map[string]string{"Begin": "startup|resume"}, Timeouts: map[string]int{"Finish": 5000}})
}

func (fakeHost) Unregister(settings []byte) ([]byte, bool, error) {
	return install.Remove(settings, fakeEvents...)
}

func (fakeHost) Registered(settings []byte) (agent.Status, error) {
	st, err := install.Status(settings, fakeEvents...)
	if err != nil {
		return agent.Status{}, err
	}
	out := agent.Status{Events: st, Stale: install.Stale(st, fakeEvents, "fake")}
	if !bytes.Contains(settings, []byte(`"trusted": true`)) {
		out.Notes = []string{"Fake Agent runs project hooks only once trusted: run `fake trust` in the project"}
	}
	return out, nil
}

// TrustNotes stands for trust kept outside the hooks file (Gemini CLI's
// trusted folders): a file .fake-untrusted in the project says it is not.
func (fakeHost) TrustNotes(getenv func(string) string, root string) (ignored, notes []string) {
	if _, err := os.Stat(filepath.Join(root, ".fake-untrusted")); err == nil {
		return []string{"Fake Agent does not trust " + root + ": trust it when it asks"}, nil
	}
	return nil, nil
}
