package main

import (
	"bytes"
	"fmt"
	"github.com/continuity-md/continuity/internal/agent/claude"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/inject"
	"github.com/continuity-md/continuity/ledger"
)

// The transcript scan's benchmark is handoff's BenchmarkReadTranscript;
// ledger's BenchmarkAppend2000Lines times the edit alone. These time the
// rest of the hooks' hot paths, in process.

var benchNow = time.Date(2026, 11, 22, 14, 5, 9, 0, time.UTC)

// handoffDir makes a directory of n empty handoff files with real names.
func handoffDir(b *testing.B, n int) string {
	dir := b.TempDir()
	for i := range n {
		created := benchNow.Add(time.Duration(i-n) * 17 * time.Minute)
		name := handoff.FileName(created, "pre-compact", fmt.Sprintf("%08x-0000", i))
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func benchmarkLatest(b *testing.B, n int) {
	dir := handoffDir(b, n)
	want := filepath.Join(dir, handoff.FileName(benchNow.Add(-17*time.Minute), "pre-compact", fmt.Sprintf("%08x-0000", n-1)))
	for b.Loop() {
		got, err := handoff.Latest(dir)
		if err != nil || got != want {
			b.Fatalf("Latest = %q, %v; want %q", got, err, want)
		}
	}
}

func BenchmarkLatest2000(b *testing.B)   { benchmarkLatest(b, 2000) }
func BenchmarkLatest100000(b *testing.B) { benchmarkLatest(b, 100000) }

// benchInput is a session-start input from the recorded session: a ledger
// with some history and a handoff built from the transcript.
func benchInput(b *testing.B) inject.Input {
	root, err := moduleRoot()
	if err != nil {
		b.Fatal(err)
	}
	src := bigLedger("big", 60)
	l, err := ledger.Parse("CONTINUITY_big.md", src)
	if err != nil {
		b.Fatal(err)
	}
	facts, err := claude.ReadTranscriptFile(filepath.Join(root, recordings[0]), "/tmp/rec1/proj", nil)
	if err != nil {
		b.Fatal(err)
	}
	h := handoff.Build(handoff.Meta{Stream: "big", Created: benchNow.Add(-time.Hour), Event: "pre-compact", Version: "bench"}, facts, l)
	body, err := handoff.Render(h, "")
	if err != nil {
		b.Fatal(err)
	}
	parsed, err := handoff.Parse(body)
	if err != nil {
		b.Fatal(err)
	}
	return inject.Input{Source: "startup", Name: "big", LedgerPath: "thoughts/ledgers/CONTINUITY_big.md", Ledger: l, Notes: inject.LedgerNotes(l),
		Handoff: parsed, HandoffPath: "thoughts/shared/handoffs/big/x.md", Now: benchNow}
}

// BenchmarkInjectRender renders the session-start context.
func BenchmarkInjectRender(b *testing.B) {
	in := benchInput(b)
	var out string
	for b.Loop() {
		out = inject.Render(in)
	}
	if !strings.Contains(out, "Keep a long ledger fast") {
		b.Fatalf("no goal in %.200q", out)
	}
}

// BenchmarkHandoffParse parses the latest handoff, as the session start does.
func BenchmarkHandoffParse(b *testing.B) {
	in := benchInput(b)
	body, err := handoff.Render(&handoff.Handoff{Meta: in.Handoff.Meta, Summary: "s", Goal: "g"}, "")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := handoff.Parse(body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLedgerEdit2000 is what `continuity next` does to a 2,000-line
// ledger, without the file: Apply (parse, append, stamp, check).
func BenchmarkLedgerEdit2000(b *testing.B) {
	src := bigLedger("big", 2000)
	b.SetBytes(int64(len(src)))
	var out []byte
	for b.Loop() {
		var err error
		out, err = ledger.Apply(src, benchNow, ledger.Append(ledger.KeyNext, "one more step"))
		if err != nil {
			b.Fatal(err)
		}
	}
	if !bytes.Contains(out, []byte("  - one more step\n")) {
		b.Fatal("not appended")
	}
}
