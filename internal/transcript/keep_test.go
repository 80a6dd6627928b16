package transcript

import (
	"reflect"
	"testing"
)

func TestKeepHelpers(t *testing.T) {
	if got := PrefixRunes("héllo", 2); got != "hé" {
		t.Errorf("PrefixRunes = %q", got)
	}
	if got := PrefixRunes("ab", 5); got != "ab" {
		t.Errorf("PrefixRunes short = %q", got)
	}
	l := AppendLast([]int{1, 2, 3}, 3, 4, 5)
	if !reflect.DeepEqual(l, []int{3, 4, 5}) {
		t.Errorf("AppendLast = %v", l)
	}
	u := AppendLastUnique([]string{"a", "b", "c"}, "a", 3)
	if !reflect.DeepEqual(u, []string{"b", "c", "a"}) {
		t.Errorf("AppendLastUnique = %v", u)
	}
	u = AppendLastUnique(u, "d", 3)
	if !reflect.DeepEqual(u, []string{"c", "a", "d"}) {
		t.Errorf("AppendLastUnique bounded = %v", u)
	}
}
