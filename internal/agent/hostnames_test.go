package agent_test

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/continuity-md/continuity/internal/agent/hosts"
)

// hostName matches what only a host package may say in code: the hosts'
// event names, environment variables, paths, payload and output keys, and
// their titles used as data (a title goes through Host.Title or hosts.TitleOf).
var hostName = regexp.MustCompile(`\b(SessionStart|PreCompact|PostCompact|SessionEnd|UserPromptSubmit|PreToolUse|PostToolUse|SubagentStop|PreCompress|BeforeAgent|AfterAgent|BeforeModel|AfterModel|BeforeTool|AfterTool)\b` +
	`|\b(sessionStart|userPromptSubmitted|postToolUse|preCompact|agentStop|sessionEnd)\b` +
	`|^"Stop"$|\bCLAUDE_\w*|\bCODEX_\w*|\bGEMINI_\w*|\bCOPILOT_\w*|\bFACTORY_\w*|\bDROID_\w*|\bQWEN_\w*|(^|[^\w.])\.(claude|codex|gemini|copilot|factory|qwen)\b` +
	`|\b(transcript_path|hook_event_name|hookEventName|hookSpecificOutput|additionalContext|compact_summary)\b` +
	`|\bClaude Code\b|\bCodex\b|\bGemini\b|\bCopilot\b|\bDroid\b|\bQwen\b`)

// allowed are the places outside a host package that must keep a host's
// name, each with why. The key is "path: the name found".
var allowed = map[string]string{
	"cmd/continuity/importcmd.go: Codex":        "import's help names a ledger format by where it comes from (a root CONTINUITY.md as Codex users keep it), as it names Continuous-Claude's",
	"handoff/api.go: compact_summary":           "handoff.Facts's own JSON key in local checkpoint state, spelt like Claude Code's payload key; renaming it would orphan stored checkpoints",
	"internal/workspace/config.go: Claude Code": "the budget's bound is Claude Code's measured 10,000-character cliff; the configuration cannot ask the host",
	"internal/install/scan.go: Claude Code":     "the strict-JSON error of the shared hooks-file editor; its golden (testdata/err-comment.txtar) fixes the wording",
}

// skipped are trees whose files are not checked, with why; each host's own
// package is added from the host list.
var skipped = map[string]string{
	"internal/e2e": "runs the real clients end to end: it must speak to each in its words",
	"script/bench": "a developer's benchmark (owned by issue 15) that plays Claude Code's payloads; not in the binary",
}

// TestNoHostNameOutsideItsPackage: no Go file outside a host package names a
// host's events, variables, paths, payload keys or title in code (string
// literals and identifiers; comments may explain). Test files are exempt:
// they feed recorded payloads.
func TestNoHostNameOutsideItsPackage(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	for _, h := range hosts.All() {
		skipped["internal/agent/"+h.Name()] = h.Title() + "'s own package"
	}
	seen := map[string]bool{}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() {
			if _, skip := skipped[rel]; skip || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		fset := token.NewFileSet()
		var s scanner.Scanner
		s.Init(fset.AddFile(rel, -1, len(src)), src, nil, 0)
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok != token.STRING && tok != token.IDENT {
				continue
			}
			for _, m := range hostName.FindAllString(lit, -1) {
				m = strings.Trim(m, `"`)
				if m[0] != '.' && !unicode.IsLetter(rune(m[0])) {
					m = m[1:] // the character before a path
				}
				key := rel + ": " + m
				if _, ok := allowed[key]; ok {
					seen[key] = true
					continue
				}
				t.Errorf("%s: %q names a host outside its package (move it to internal/agent/<name>, or allow it here with why)", fset.Position(pos), m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d files checked: the walk missed the module", checked)
	}
	for k := range allowed {
		if !seen[k] {
			t.Errorf("allowed %q no longer occurs: take it off the list", k)
		}
	}
}

// TestHostNamePattern: the pattern finds each kind of name, and not the
// neutral words around them.
func TestHostNamePattern(t *testing.T) {
	for _, s := range []string{`"SessionStart"`, `"Stop"`, `"CLAUDE_ENV_FILE"`, `"~/.codex/hooks.json"`, `".gemini"`,
		`"transcript_path"`, `"typed in Claude Code"`, `"Codex"`, `PreCompress`, `"hook_event_name"`, "`json:\"hookEventName\"`", `"COPILOT_HOME"`, `"sessionStart"`, `".factory"`, `"Droid"`, `"QWEN_PROJECT_DIR"`, `".qwen"`, `"Qwen Code"`} {
		if !hostName.MatchString(s) {
			t.Errorf("%s not caught", s)
		}
	}
	for _, s := range []string{`"stop"`, `"Stop the hook"`, `"session start"`, `"github.com/x/internal/agent/codex"`, `codex`, `"a.claude"`, `"CONTINUITY_LEDGER"`} {
		if hostName.MatchString(s) {
			t.Errorf("%s caught, but names no host", s)
		}
	}
}
