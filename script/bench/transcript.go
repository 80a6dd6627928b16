package main

import (
	"io"
	"os"
	"path/filepath"

	"github.com/continuity-md/continuity/internal/agent/claude"
)

// recordings are the real sessions a big transcript is made of, relative to
// the module root.
var recordings = []string{
	"testdata/transcripts/tools-and-compact.jsonl",
	"testdata/transcripts/demo.jsonl",
	"testdata/transcripts/multiline-prompt.jsonl",
	"internal/core/demo_transcript.jsonl",
}

// sampleWriter returns the host's writer of long transcripts made of the
// recordings.
func sampleWriter(modRoot string) (*claude.SampleWriter, error) {
	var recs [][]byte
	for _, r := range recordings {
		data, err := os.ReadFile(filepath.Join(modRoot, r))
		if err != nil {
			return nil, err
		}
		recs = append(recs, data)
	}
	return claude.NewSampleWriter(recs), nil
}

// writeTranscript writes a transcript of about size bytes to path (see
// claude.SampleWriter).
func writeTranscript(modRoot, path string, size int64) error {
	sw, err := sampleWriter(modRoot)
	if err != nil {
		return err
	}
	return writeFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, func(w io.Writer) error { return sw.Write(w, size) })
}

// writeFile opens path with flag, lets fn write to it and closes it.
func writeFile(path string, flag int, fn func(io.Writer) error) error {
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
