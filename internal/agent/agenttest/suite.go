// Package agenttest is the conformance suite every host runs: the contract
// of agent.Host checked against the host's own recorded testdata (its
// payloads, a transcript), the way restic's backend/test and rclone's
// fstests check a storage backend. A host's test is a few lines:
//
//	func TestSuite(t *testing.T) {
//		agenttest.Suite{Host: myhost.Host{}, Payloads: "testdata/payloads/*.json",
//			Transcript: "testdata/session.jsonl", Cannot: agenttest.Cannot{End: true}}.Run(t)
//	}
//
// Cannot lists what the host declares it cannot do; a capability the host
// neither has nor declares fails the suite, and so does one it declares it
// lacks but has.
package agenttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/transcript"
)

// Suite is one host's run of the conformance suite.
type Suite struct {
	// Host is the host under test.
	Host agent.Host
	// Payloads is a glob of hook payloads recorded from the real client
	// (one JSON object a file). A host whose payloads do not name their
	// event (agent.EventNamer) has each file named after its event.
	Payloads string
	// Transcript is a transcript recorded from the real client (or
	// written to the shape of public ones) of a session that took a
	// prompt and used a tool.
	Transcript string
	// Cannot is what the host declares it cannot do.
	Cannot Cannot
	// Unrecorded are the kinds of event the host serves that no recorded
	// payload shows yet, each with why (the client never fired it
	// offline): the suite reports them instead of failing.
	Unrecorded map[agent.Kind]string
}

// Cannot is what a host declares it cannot do, each with the client's
// reason in the host's test.
type Cannot struct {
	// Compact: the client calls no hook before it compacts the context.
	Compact bool
	// End: the client calls no hook when a session ends; its turn-end
	// checkpoints stand in for the handoff.
	End bool
	// InjectLimit: no injection limit was measured.
	InjectLimit bool
	// UserScope: the client reads no user-wide hook settings.
	UserScope bool
	// SharedSettings: the settings file Register edits is continuity's own
	// (a file of a hooks directory), never one holding a person's
	// settings, which Register refuses.
	SharedSettings bool
}

// Run runs every check of the suite as a subtest of t.
func (s Suite) Run(t *testing.T) {
	t.Helper()
	if s.Host == nil {
		t.Fatal("agenttest.Suite: no Host")
	}
	h := agent.Serve(s.Host)
	t.Run("Identity", func(t *testing.T) { s.identity(t, h) })
	t.Run("Payloads", func(t *testing.T) { s.payloads(t, h) })
	t.Run("Encode", func(t *testing.T) { s.encode(t, h) })
	t.Run("Register", func(t *testing.T) { s.register(t, h) })
	t.Run("SettingsPath", func(t *testing.T) { s.settingsPath(t, h) })
	t.Run("Transcript", func(t *testing.T) { s.transcript(t, h) })
}

// identity: a name fit for the command line, a title, measured limits.
func (s Suite) identity(t *testing.T, h agent.Served) {
	name := h.Name()
	if name == "" || strings.ToLower(name) != name || strings.ContainsAny(name, " \t/\\") {
		t.Errorf("Name() = %q: want a lowercase word for --agent", name)
	}
	if h.Title() == "" || h.Title() == name {
		t.Errorf("Title() = %q: want the host's name for people", h.Title())
	}
	l := h.Limits()
	switch {
	case s.Cannot.InjectLimit && l.InjectMax != 0:
		t.Errorf("declares Cannot.InjectLimit but Limits().InjectMax = %d", l.InjectMax)
	case !s.Cannot.InjectLimit && l.InjectMax <= 0:
		t.Errorf("Limits().InjectMax = %d: measure the injection limit, or declare Cannot{InjectLimit: true}", l.InjectMax)
	case l.InjectMax > 1<<20:
		t.Errorf("Limits().InjectMax = %d: more than a model's context, not a measured limit", l.InjectMax)
	}
	if l.InjectUnit != agent.Runes && l.InjectUnit != agent.Bytes {
		t.Errorf("Limits().InjectUnit = %d: neither Runes nor Bytes", l.InjectUnit)
	}
	if l.EndBudget <= 0 {
		t.Errorf("Limits().EndBudget = %v: the time the client gives a session-end hook must be known", l.EndBudget)
	}
	empty := func(string) string { return "" }
	if d := h.ProjectDir(empty); d != "" {
		t.Errorf("ProjectDir with an empty environment = %q, want \"\"", d)
	}
}

// recorded is one payload file and its event decoded.
type recorded struct {
	file string
	ev   agent.Event
}

// decodeAll decodes every recorded payload, each by the host reading its
// event when the payloads do not name it.
func (s Suite) decodeAll(t *testing.T, h agent.Served) []recorded {
	t.Helper()
	files, err := filepath.Glob(s.Payloads)
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded payloads match %q (%v): record them from the real client", s.Payloads, err)
	}
	var events []string
	if h.ForEvent != nil {
		st := registeredEvents(t, h)
		for ev := range st {
			events = append(events, ev)
		}
		// The longest first, so "sessionStart" is not read in "sessionStartX".
		slices.SortFunc(events, func(a, b string) int { return len(b) - len(a) })
	}
	var out []recorded
	for _, f := range files {
		payload, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		reader := h
		if h.ForEvent != nil {
			for _, ev := range events {
				if strings.Contains(filepath.Base(f), ev) {
					reader = h.ForEvent(ev)
					break
				}
			}
		}
		ev, err := reader.Decode(payload)
		if err != nil {
			t.Errorf("%s: Decode of a recorded payload failed: %v", f, err)
			continue
		}
		out = append(out, recorded{f, ev})
	}
	return out
}

// registeredEvents are the events Register writes for a new file.
func registeredEvents(t *testing.T, h agent.Served) map[string]string {
	t.Helper()
	out, _, err := h.Register(nil, "continuity hook --agent "+h.Name())
	if err != nil {
		t.Fatalf("Register on a new file: %v", err)
	}
	st, err := h.Registered(out)
	if err != nil {
		t.Fatalf("Registered on what Register wrote: %v", err)
	}
	return st.Events
}

// payloads: every recorded payload decodes; the events continuity acts on
// carry their name, session and transcript, and are among those init
// registers; the kinds a host serves are all recorded.
func (s Suite) payloads(t *testing.T, h agent.Served) {
	registered := registeredEvents(t, h)
	kinds := map[agent.Kind]string{}
	for _, r := range s.decodeAll(t, h) {
		ev := r.ev
		if ev.Kind == agent.Ignore {
			continue
		}
		if kinds[ev.Kind] == "" {
			kinds[ev.Kind] = r.file
		}
		if ev.Name == "" {
			t.Errorf("%s: decoded to kind %d with no event Name", r.file, ev.Kind)
		} else if _, ok := registered[ev.Name]; !ok {
			t.Errorf("%s: event %q is acted on but Register does not register it (registers %s)", r.file, ev.Name, keys(registered))
		}
		if ev.SessionID == "" {
			t.Errorf("%s: event %q decoded with no SessionID", r.file, ev.Name)
		}
		if ev.Cwd != "" && !filepath.IsAbs(ev.Cwd) && !strings.HasPrefix(ev.Cwd, "/") {
			t.Errorf("%s: Cwd %q is not absolute", r.file, ev.Cwd)
		}
		if (ev.Kind == agent.BeforeCompact || ev.Kind == agent.End) && ev.Transcript == "" && h.Refine == nil {
			t.Errorf("%s: event %q needs a transcript, and neither the payload nor Refine gives one", r.file, ev.Name)
		}
	}
	if kinds[agent.Start] == "" {
		t.Errorf("no recorded payload decodes to Start: every host injects at session start (record one from %s)", s.Payloads)
	}
	for k, why := range s.Unrecorded {
		switch {
		case why == "":
			t.Errorf("Unrecorded kind %d without a reason", k)
		case kinds[k] != "":
			t.Errorf("kind %d is declared unrecorded, but %s decodes to it: take it off Unrecorded", k, kinds[k])
		default:
			t.Logf("kind %d not recorded: %s", k, why)
			kinds[k] = "(unrecorded: " + why + ")"
		}
	}
	capability(t, "Compact", s.Cannot.Compact, kinds[agent.BeforeCompact], "BeforeCompact")
	capability(t, "End", s.Cannot.End, kinds[agent.End], "End")
	if s.Cannot.End && kinds[agent.TurnEnd] == "" {
		t.Errorf("declares Cannot{End: true} and no recorded payload decodes to TurnEnd: a host with no session end must checkpoint at each turn's end")
	}
	for _, bad := range [][]byte{nil, []byte("not json"), []byte("[1,2]")} {
		if _, err := h.Decode(bad); err == nil {
			t.Errorf("Decode(%q) = nil error: a payload that is not a JSON object must fail", bad)
		}
	}
}

// capability fails when what the recorded payloads show and what the host
// declares disagree.
func capability(t *testing.T, name string, cannot bool, file, kind string) {
	t.Helper()
	switch {
	case !cannot && file == "":
		t.Errorf("no recorded payload decodes to %s: record the client's event, or declare Cannot{%s: true} with the reason", kind, name)
	case cannot && file != "":
		t.Errorf("declares Cannot{%s: true}, but %s decodes to %s", name, file, kind)
	}
}

// encode: the start hook's answer carries the context whole as one JSON
// object, at the host's limit too; every other answer is nothing or one
// JSON object.
func (s Suite) encode(t *testing.T, h agent.Served) {
	start := agent.Event{Kind: agent.Start, Name: "start", Source: "startup", SessionID: "s1"}
	for _, r := range s.decodeAll(t, h) {
		if r.ev.Kind == agent.Start {
			start = r.ev
			break
		}
	}
	ctx := "# Ledger\n\nGoal: \"quoted\" <tags> & ünïcode ✓\n"
	if l := h.Limits(); l.InjectMax > 0 {
		unit := "é" // two bytes, one rune: the limit's unit matters
		n := l.InjectMax
		if l.InjectUnit == agent.Bytes {
			n /= 2
		}
		ctx = strings.Repeat(unit, n-utf8.RuneCountInString(ctx)-16) + ctx
	}
	out, err := h.Encode(start, agent.Answer{Context: ctx, Message: "continuity: one line"})
	if err != nil {
		t.Fatalf("Encode of a start: %v", err)
	}
	v := oneObject(t, "Encode of a start", out)
	if v == nil {
		t.Fatalf("Encode of a start with context printed nothing: the context never reaches the model")
	}
	if !containsString(v, ctx) {
		t.Errorf("Encode of a start: no string in %s holds the context whole (%d runes)", cut(out), utf8.RuneCountInString(ctx))
	}
	for _, k := range []agent.Kind{agent.Ignore, agent.Start, agent.BeforeCompact, agent.AfterCompact, agent.BeforePrompt, agent.TurnEnd, agent.End} {
		ev := start
		ev.Kind = k
		for _, a := range []agent.Answer{{}, {Message: "continuity: one line"}} {
			out, err := h.Encode(ev, a)
			if err != nil {
				t.Errorf("Encode(kind %d, %+v): %v", k, a, err)
				continue
			}
			oneObject(t, fmt.Sprintf("Encode(kind %d, %+v)", k, a), out)
		}
	}
}

// oneObject checks that out is nothing or one JSON object, and returns it.
func oneObject(t *testing.T, what string, out []byte) any {
	t.Helper()
	if len(bytes.TrimSpace(out)) == 0 {
		if len(out) > 0 {
			t.Errorf("%s printed only blanks %q: print nothing or one JSON object", what, out)
		}
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		t.Errorf("%s printed %s: not one JSON object: %v", what, cut(out), err)
		return nil
	}
	if dec.More() {
		t.Errorf("%s printed more than one JSON value: %s", what, cut(out))
	}
	return v
}

// containsString reports whether some string in v holds s.
func containsString(v any, s string) bool {
	switch v := v.(type) {
	case string:
		return strings.Contains(v, s)
	case map[string]any:
		for _, e := range v {
			if containsString(e, s) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if containsString(e, s) {
				return true
			}
		}
	}
	return false
}

// register: init's round trip on a new file and on a person's settings:
// registering twice changes nothing, Registered sees every event with the
// command, and Unregister removes exactly what Register added, once.
func (s Suite) register(t *testing.T, h agent.Served) {
	command := "continuity hook --agent " + h.Name()
	files := [][]byte{nil, []byte("{\n  \"someone's\": {\"own\": [1, 2]}\n}\n")}
	if s.Cannot.SharedSettings {
		if _, _, err := h.Register(files[1], command); err == nil {
			t.Errorf("declares Cannot{SharedSettings: true} but Register accepts a file holding a person's settings")
		}
		files = files[:1]
	}
	for _, before := range files {
		out, changed, err := h.Register(before, command)
		if err != nil {
			t.Errorf("Register(%q): %v", before, err)
			continue
		}
		if !changed || bytes.Equal(out, before) {
			t.Errorf("Register(%q) changed nothing", before)
		}
		if before != nil && !bytes.Contains(out, []byte(`"someone's": {"own": [1, 2]}`)) {
			t.Errorf("Register lost or reformatted the person's settings:\n%s", out)
		}
		again, changed, err := h.Register(out, command)
		if err != nil || changed || !bytes.Equal(again, out) {
			t.Errorf("Register twice: changed=%v err=%v, the second time must change nothing:\n%s\nthen\n%s", changed, err, out, again)
		}
		st, err := h.Registered(out)
		if err != nil {
			t.Fatalf("Registered: %v", err)
		}
		if len(st.Events) == 0 {
			t.Errorf("Registered reports no events after Register:\n%s", out)
		}
		for ev, cmd := range st.Events {
			if !strings.Contains(cmd, command) {
				t.Errorf("Registered: event %s runs %q, want %q", ev, cmd, command)
			}
		}
		if len(st.Stale) > 0 {
			t.Errorf("Registered calls what Register just wrote stale: %v", st.Stale)
		}
		h.HookEvents = slices.DeleteFunc(slices.Clone(h.HookEvents), func(ev string) bool { _, ok := st.Events[ev]; return ok })
		if len(h.HookEvents) > 0 {
			t.Errorf("HookEvents names events Register does not register: %v", h.HookEvents)
		}
		removed, changed, err := h.Unregister(out)
		if err != nil || !changed {
			t.Errorf("Unregister after Register: changed=%v err=%v", changed, err)
		}
		if st, err := h.Registered(removed); err != nil {
			t.Errorf("Registered after Unregister: %v", err)
		} else {
			for ev, cmd := range st.Events {
				if cmd != "" {
					t.Errorf("after Unregister, event %s still runs %q", ev, cmd)
				}
			}
		}
		if before != nil && !bytes.Equal(removed, before) {
			t.Errorf("Unregister did not give back the person's file byte for byte:\nbefore %q\nafter  %q", before, removed)
		}
		if again, changed, err := h.Unregister(removed); err != nil || changed || !bytes.Equal(again, removed) {
			t.Errorf("Unregister twice: changed=%v err=%v, the second time must change nothing", changed, err)
		}
	}
	if _, _, err := h.Register([]byte("{ not json"), command); err == nil {
		t.Errorf("Register on a file that does not parse succeeded: an unparseable file is never rewritten")
	}
}

// settingsPath: the project's settings lie in the project, the user's
// outside it.
func (s Suite) settingsPath(t *testing.T, h agent.Served) {
	root := t.TempDir()
	home := t.TempDir()
	getenv := func(k string) string {
		if k == "HOME" || k == "USERPROFILE" {
			return home
		}
		return ""
	}
	p, err := h.SettingsPath(getenv, root, agent.Project)
	if err != nil {
		t.Fatalf("SettingsPath(Project): %v", err)
	}
	if rel, err := filepath.Rel(root, p); err != nil || strings.HasPrefix(rel, "..") {
		t.Errorf("SettingsPath(Project) = %s, outside the project %s", p, root)
	}
	u, err := h.SettingsPath(getenv, root, agent.User)
	switch {
	case s.Cannot.UserScope && err == nil:
		t.Errorf("declares Cannot{UserScope: true} but SettingsPath(User) = %s", u)
	case !s.Cannot.UserScope && err != nil:
		t.Errorf("SettingsPath(User): %v (declare Cannot{UserScope: true} if the client reads no user settings)", err)
	case err == nil && strings.HasPrefix(u, root+string(filepath.Separator)):
		t.Errorf("SettingsPath(User) = %s, inside the project", u)
	}
}

// transcript: the recorded session reads through the one accumulator into
// facts (a prompt, a tool's work), red redacts every text kept, and a
// transcript cut mid-record still reads.
func (s Suite) transcript(t *testing.T, h agent.Served) {
	if s.Transcript == "" {
		t.Fatal("no recorded transcript: record a session that took a prompt and used a tool")
	}
	root := t.TempDir()
	f, err := transcript.ReadFile(s.Transcript, h.NewDecoder(root, nil))
	if err != nil {
		t.Fatalf("%s: %v", s.Transcript, err)
	}
	if f.Records == 0 {
		t.Fatalf("%s: the decoder recognised no record", s.Transcript)
	}
	if len(f.Prompts) == 0 {
		t.Errorf("%s: no prompt read", s.Transcript)
	}
	if len(f.Files)+len(f.Outside)+len(f.Commands)+len(f.Errors) == 0 {
		t.Errorf("%s: no tool's work read (no file, command or error)", s.Transcript)
	}
	const mark = "⟦redacted⟧"
	red, err := transcript.ReadFile(s.Transcript, h.NewDecoder(root, func(string) string { return mark }))
	if err != nil {
		t.Fatalf("%s, redacting: %v", s.Transcript, err)
	}
	for i, p := range red.Prompts {
		if !strings.Contains(p, mark) && strings.TrimSpace(p) != "" {
			t.Errorf("prompt %d kept unredacted: %q", i, cut([]byte(p)))
		}
	}
	if red.LastAssistant != "" && !strings.Contains(red.LastAssistant, mark) {
		t.Errorf("last reply kept unredacted: %q", cut([]byte(red.LastAssistant)))
	}
	src, err := os.ReadFile(s.Transcript)
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.LastIndexByte(bytes.TrimRight(src, "\n"), '\n'); i > 0 {
		cutSrc := src[:i+1+(len(src)-i-1)/2] // the last record cut in half
		g, err := transcript.Read(bytes.NewReader(cutSrc), h.NewDecoder(root, nil))
		if err != nil {
			t.Errorf("%s cut mid-record: %v", s.Transcript, err)
		} else if g.Records == 0 {
			t.Errorf("%s cut mid-record: no record read", s.Transcript)
		}
	}
}

func keys(m map[string]string) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return strings.Join(ks, ", ")
}

func cut(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
