package transcript

import (
	"reflect"
	"testing"
)

func TestKeepHelpers(t *testing.T) {
	if got := prefixRunes("héllo", 2); got != "hé" {
		t.Errorf("prefixRunes = %q", got)
	}
	if got := prefixRunes("ab", 5); got != "ab" {
		t.Errorf("prefixRunes short = %q", got)
	}
	l := AppendLast([]int{1, 2, 3}, 3, 4, 5)
	if !reflect.DeepEqual(l, []int{3, 4, 5}) {
		t.Errorf("AppendLast = %v", l)
	}
	u := appendLastUnique([]string{"a", "b", "c"}, "a", 3)
	if !reflect.DeepEqual(u, []string{"b", "c", "a"}) {
		t.Errorf("appendLastUnique = %v", u)
	}
	u = appendLastUnique(u, "d", 3)
	if !reflect.DeepEqual(u, []string{"c", "a", "d"}) {
		t.Errorf("appendLastUnique bounded = %v", u)
	}
}
