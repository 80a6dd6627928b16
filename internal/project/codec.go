package project

import (
	"encoding/binary"
	"time"
)

// Codec turns a parsed value into bytes and back for a memo (Parsed),
// field by field: a session start decodes it, and encoding/json's first
// use in a process (its reflection, its type caches, the page faults of
// its code) costs more than the parse it would save.
type Codec[T any] struct {
	Encode func(*Enc, T)
	Decode func(*Dec) T
}

// Enc appends values; Dec reads them back in the same order.
type Enc struct{ b []byte }

// Bytes is what was appended.
func (e *Enc) Bytes() []byte { return e.b }

// NewDec reads b.
func NewDec(b []byte) *Dec { return &Dec{b: b} }

// Str appends s.
func (e *Enc) Str(s string) {
	e.b = binary.AppendUvarint(e.b, uint64(len(s)))
	e.b = append(e.b, s...)
}

// Int appends n.
func (e *Enc) Int(n int64) { e.b = binary.AppendVarint(e.b, n) }

// Strs appends ss, nil apart from empty.
func (e *Enc) Strs(ss []string) {
	if ss == nil {
		e.Int(-1)
		return
	}
	e.Int(int64(len(ss)))
	for _, s := range ss {
		e.Str(s)
	}
}

// Time appends t (its instant and its zone's offset).
func (e *Enc) Time(t time.Time) {
	if t.IsZero() {
		e.Int(0)
		return
	}
	e.Int(1)
	_, off := t.Zone()
	name, _ := t.Zone()
	if t.Location() == time.UTC {
		name = "UTC"
	}
	e.Str(name)
	e.Int(int64(off))
	e.Int(t.Unix())
	e.Int(int64(t.Nanosecond()))
}

// Dec reads what an Enc wrote; once anything is amiss (OK false) every
// read gives a zero value.
type Dec struct {
	b   []byte
	bad bool
}

// OK reports whether everything read so far was there, and nothing is left.
func (d *Dec) OK() bool { return !d.bad && len(d.b) == 0 }

// Str reads a string.
func (d *Dec) Str() string {
	n, k := binary.Uvarint(d.b)
	if d.bad || k <= 0 || n > uint64(len(d.b)-k) {
		d.bad = true
		return ""
	}
	s := string(d.b[k : k+int(n)])
	d.b = d.b[k+int(n):]
	return s
}

// Int reads a number.
func (d *Dec) Int() int64 {
	n, k := binary.Varint(d.b)
	if d.bad || k <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[k:]
	return n
}

// Count reads the length of a list (Enc.Int of it, -1 for nil) whose
// entries take at least each bytes apiece: -1 for nil, and -1 with the
// Dec no longer OK for a count the bytes left cannot hold.
func (d *Dec) Count(each int) int {
	n := d.Int()
	switch {
	case d.bad:
		return -1
	case n == -1:
		return -1
	case n < 0 || n > int64(len(d.b)/max(each, 1)):
		d.bad = true
		return -1
	}
	return int(n)
}

// Strs reads a list of strings.
func (d *Dec) Strs() []string {
	n := d.Count(1) // each string takes at least its length's byte
	if n < 0 {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = d.Str()
	}
	return ss
}

// Time reads a time.
func (d *Dec) Time() time.Time {
	if d.Int() == 0 {
		return time.Time{}
	}
	name, off := d.Str(), d.Int()
	sec, nsec := d.Int(), d.Int()
	if d.bad {
		return time.Time{}
	}
	t := time.Unix(sec, nsec)
	if name == "UTC" && off == 0 {
		return t.UTC()
	}
	return t.In(time.FixedZone(name, int(off)))
}
