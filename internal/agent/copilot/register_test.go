package copilot

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/testkit"
)

const cmd = "continuity hook --agent copilot"

func TestRegister(t *testing.T) {
	h := Host{}
	out, changed, err := h.Register(nil, cmd)
	if err != nil || !changed {
		t.Fatalf("register: %v, changed %v", err, changed)
	}
	testkit.Check(t, "register-new.json", out)
	// The shape Copilot reads: version 1, one command entry an event, naming it.
	var f hooksFile
	if err := json.Unmarshal(out, &f); err != nil || f.Version != 1 || len(f.Hooks) != len(events) {
		t.Fatalf("%v: %+v", err, f)
	}
	for _, ev := range events {
		if e := f.Hooks[ev]; len(e) != 1 || e[0].Type != "command" || e[0].Bash != cmd+" --event "+ev || e[0].TimeoutSec == 0 {
			t.Errorf("%s: %+v", ev, e)
		}
	}
	again, changed, err := h.Register(out, cmd)
	if err != nil || changed || !bytes.Equal(again, out) {
		t.Errorf("registering twice changed the file (%v)", err)
	}
	st, err := h.Registered(out)
	if err != nil || len(st.Stale) != 0 || st.Events["sessionEnd"] != cmd+" --event sessionEnd" {
		t.Errorf("status %+v, %v", st, err)
	}
	// Another program path rewrites the commands.
	moved, changed, _ := h.Register(out, "/opt/continuity hook --agent copilot")
	if !changed || !strings.Contains(string(moved), `"/opt/continuity hook --agent copilot --event preCompact"`) {
		t.Errorf("not rewritten: %s", moved)
	}
	gone, changed, err := h.Unregister(out)
	if err != nil || !changed {
		t.Fatal(err)
	}
	if st, _ := h.Registered(gone); st.Events["sessionStart"] != "" {
		t.Errorf("still registered: %s", gone)
	}
	if _, changed, _ := h.Unregister(gone); changed {
		t.Error("unregistering twice changed the file")
	}
}

func TestRegisterRefusesForeignFile(t *testing.T) {
	for _, in := range []string{
		`{"version":1,"hooks":{"sessionStart":[{"type":"command","bash":"echo hi"}]}}`,
		`{"version":1,"hooks":{},"disableAllHooks":true}`,
		`{not json`,
	} {
		if _, _, err := (Host{}).Register([]byte(in), cmd); err == nil {
			t.Errorf("rewrote %s", in)
		}
		if _, _, err := (Host{}).Unregister([]byte(in)); err == nil {
			t.Errorf("emptied %s", in)
		}
	}
}

func TestRegisteredStale(t *testing.T) {
	old := `{"version":1,"hooks":{"sessionStart":[{"type":"command","bash":"continuity hook --agent copilot","timeoutSec":10}]}}`
	st, err := Host{}.Registered([]byte(old))
	if err != nil || len(st.Stale) != 1 || !strings.Contains(st.Stale[0], "--event sessionStart") {
		t.Errorf("%+v %v", st, err)
	}
}

func TestSettingsPathAndTrust(t *testing.T) {
	env := envOf(map[string]string{"COPILOT_HOME": "/c"})
	if p, _ := (Host{}).SettingsPath(env, "/r", agent.Project); p != "/r/.github/hooks/continuity.json" {
		t.Error(p)
	}
	if p, _ := (Host{}).SettingsPath(env, "/r", agent.User); p != "/c/hooks/continuity.json" {
		t.Error(p)
	}
	r := testkit.New(t, true)
	if ig, n := (Host{}).TrustNotes(env, r.Dir); n != nil || ig != nil {
		t.Errorf("a note without a registration: %q", n)
	}
	out, _, _ := Host{}.Register(nil, cmd)
	r.Write(".github/hooks/continuity.json", string(out))
	// Copilot's trust is its own: continuity cannot tell, so it notes.
	ig, n := Host{}.TrustNotes(env, r.Dir)
	if len(ig) != 0 || len(n) != 1 || !strings.Contains(n[0], "--trust-folder") {
		t.Errorf("notes %q", n)
	}
	if !Registered(env, r.Dir) {
		t.Error("the project's registration not found")
	}
}
