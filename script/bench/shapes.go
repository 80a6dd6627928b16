package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// A shape is another host's transcript as its client writes it, grown
// from a recording in the module to any size: the recorded lines again and
// again, their call ids made unique per repetition, with the bytes where a
// long session has them (each tool's output grown by 8 KB - 400 KB, one in
// 400 by 10 MB, after what the client wrote). Its handoff is timed as `continuity handoff --agent NAME
// --transcript FILE`: the same engine, decoder, accumulator and writer as
// the host's hooks, reading the whole file.
type shape struct {
	agent     string // continuity's name for the host (--agent)
	title     string // for the table
	recording string // relative to the module root
	ids       *regexp.Regexp
	// grow says which fields of a line hold a tool's output (gjson paths
	// of JSON strings), and of which lines.
	grow func(line []byte) []string
	// jq pulls the edited paths out of the file: the floor.
	jq string
	// edited is a file the recording edits: the handoff must name it.
	edited string
	// judged says the host's targets are held (else shown, missed or
	// not: its decoder does not meet them yet).
	judged bool
}

var shapes = []shape{
	{
		agent: "codex", title: "Codex rollout", recording: "internal/agent/codex/testdata/rollout-e2e.jsonl",
		ids: regexp.MustCompile(`"call_mock_`),
		grow: func(line []byte) []string {
			switch gjson.GetBytes(line, "payload.type").Str {
			case "function_call_output", "custom_tool_call_output":
				if gjson.GetBytes(line, "payload.output").Type == gjson.String {
					return []string{"payload.output"}
				}
			}
			return nil
		},
		jq:     `select(.type == "response_item" and .payload.type == "custom_tool_call" and .payload.name == "apply_patch") | .payload.input | capture("\\*\\*\\* (Add|Update|Delete) File: (?<p>[^\\n]+)").p`,
		edited: "app.txt",
	},
	{
		agent: "copilot", title: "Copilot events", recording: "internal/agent/copilot/testdata/copilot/copilot-events.jsonl",
		ids: regexp.MustCompile(`"call_mock_`),
		grow: func(line []byte) []string {
			if gjson.GetBytes(line, "type").Str != "tool.execution_complete" {
				return nil
			}
			var paths []string
			for _, p := range []string{"data.result.content", "data.result.detailedContent"} {
				if gjson.GetBytes(line, p).Type == gjson.String {
					paths = append(paths, p)
				}
			}
			return paths
		},
		jq:     `select(.type == "tool.execution_complete") | .data.fileEdits[]?.path`,
		edited: "app.txt",
	},
}

// writeShape writes about size bytes of sh's transcript to path.
func writeShape(modRoot string, sh shape, path string, size int64) error {
	rec, err := os.ReadFile(filepath.Join(modRoot, sh.recording))
	if err != nil {
		return err
	}
	lines := bytes.Split(bytes.TrimRight(rec, "\n"), []byte("\n"))
	pool := outputPool(16 << 20)
	rng := rand.New(rand.NewPCG(3, 4))
	return writeFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		var written int64
		big := 0
		for rep := 0; written < size; rep++ {
			prefix := fmt.Sprintf(`"call_r%d_`, rep)
			for _, line := range lines {
				line = sh.ids.ReplaceAll(line, []byte(prefix))
				if paths := sh.grow(line); len(paths) > 0 {
					n := 8<<10 + rng.IntN(400<<10)
					if big++; big%400 == 0 {
						n = 10 << 20
					}
					text := pool.window(rng, n)
					for _, p := range paths {
						// The recorded output goes on: its header (an
						// exit line, a status) stays where the client
						// writes it.
						raw := gjson.GetBytes(line, p).Raw
						grown := append([]byte(raw[:len(raw)-1]), text[1:]...)
						if line, err = sjson.SetRawBytes(line, p, grown); err != nil {
							return err
						}
					}
				}
				bw.Write(line)
				if err := bw.WriteByte('\n'); err != nil {
					return err
				}
				written += int64(len(line)) + 1
			}
		}
		return bw.Flush()
	})
}

// pool is JSON-escaped command output (without the quotes); windows of it
// are JSON strings. It holds no backslash of its own, so every backslash
// in it starts a two-byte escape.
type pool []byte

func outputPool(n int) pool {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%6d\tfunc handler%d(w http.ResponseWriter, r *http.Request) {\n\t\tif err := check(r, \"token-%d\"); err != nil {\n\t\t\thttp.Error(w, err.Error(), 401)\n\t\t}\n\t}\n", i, i, i)
	}
	enc, _ := json.Marshal(b.String())
	return enc[1 : len(enc)-1]
}

// window returns a JSON string of about n bytes cut from the pool, never
// through an escape.
func (p pool) window(rng *rand.Rand, n int) []byte {
	n = min(n, len(p)-2)
	start := rng.IntN(len(p) - n)
	end := start + n
	if start > 0 && p[start-1] == '\\' {
		start++
	}
	k := 0
	for end-1-k >= start && p[end-1-k] == '\\' {
		k++
	}
	if k%2 == 1 {
		end--
	}
	out := make([]byte, 0, end-start+2)
	out = append(out, '"')
	out = append(out, p[start:end]...)
	return append(out, '"')
}

// runShape times a cold handoff from a c.size transcript of sh's host
// against jq pulling the edited paths out of it.
func runShape(c config, sh shape, bin, modRoot, tmp, repo string, env []string, haveJQ bool, logf func(string, ...any)) ([]row, error) {
	path := filepath.Join(tmp, sh.agent+"-transcript.jsonl")
	logf("%s: generating %d MB", sh.title, c.size>>20)
	if err := writeShape(modRoot, sh, path, c.size); err != nil {
		return nil, err
	}
	defer os.Remove(path)
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	title := fmt.Sprintf("%s, %d MB", sh.title, fi.Size()>>20)
	h := handoffProc(sh, title, bin, path, repo, env)
	procs := []*proc{h}
	jq := jqProc(title, sh.jq, path, sh.edited)
	if haveJQ {
		procs = append(procs, jq)
	}
	logf("%s: %d runs each, alternating", title, c.scanRuns)
	if err := alternate(c.scanRuns, procs...); err != nil {
		return nil, err
	}
	rss, err := h.measureRSS()
	if err != nil {
		return nil, err
	}
	var rows []row
	if haveJQ {
		rows = append(rows, row{p: jq})
	}
	for _, r := range scanRows(c, h, jq, haveJQ, rss) {
		rows = append(rows, judgedIf(sh.judged, r))
	}
	return rows, nil
}

// judgedIf is r, judged when judged is true.
func judgedIf(judged bool, r row) row {
	if judged {
		return r
	}
	return unjudged(r)
}

// handoffProc writes a handoff from sh's transcript at path, read whole,
// in repo: the handoff must name the file the transcript edits.
func handoffProc(sh shape, title, bin, path, repo string, env []string) *proc {
	hdir := filepath.Join(repo, "thoughts", "shared", "handoffs", activeStream)
	return &proc{name: "handoff --agent " + sh.agent + ", " + title, argv: []string{bin, "handoff", "--agent", sh.agent, "--transcript", path},
		dir: repo, env: env,
		check: func([]byte) error {
			ents, err := os.ReadDir(hdir)
			if err != nil {
				return err
			}
			return holding(hdir, ents, sh.edited)
		}}
}
