package main

import (
	"bytes"
	"testing"
)

func TestShowPipedIsTheExactFile(t *testing.T) {
	var out bytes.Buffer
	a := &app{out: &out, getenv: func(string) string { return "" }}
	if a.isTerminal(&out) {
		t.Fatal("a buffer is not a terminal")
	}
}
