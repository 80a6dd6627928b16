package transcript

import "slices"

// Helpers the hosts' decoders share to keep their facts bounded.

// prefixRunes is s cut to at most n runes (no mark; it may share s's
// memory): what a decoder redacts before cutting to size.
func prefixRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

// AppendLast appends items to list and keeps only its last max entries.
func AppendLast[T any](list []T, max int, items ...T) []T {
	list = append(list, items...)
	if n := len(list); n > max {
		copy(list, list[n-max:])
		clear(list[max:])
		list = list[:max]
	}
	return list
}

// appendLastUnique appends s, moving an earlier equal entry to the end,
// and keeps the last max entries.
func appendLastUnique(list []string, s string, max int) []string {
	if i := slices.Index(list, s); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	return AppendLast(list, max, s)
}
