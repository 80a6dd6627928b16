package claude

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/continuity-md/continuity/internal/agent"
)

// For tools that play the client (the bench): Claude Code's payloads and
// transcripts made to order, so that its names stay in this package.

// eventNames are the client's names for the kinds of event continuity
// reads, as Decode maps them back.
var eventNames = map[agent.Kind]string{
	agent.Start:         "SessionStart",
	agent.BeforeCompact: "PreCompact",
	agent.AfterCompact:  "PostCompact",
	agent.End:           "SessionEnd",
	agent.TurnEnd:       "Stop",
}

// Payload is the hook payload the client sends for ev: its kind, session
// id, transcript, cwd, and source, trigger, reason or summary as the kind
// has them. It fails for a kind Decode does not read back as ev.Kind.
func Payload(ev agent.Event) ([]byte, error) {
	name, ok := eventNames[ev.Kind]
	if !ok {
		return nil, fmt.Errorf("claude: no hook event of kind %d", ev.Kind)
	}
	m := map[string]string{"hook_event_name": name, "session_id": ev.SessionID, "transcript_path": ev.Transcript, "cwd": ev.Cwd}
	for k, v := range map[string]string{"source": ev.Source, "trigger": ev.Trigger, "reason": ev.Reason, "compact_summary": ev.Summary} {
		if v != "" {
			m[k] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if got, err := (Host{}).Decode(b); err != nil || got.Kind != ev.Kind {
		return nil, fmt.Errorf("claude: the client's %s is not read as kind %d here", name, ev.Kind)
	}
	return b, nil
}

// JQEditedPaths is a jq program that prints the paths a transcript's
// edits touched: the least any reader of it has to do.
const JQEditedPaths = `select(.type == "assistant") | .message.content[]? | select(.type == "tool_use" and (.name == "Edit" or .name == "Write" or .name == "MultiEdit")) | .input.file_path`

// SampleWriter writes long transcripts made of recorded ones: their lines
// one after another, with tool ids made unique per repetition, and with the
// bytes where a long session has them: each Bash or Read result (kept twice
// by the client, in the message and in toolUseResult) and each
// api-request-blob grown to a realistic size. About one result in 400 is a
// huge Read (10 MB).
type SampleWriter struct {
	sessions [][][]byte
	pool     jsonPool
	rng      *rand.Rand
	big, rep int
}

// NewSampleWriter returns a writer of transcripts made of the recorded
// transcripts given, with a fixed seed: the same calls write the same bytes.
func NewSampleWriter(recordings [][]byte) *SampleWriter {
	s := &SampleWriter{pool: textPool(16 << 20), rng: rand.New(rand.NewPCG(1, 2))}
	for _, r := range recordings {
		s.sessions = append(s.sessions, bytes.Split(bytes.TrimRight(r, "\n"), []byte("\n")))
	}
	return s
}

// Write writes about size bytes of whole sessions to w.
func (s *SampleWriter) Write(w io.Writer, size int64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	var written int64
	for written < size {
		n, err := s.lines(bw, s.sessions[s.rep%len(s.sessions)], s.rep, 1)
		if err != nil {
			return err
		}
		s.rep++
		written += n
	}
	return bw.Flush()
}

// Turn writes one more turn to w: the first lines of the next recorded
// session, with results of about 8 KB, until about size bytes are written.
func (s *SampleWriter) Turn(w io.Writer, size int64) error {
	bw := bufio.NewWriter(w)
	var written int64
	for _, line := range s.sessions[s.rep%len(s.sessions)] {
		n, err := s.lines(bw, [][]byte{line}, s.rep, 0)
		if err != nil {
			return err
		}
		if written += n; written >= size {
			break
		}
	}
	s.rep++
	return bw.Flush()
}

// lines writes lines as repetition rep; scale 0 keeps results at 8 KB or
// so, 1 grows them as a long session has them.
func (s *SampleWriter) lines(w *bufio.Writer, lines [][]byte, rep, scale int) (int64, error) {
	prefix := fmt.Appendf(nil, `"toolu_r%d_`, rep)
	var written int64
	for _, line := range lines {
		line = bytes.ReplaceAll(line, []byte(`"toolu_`), prefix)
		typ := gjson.GetBytes(line, "type").String()
		var err error
		switch {
		case typ == "api-request-blob":
			line, err = sjson.SetRawBytes(line, "message.content.0.text", s.pool.window(s.rng, 4<<10+scale*(60<<10+s.rng.IntN(900<<10))))
		case typ == "user" && (gjson.GetBytes(line, "toolUseResult.stdout").Exists() || gjson.GetBytes(line, "toolUseResult.file.content").Exists()):
			n := 8<<10 + scale*s.rng.IntN(400<<10)
			if s.big++; scale > 0 && s.big%400 == 0 {
				n = 10 << 20
			}
			line, err = inflateResult(line, s.pool.window(s.rng, n))
		}
		if err != nil {
			return written, err
		}
		w.Write(line)
		if err := w.WriteByte('\n'); err != nil {
			return written, err
		}
		written += int64(len(line)) + 1
	}
	return written, nil
}

// inflateResult replaces a tool result's text, in the message and in
// toolUseResult, with text (a JSON string).
func inflateResult(line, text []byte) ([]byte, error) {
	var err error
	content := "message.content.0.content"
	if gjson.GetBytes(line, content).IsArray() {
		content += ".0.text"
	}
	if line, err = sjson.SetRawBytes(line, content, text); err != nil {
		return nil, err
	}
	for _, p := range []string{"toolUseResult.stdout", "toolUseResult.file.content"} {
		if gjson.GetBytes(line, p).Exists() {
			if line, err = sjson.SetRawBytes(line, p, text); err != nil {
				return nil, err
			}
		}
	}
	return line, nil
}

// jsonPool is JSON-escaped source text; windows of it are JSON strings.
type jsonPool []byte

// textPool returns about n bytes of Go-like source, escaped for JSON
// (without the quotes). The text holds no backslash of its own, so every
// backslash in the pool starts a two-byte escape.
func textPool(n int) jsonPool {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%6d\tfunc handler%d(w http.ResponseWriter, r *http.Request) {\n\t\tif err := check(r, \"token-%d\"); err != nil {\n\t\t\thttp.Error(w, err.Error(), 401)\n\t\t}\n\t}\n", i, i, i)
	}
	enc, _ := json.Marshal(b.String())
	return enc[1 : len(enc)-1]
}

// window returns a JSON string of about n bytes cut from the pool.
func (p jsonPool) window(rng *rand.Rand, n int) []byte {
	n = min(n, len(p)-2)
	start := rng.IntN(len(p) - n)
	end := start + n
	if start > 0 && p[start-1] == '\\' {
		start++
	}
	// Count the backslashes before end: an odd run means end splits an escape.
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
