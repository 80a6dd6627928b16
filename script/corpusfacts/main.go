// Command corpusfacts reads a folder of real transcripts, one folder per
// agent (claude-code, codex, copilot, gemini, droid), with continuity's
// decoders, and prints per agent what the facts hold: transcripts read as
// empty, sessions with a task (a last prompt), checks and their outcomes,
// errors still open, commands kept and left out as look-only. With -each
// it prints one JSON line per transcript instead. It reports and never
// asserts: it is how a change to the decoders is measured on real
// transcripts before and after.
//
//	go run ./script/corpusfacts /tmp/corpus
//	go run ./script/corpusfacts -each /tmp/corpus > facts.jsonl
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/agent/claude"
	"github.com/continuity-md/continuity/internal/agent/codex"
	"github.com/continuity-md/continuity/internal/agent/copilot"
	"github.com/continuity-md/continuity/internal/agent/droid"
	"github.com/continuity-md/continuity/internal/agent/gemini"
	"github.com/continuity-md/continuity/internal/transcript"
)

var folders = map[string]agent.Host{
	"claude-code": claude.Host{}, "codex": codex.Host{}, "copilot": copilot.Host{},
	"gemini": gemini.Host{}, "droid": droid.Host{},
}

type row struct {
	Agent, File string
	Facts       *handoff.Facts
}

type tally struct {
	Transcripts, Empty, Task, Checks, Passed, Failed, Unknown, Running, Errors, Open, Commands, LookOnly, Tokens int
}

func main() {
	each := flag.Bool("each", false, "one JSON line per transcript")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: corpusfacts [-each] DIR")
		os.Exit(2)
	}
	dir := flag.Arg(0)
	names := make([]string, 0, len(folders))
	for n := range folders {
		names = append(names, n)
	}
	sort.Strings(names)
	enc := json.NewEncoder(os.Stdout)
	fmt.Fprintln(os.Stderr, "agent        transcripts empty task checks passed failed unknown running errors open commands look-only tokens")
	for _, name := range names {
		files, _ := filepath.Glob(filepath.Join(dir, name, "*"))
		var t tally
		for _, f := range files {
			facts, err := transcript.ReadFile(f, folders[name].NewDecoder("", nil))
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", f, err)
				continue
			}
			t.Transcripts++
			if *each {
				_ = enc.Encode(row{name, filepath.Base(f), facts})
			}
			if len(facts.Prompts) == 0 && len(facts.Commands) == 0 && len(facts.Files) == 0 && facts.LastAssistant == "" {
				t.Empty++
			}
			if len(facts.Prompts) > 0 {
				t.Task++
			}
			if facts.Tokens > 0 {
				t.Tokens++
			}
			for _, c := range facts.Checks {
				t.Checks++
				switch c.Outcome {
				case handoff.Passed:
					t.Passed++
				case handoff.Failed:
					t.Failed++
				case handoff.Running:
					t.Running++
				default:
					t.Unknown++
				}
			}
			t.Errors += len(facts.Errors)
			for _, e := range facts.Errors {
				if !strings.HasSuffix(e, "(resolved: passed later)") {
					t.Open++
				}
			}
			t.Commands += len(facts.Commands)
			t.LookOnly += facts.LookOnly
		}
		fmt.Fprintf(os.Stderr, "%-12s %11d %5d %4d %6d %6d %6d %7d %7d %6d %4d %8d %9d %6d\n", name, t.Transcripts, t.Empty, t.Task,
			t.Checks, t.Passed, t.Failed, t.Unknown, t.Running, t.Errors, t.Open, t.Commands, t.LookOnly, t.Tokens)
	}
}
