package core

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/inject"
	"github.com/continuity-md/continuity/internal/transcript"
	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

// continuity eval replays transcripts at the points where an agent's
// context is lost (a compaction it recorded, or a prompt boundary with work
// before and after it) and scores what a session would be given there,
// continuity's context and the agent's own compaction summary, against
// what the agent did next. Nothing is written and no model is called: the
// context is rendered in memory the way a hook would render it.

// EvalOptions say what continuity eval replays.
type EvalOptions struct {
	Hosts []agent.Served
	// Root is the repository whose agents' transcripts are replayed, found
	// where each agent keeps them; "" when Dir names the transcripts.
	Root string
	// Dir is a folder of transcripts (any agent's, told by their content).
	Dir string
	// Splits is a file of split points (tab-separated: file relative to
	// Dir, line, kind, summary line, unit, …, with a header line); "" finds
	// them in each transcript.
	Splits string
	// Config gives the budget and what each start is given.
	Config workspace.Config
	Getenv func(string) string
	// Progress, when set, is told of each transcript as it is replayed.
	Progress func(done, total int, file string)
	Now      time.Time
}

// EvalReport is what continuity eval found: the scores per agent.
type EvalReport struct {
	Transcripts int         `json:"transcripts"` // transcripts replayed
	Splits      int         `json:"splits"`      // split points scored
	Agents      []EvalAgent `json:"agents"`
	Skipped     []string    `json:"skipped,omitempty"` // transcripts or splits not replayed, and why
}

// EvalAgent is one agent's scores.
type EvalAgent struct {
	Agent       string `json:"agent"`
	Transcripts int    `json:"transcripts"`
	// Continuity is continuity's context at every split; AtSummaries is
	// the same at only the splits where the agent wrote a compaction
	// summary, and Summary that summary's own scores there.
	Continuity  EvalScores  `json:"continuity"`
	AtSummaries *EvalScores `json:"at_summaries,omitempty"`
	Summary     *EvalScores `json:"summary,omitempty"`
}

// EvalScores are the scores of one kind of context over a set of splits.
type EvalScores struct {
	Splits      int   `json:"splits"`
	Edited      Ratio `json:"edited"`      // files edited before the split and gone back to after it, named
	ReadOnly    Ratio `json:"read_only"`   // files only read before and gone back to, named
	Files       Ratio `json:"files"`       // both
	Uncommitted Ratio `json:"uncommitted"` // files edited and not committed at the split, named
	OpenErrors  Ratio `json:"open_errors"` // checks failing at the split, named as failing
	LastCheck   Ratio `json:"last_check"`  // the last check run, stated with its outcome
	Task        Ratio `json:"task"`        // the latest request, stated
	Plan        Ratio `json:"plan"`        // the plan's open items, stated
	Tokens      int   `json:"tokens"`      // mean tokens per start (a token per 4 bytes)
	tokensTotal int
}

// Ratio is how many of Of were named.
type Ratio struct {
	Named int `json:"named"`
	Of    int `json:"of"`
}

// Value is the ratio, NaN when there was nothing to name.
func (r Ratio) Value() float64 {
	if r.Of == 0 {
		return math.NaN()
	}
	return float64(r.Named) / float64(r.Of)
}

func (r *Ratio) add(o Ratio) { r.Named, r.Of = r.Named+o.Named, r.Of+o.Of }

func (s *EvalScores) add(o EvalScores) {
	s.Splits += o.Splits
	for _, p := range []struct{ to, from *Ratio }{{&s.Edited, &o.Edited}, {&s.ReadOnly, &o.ReadOnly}, {&s.Files, &o.Files},
		{&s.Uncommitted, &o.Uncommitted}, {&s.OpenErrors, &o.OpenErrors}, {&s.LastCheck, &o.LastCheck}, {&s.Task, &o.Task}, {&s.Plan, &o.Plan}} {
		p.to.add(*p.from)
	}
	s.tokensTotal += o.tokensTotal
	if s.Splits > 0 {
		s.Tokens = (s.tokensTotal + s.Splits/2) / s.Splits
	}
}

// evalSplit is a point where the context is lost: lines 1..Line are the
// history; SummaryLine holds the agent's own summary (0: none).
type evalSplit struct {
	Line, SummaryLine int
	Compaction        bool
}

// evalFile is a transcript to replay.
type evalFile struct {
	path, name string // name: as reports and a splits file say it
	host       agent.Served
	splits     []evalSplit
	root       string // the repository (repo mode); "" takes the session's cwd
}

// maxEvalBytes bounds a transcript eval reads whole.
const maxEvalBytes = 1 << 30

// evalReadLimit is the working set the truth is taken from: every file the
// accumulator weighs, not only those a handoff lists.
const evalReadLimit = 200

// Eval replays the transcripts o names at their split points and scores
// each kind of context there.
func Eval(o EvalOptions) (*EvalReport, error) {
	var files []evalFile
	var skipped []string
	var err error
	switch {
	case o.Dir != "":
		files, skipped, err = evalDirFiles(o)
	case o.Root != "":
		files, skipped = evalRepoFiles(o)
	default:
		return nil, errors.New("eval: no repository and no folder of transcripts")
	}
	if err != nil {
		return nil, err
	}
	rep := &EvalReport{Skipped: skipped}
	byAgent := map[string]*EvalAgent{}
	for i, f := range files {
		if o.Progress != nil {
			o.Progress(i, len(files), f.name)
		}
		res, why := evalOne(o, f)
		if why != "" {
			rep.Skipped = append(rep.Skipped, f.name+": "+why)
			continue
		}
		if res.Continuity.Splits == 0 {
			continue
		}
		a := byAgent[f.host.Name()]
		if a == nil {
			a = &EvalAgent{Agent: f.host.Name()}
			byAgent[f.host.Name()] = a
		}
		a.Transcripts++
		rep.Transcripts++
		rep.Splits += res.Continuity.Splits
		a.Continuity.add(res.Continuity)
		if res.Summary != nil {
			if a.Summary == nil {
				a.Summary, a.AtSummaries = &EvalScores{}, &EvalScores{}
			}
			a.Summary.add(*res.Summary)
			a.AtSummaries.add(*res.AtSummaries)
		}
	}
	if o.Progress != nil {
		o.Progress(len(files), len(files), "")
	}
	for _, h := range o.Hosts {
		if a := byAgent[h.Name()]; a != nil {
			rep.Agents = append(rep.Agents, *a)
		}
	}
	return rep, nil
}

// evalDirFiles are the transcripts in o.Dir: those a splits file names, or
// every *.jsonl and *.json file whose content an agent recognises.
func evalDirFiles(o EvalOptions) ([]evalFile, []string, error) {
	var skipped []string
	if o.Splits != "" {
		rows, bad, err := readSplits(o.Splits)
		if err != nil {
			return nil, nil, err
		}
		skipped = bad
		var out []evalFile
		for _, name := range sortedKeys(rows) {
			p := filepath.Join(o.Dir, filepath.FromSlash(name))
			h, ok := recognise(o.Hosts, p)
			if !ok {
				skipped = append(skipped, name+": no agent recognises it (or it cannot be read)")
				continue
			}
			out = append(out, evalFile{path: p, name: name, host: h, splits: rows[name]})
		}
		return out, skipped, nil
	}
	var out []evalFile
	err := filepath.WalkDir(o.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || !isTranscriptName(p) {
			return nil
		}
		name, _ := filepath.Rel(o.Dir, p)
		if h, ok := recognise(o.Hosts, p); ok {
			out = append(out, evalFile{path: p, name: filepath.ToSlash(name), host: h})
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("eval: %w", err)
	}
	return out, skipped, nil
}

func isTranscriptName(p string) bool {
	ext := filepath.Ext(p)
	return ext == ".jsonl" || ext == ".json"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// evalRepoFiles are the transcripts each agent keeps of sessions in the
// repository o.Root: where the agent keeps them, those whose working
// directory lies inside the repository (a subagent's own file is read as
// part of no session here).
func evalRepoFiles(o EvalOptions) ([]evalFile, []string) {
	var out []evalFile
	var skipped []string
	for _, h := range o.Hosts {
		dirs := []string{h.TranscriptDir(o.Getenv, o.Root)}
		if h.TranscriptRoots != nil {
			dirs = append(dirs, h.TranscriptRoots(o.Getenv, o.Root)...)
		}
		seen := map[string]bool{}
		for _, dir := range dirs {
			if dir == "" {
				continue
			}
			_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return nil
				}
				if d.IsDir() && d.Name() == "subagents" {
					return filepath.SkipDir
				}
				if !d.Type().IsRegular() || !isTranscriptName(p) || seen[p] {
					return nil
				}
				seen[p] = true
				cwd := sessionCwd(p)
				if cwd != "" && !within(o.Root, cwd) || cwd == "" && !slices.Contains(dirs, filepath.Dir(p)) {
					return nil // another project's session, or none known
				}
				if _, ok := recognise([]agent.Served{h}, p); !ok {
					return nil
				}
				out = append(out, evalFile{path: p, name: p, host: h, root: o.Root})
				return nil
			})
		}
	}
	return out, skipped
}

// within reports whether dir is root or lies inside it.
func within(root, dir string) bool {
	r, err := filepath.Rel(filepath.Clean(root), filepath.Clean(dir))
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// sniffBytes is how much of a transcript tells whose it is and where it ran.
const sniffBytes = 1 << 20

// head is the first n bytes of the file at p.
func head(p string, n int) []byte {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, int64(n)))
	return b
}

// recognise is the host whose decoder recognises most records at the
// start of the transcript at p, nil when none recognises any.
func recognise(hosts []agent.Served, p string) (agent.Served, bool) {
	b := head(p, sniffBytes)
	if len(b) == 0 {
		return agent.Served{}, false
	}
	if i := bytes.LastIndexByte(b, '\n'); i > 0 && len(b) == sniffBytes {
		b = b[:i+1]
	}
	var best agent.Served
	most := 0
	for _, h := range hosts {
		f, _ := transcript.Read(bytes.NewReader(b), h.NewDecoder("", nil))
		if f != nil && f.Records > most {
			best, most = h, f.Records
		}
	}
	return best, most > 0
}

var cwdKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"cwd"\s*:\s*("(?:[^"\\]|\\.)*")`)
})

// sessionCwd is the working directory a transcript names first ("" when
// none): every agent but Gemini CLI writes one near its start.
func sessionCwd(p string) string {
	m := cwdKey().FindSubmatch(head(p, sniffBytes))
	if m == nil {
		return ""
	}
	var s string
	if json.Unmarshal(m[1], &s) != nil || !filepath.IsAbs(s) {
		return ""
	}
	return filepath.Clean(s)
}

// readSplits reads a splits file: per transcript, its split points.
func readSplits(p string) (map[string][]evalSplit, []string, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, nil, fmt.Errorf("eval: splits: %w", err)
	}
	defer f.Close()
	rows := map[string][]evalSplit{}
	var skipped []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		cols := strings.Split(sc.Text(), "\t")
		if n == 1 && len(cols) > 1 && cols[1] == "split" || strings.TrimSpace(sc.Text()) == "" || strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		if len(cols) < 4 {
			return nil, nil, fmt.Errorf("eval: splits %s line %d: want at least 4 tab-separated columns (file, split, kind, summary line), got %d", p, n, len(cols))
		}
		line, err := strconv.Atoi(cols[1])
		if err != nil || line < 0 {
			return nil, nil, fmt.Errorf("eval: splits %s line %d: split %q is no line number", p, n, cols[1])
		}
		if len(cols) > 4 && cols[4] != "" && cols[4] != "line" {
			skipped = append(skipped, fmt.Sprintf("%s split %d: counted in %ss, which eval does not replay", cols[0], line, cols[4]))
			continue
		}
		s := evalSplit{Line: line, Compaction: cols[2] == "compaction"}
		s.SummaryLine, _ = strconv.Atoi(cols[3])
		rows[cols[0]] = append(rows[cols[0]], s)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("eval: splits %s: %w", p, err)
	}
	return rows, skipped, nil
}

// evalResult is one transcript's scores.
type evalResult struct {
	Continuity           EvalScores
	AtSummaries, Summary *EvalScores
}

// lines are the offsets of a transcript's lines: line i (1-based) is
// data[starts[i-1]:starts[i]].
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i, c := range data {
		if c == '\n' && i+1 < len(data) {
			starts = append(starts, i+1)
		}
	}
	return append(starts, len(data))
}

// feed gives one line to a decoder as the engine would.
func feed(d transcript.Decoder, line []byte) {
	line = bytes.TrimRight(line, "\r\n")
	if len(line) == 0 || len(line) > transcript.MaxLineBytes {
		return
	}
	if d.Wants(line[:min(len(line), 64<<10)]) {
		d.Record(line)
	}
}

// counter is a host's decoder with its progress and its full working set.
func counter(h agent.Host, root string) (transcript.Counter, bool) {
	d := h.NewDecoder(root, nil)
	c, ok := d.(transcript.Counter)
	if l, lok := d.(transcript.ReadLimit); lok {
		l.SetReadLimit(evalReadLimit)
	}
	return c, ok
}

// evalOne replays one transcript; why says why it could not be.
func evalOne(o EvalOptions, f evalFile) (evalResult, string) {
	var res evalResult
	info, err := os.Stat(f.path)
	if err != nil {
		return res, firstLine(err)
	}
	if info.Size() > maxEvalBytes {
		return res, "larger than 1 GiB"
	}
	data, err := os.ReadFile(f.path)
	if err != nil {
		return res, firstLine(err)
	}
	root := f.root
	if root == "" {
		root = sessionCwd(f.path)
	}
	starts := lineStarts(data)
	nlines := len(starts) - 1
	line := func(i int) []byte { return data[starts[i-1]:starts[i]] }
	splits := f.splits
	if splits == nil {
		splits = findSplits(f.host, root, nlines, line)
	}
	slices.SortFunc(splits, func(a, b evalSplit) int { return a.Line - b.Line })
	d, ok := counter(f.host, root)
	if !ok {
		return res, "its agent's decoder keeps no counts"
	}
	var committed []string
	commits, next := 0, 0
	for i := 1; i <= nlines && next < len(splits); i++ {
		feed(d, line(i))
		if p := d.Progress(); p.Commits > commits {
			commits, committed = p.Commits, d.Facts().Files
		}
		for next < len(splits) && splits[next].Line == i {
			s := splits[next]
			next++
			before := d.Facts()
			after, _ := counter(f.host, root)
			for j := i + 1; j <= nlines; j++ {
				feed(after, line(j))
			}
			t := newTruth(before, after.Facts(), committed, d.Progress().LastCheck)
			source := "startup"
			if s.Compaction {
				source = "compact"
			}
			text := replayContext(o, f.host, before, source)
			sc := t.score(text)
			res.Continuity.add(sc)
			if s.SummaryLine > 0 && s.SummaryLine <= nlines {
				sd := f.host.NewDecoder(root, nil)
				feed(sd, line(s.SummaryLine))
				if sum := strings.TrimSpace(sd.Facts().CompactSummary); sum != "" {
					if res.Summary == nil {
						res.Summary, res.AtSummaries = &EvalScores{}, &EvalScores{}
					}
					res.Summary.add(t.score(sum))
					res.AtSummaries.add(sc)
				}
			}
		}
	}
	return res, ""
}

// findSplits are a transcript's split points: each compaction the agent
// recorded (the history before the record that holds its summary), else
// the prompts nearest half and three quarters of the session's prompts,
// where the agent made at least minCalls tool calls before and after.
func findSplits(h agent.Host, root string, nlines int, line func(int) []byte) []evalSplit {
	const minCalls = 5
	d, ok := counter(h, root)
	if !ok {
		return nil
	}
	var comps []evalSplit
	var turns, callsAt []int // the line each prompt is on, and the calls before it
	last := d.Progress()
	for i := 1; i <= nlines; i++ {
		feed(d, line(i))
		p := d.Progress()
		if p.Compactions > last.Compactions && i > 1 {
			comps = append(comps, evalSplit{Line: i - 1, SummaryLine: i, Compaction: true})
		}
		if p.Turns > last.Turns {
			turns, callsAt = append(turns, i), append(callsAt, last.Calls)
		}
		last = p
	}
	if len(comps) > 0 {
		return comps
	}
	var out []evalSplit
	for _, frac := range []float64{0.5, 0.75} {
		k := int(math.Round(frac * float64(len(turns))))
		if k < 1 || k >= len(turns) {
			continue
		}
		before := callsAt[k]
		if before < minCalls || last.Calls-before < minCalls {
			continue
		}
		s := evalSplit{Line: turns[k] - 1}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// replayContext is what a session would be given at a split: the handoff
// the session's hook would write from its facts (no git: the replay has
// no work tree), the ledger of a new stream that learned the session's
// files, rendered as a start would render them.
func replayContext(o EvalOptions, h agent.Host, f *handoff.Facts, source string) string {
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	const name = "eval"
	lpath := "thoughts/ledgers/CONTINUITY_" + name + ".md"
	src := ledger.New(name, "", now)
	var inside []string
	for _, p := range f.Files {
		if !filepath.IsAbs(p) && !strings.HasPrefix(p, "../") && !strings.HasPrefix(p, "/") {
			inside = append(inside, p)
		}
	}
	if len(inside) > 0 {
		if out, err := ledger.Apply(src, now, ledger.Append(ledger.KeyFiles, inside...)); err == nil {
			src = out
		}
	}
	l, err := ledger.Parse(lpath, src)
	if err != nil {
		l = nil
	}
	event := "session-end"
	if source == "compact" {
		event = "pre-compact"
	}
	meta := handoff.Meta{Stream: name, Created: now, Event: event, Agent: h.Name(), Model: f.Model, Tokens: f.Tokens, Version: "eval"}
	hf := handoff.Build(meta, f, l)
	hf.LedgerPath = lpath
	body, err := handoff.Render(hf, "")
	var parsed *handoff.Parsed
	if err == nil {
		parsed, _ = handoff.Parse(body)
	}
	cfg := o.Config
	if cfg.Sources == nil {
		cfg = workspace.DefaultConfig()
	}
	lim := h.Limits()
	in := inject.Input{Source: source, Name: name, LedgerPath: lpath, Ledger: l, Handoff: parsed,
		HandoffPath: "thoughts/handoffs/" + name + "/handoff.md", Now: now,
		Budget: budget(cfg.Budget, lim), Unit: lim.InjectUnit, Policy: cfg.Sources[source], Host: h.Name()}
	if l != nil {
		in.Notes = inject.LedgerNotes(l)
	}
	return inject.Render(in)
}

// evalTruth is what a split's history and what came after it say a
// context should name.
type evalTruth struct {
	edited, readOnly, back []string // before the split; gone back to after it
	candidates             []string // every file the session touched: base names are told apart among them
	uncommitted            []string
	failing                []handoff.Check
	last                   *handoff.Check
	task                   string
	plan                   []string
}

// newTruth is the truth at a split: before, the facts of the history;
// after, of what came next; committed, the files edited up to the last
// commit before the split; lastCheck, the check run last.
func newTruth(before, after *handoff.Facts, committed []string, lastCheck string) evalTruth {
	var t evalTruth
	inside := func(p string) bool {
		return !filepath.IsAbs(p) && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "../")
	}
	for _, p := range before.Files {
		if inside(p) {
			t.edited = append(t.edited, p)
		}
	}
	for _, p := range before.Read {
		if !slices.Contains(t.edited, p) {
			t.readOnly = append(t.readOnly, p)
		}
	}
	for _, p := range append(slices.Clone(after.Files), after.Read...) {
		if (slices.Contains(t.edited, p) || slices.Contains(t.readOnly, p)) && !slices.Contains(t.back, p) {
			t.back = append(t.back, p)
		}
	}
	t.candidates = slices.Concat(t.edited, t.readOnly, after.Files, after.Read)
	for _, p := range t.edited {
		if !slices.Contains(committed, p) {
			t.uncommitted = append(t.uncommitted, p)
		}
	}
	for i, c := range before.Checks {
		if c.Outcome == handoff.Failed {
			t.failing = append(t.failing, c)
		}
		if c.Command == lastCheck && (c.Outcome == handoff.Passed || c.Outcome == handoff.Failed) {
			t.last = &before.Checks[i]
		}
	}
	for i := len(before.Prompts) - 1; i >= 0; i-- {
		if len(significant(before.Prompts[i])) >= 3 {
			t.task = before.Prompts[i]
			break
		}
	}
	for _, task := range before.Plan {
		if task.Status != "completed" && task.Status != "deleted" && len(significant(task.Subject)) > 0 {
			t.plan = append(t.plan, task.Subject)
		}
	}
	return t
}

// score is how much of the truth text names.
func (t evalTruth) score(text string) EvalScores {
	s := EvalScores{Splits: 1, tokensTotal: (len(text) + 3) / 4}
	s.Tokens = s.tokensTotal
	lower := strings.ToLower(text)
	for _, p := range t.back {
		r := Ratio{Of: 1}
		if t.names(text, p) {
			r.Named = 1
		}
		s.Files.add(r)
		if slices.Contains(t.edited, p) {
			s.Edited.add(r)
		} else {
			s.ReadOnly.add(r)
		}
	}
	for _, p := range t.uncommitted {
		r := Ratio{Of: 1}
		if t.names(text, p) {
			r.Named = 1
		}
		s.Uncommitted.add(r)
	}
	for _, c := range t.failing {
		r := Ratio{Of: 1}
		if statesCheck(lower, c, handoff.Failed) {
			r.Named = 1
		}
		s.OpenErrors.add(r)
	}
	if t.last != nil {
		r := Ratio{Of: 1}
		if statesCheck(lower, *t.last, t.last.Outcome) {
			r.Named = 1
		}
		s.LastCheck.add(r)
	}
	if t.task != "" {
		r := Ratio{Of: 1}
		if covers(lower, t.task) {
			r.Named = 1
		}
		s.Task.add(r)
	}
	for _, item := range t.plan {
		r := Ratio{Of: 1}
		if covers(lower, item) {
			r.Named = 1
		}
		s.Plan.add(r)
	}
	return s
}

// names reports whether text names file p: its path relative to the
// repository (or any path ending in it), or its base name alone when no
// other file of the session has that base name.
func (t evalTruth) names(text, p string) bool {
	if strings.Contains(text, p) || strings.Contains(text, strings.ReplaceAll(p, "/", `\`)) {
		return true
	}
	base := path.Base(p)
	if base == p {
		return false
	}
	for _, q := range t.candidates {
		if q != p && path.Base(q) == base {
			return false
		}
	}
	return hasWord(text, base)
}

// hasWord reports whether w occurs in text between characters that cannot
// be part of a file name.
func hasWord(text, w string) bool {
	isName := func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._-/\\", r)
	}
	for i := 0; ; {
		j := strings.Index(text[i:], w)
		if j < 0 {
			return false
		}
		at := i + j
		end := at + len(w)
		before, after := ' ', ' '
		if at > 0 {
			before = []rune(text[:at])[len([]rune(text[:at]))-1]
		}
		if end < len(text) {
			after = []rune(text[end:])[0]
		}
		if (!isName(before) || before == '/' || before == '\\') && (!isName(after) || after == '.' && end+1 >= len(text)) {
			return true
		}
		i = at + 1
	}
}

// The words that say a check's outcome.
var outcomeWords = map[string][]string{
	handoff.Passed: {"pass", "succeed", "success", "green", " ok", "✓", "✅"},
	handoff.Failed: {"fail", "error", "broken", "red", "✗", "❌"},
}

// statesCheck reports whether a line of lower (the context, lower case)
// names check c (its command, or the program words it opens with) and a
// word of outcome.
func statesCheck(lower string, c handoff.Check, outcome string) bool {
	cmd := strings.ToLower(transcript.CommandLine(c.Command))
	words := strings.Fields(cmd)
	short := strings.Join(words[:min(2, len(words))], " ")
	for _, line := range strings.Split(lower, "\n") {
		named := strings.Contains(line, cmd) || short != "" && strings.Contains(line, short)
		if !named && outcome == handoff.Failed {
			for _, n := range c.Failing {
				if n != "" && strings.Contains(line, strings.ToLower(n)) {
					named = true
				}
			}
		}
		if !named {
			continue
		}
		for _, w := range outcomeWords[outcome] {
			if strings.Contains(line, w) {
				return true
			}
		}
	}
	return false
}

// significant are the words of s that carry its meaning: four letters or
// more, lower case, each once.
func significant(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) >= 4 && !slices.Contains(out, w) {
			out = append(out, w)
		}
		if len(out) == 40 {
			break
		}
	}
	return out
}

// covers reports whether lower holds at least half the significant words
// of s (of its first 40).
func covers(lower, s string) bool {
	words := significant(s)
	if len(words) == 0 {
		return false
	}
	n := 0
	for _, w := range words {
		if strings.Contains(lower, w) {
			n++
		}
	}
	return 2*n >= len(words)
}
