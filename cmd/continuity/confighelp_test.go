package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/workspace"
)

// TestConfigHelpListsEveryKey: `config --help` names every key the
// configuration reads (nested ones as handoff.sections), found from the
// Config type itself, so a key added later cannot be left out.
func TestConfigHelpListsEveryKey(t *testing.T) {
	a, _, _ := testApp(t)
	help := newConfigCmd(a).Long
	var walk func(prefix string, typ reflect.Type)
	walk = func(prefix string, typ reflect.Type) {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" || name == "-" {
				continue
			}
			if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() == "" {
				walk(prefix+name+".", f.Type)
				continue
			}
			if !strings.Contains(help, prefix+name) {
				t.Errorf("config --help does not name %s", prefix+name)
			}
		}
	}
	walk("", reflect.TypeOf(workspace.Config{}))
	for _, want := range []string{"500 to 9,900", "2048 or more", "shared or isolated", "off or ref"} {
		if !strings.Contains(help, want) {
			t.Errorf("config --help does not give the range %q", want)
		}
	}
}
