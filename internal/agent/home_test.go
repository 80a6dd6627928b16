package agent

import "testing"

func TestHome(t *testing.T) {
	env := map[string]string{"X_HOME": "/x", "HOME": "/h"}
	getenv := func(k string) string { return env[k] }
	if got := Home(getenv, "X_HOME"); got != "/x" {
		t.Errorf("with the override: %q", got)
	}
	delete(env, "X_HOME")
	if got := Home(getenv, "X_HOME"); got != "/h" {
		t.Errorf("without it: %q, want HOME", got)
	}
}
