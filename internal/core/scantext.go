package core

import (
	"bytes"
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeText returns b as UTF-8, decoded from the encodings a text file comes in
// and git keeps as text or as a working-tree encoding: UTF-8 with or
// without a byte order mark, UTF-16 and UTF-32 in either byte order with
// one, and UTF-16 without one (every other byte zero, as ASCII text in it
// is). Anything else is scanned as it is: secrets are ASCII, and bytes of
// a legacy single-byte encoding around them change nothing.
func decodeText(b []byte) []byte {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		return b[3:]
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE, 0, 0}):
		return utf32(b[4:], binary.LittleEndian)
	case bytes.HasPrefix(b, []byte{0, 0, 0xFE, 0xFF}):
		return utf32(b[4:], binary.BigEndian)
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return utf16Text(b[2:], binary.LittleEndian)
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return utf16Text(b[2:], binary.BigEndian)
	}
	if order := utf16Order(b); order != nil {
		return utf16Text(b, order)
	}
	return b
}

// utf16Order guesses the byte order of UTF-16 without a byte order mark
// from where its zero bytes fall: nearly all in one half of the pairs.
func utf16Order(b []byte) binary.ByteOrder {
	n := min(len(b), 8192) &^ 1
	if n < 8 {
		return nil
	}
	var zero [2]int
	for i := range n {
		if b[i] == 0 {
			zero[i&1]++
		}
	}
	pairs := n / 2
	switch {
	case zero[1]*10 >= pairs*7 && zero[0]*20 < pairs:
		return binary.LittleEndian
	case zero[0]*10 >= pairs*7 && zero[1]*20 < pairs:
		return binary.BigEndian
	}
	return nil
}

func utf16Text(b []byte, order binary.ByteOrder) []byte {
	units := make([]uint16, len(b)/2)
	for i := range units {
		units[i] = order.Uint16(b[2*i:])
	}
	return []byte(string(utf16.Decode(units)))
}

func utf32(b []byte, order binary.ByteOrder) []byte {
	out := make([]byte, 0, len(b)/4)
	for i := 0; i+4 <= len(b); i += 4 {
		r := rune(order.Uint32(b[i:]))
		if !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		out = utf8.AppendRune(out, r)
	}
	return out
}
