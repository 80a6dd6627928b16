package inject

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/continuity-md/continuity/internal/agent/hosts"
)

// The wording of the context continuity injects when a session starts (and
// of the short refresh after a compaction the host reports before a
// prompt), and of the line shown to the person. The renderer cuts the
// ledger's blocks (goal, now, next, the latest handoff, decisions, …) to
// the host's budget; these pieces are always kept whole.
//
// It is Go rather than a template: every session start renders it, and
// parsing and executing a text/template cost a start more than the rest of
// its rendering. The golden tests pin every piece byte for byte.

// sayHeader is the first line.
func sayHeader(name, ledgerPath, source string, refresh bool, updated string) string {
	s := "continuity: the ledger of work stream " + strconv.Quote(name) + " (" + Word(ledgerPath) + "), restored"
	if refresh {
		s += " after the context was compacted"
	} else {
		s += " at session start (" + source + ")"
	}
	if updated != "" {
		s += "; last updated " + Word(updated)
	}
	return s + "."
}

// Word is a value from the repository (a path, a file or folder name, a
// branch, a ledger field such as updated) as it may stand in one of
// continuity's own lines, outside the fence: as it is when it holds only
// characters a path or a time is made of (ASCII letters and digits and
// . _ - / \ : + @ ~ ,), else Go-quoted, so no break, space, invisible or
// look-alike character in it can start a line or read as continuity's
// words.
func Word(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._-/\\:+@~,", c) >= 0) {
			return strconv.Quote(s)
		}
	}
	return s
}

// sayCLI is how the agent keeps the ledger.
func sayCLI() string {
	return "The ledger is kept with the continuity CLI: `continuity now TEXT`, `continuity done TEXT` (also drops it from next), `continuity next TEXT`, `continuity question TEXT`, `continuity decide TEXT --why TEXT`."
}

// sayFiles is where the whole files are: always the last line.
func sayFiles(ledgerPath, handoffPath string) string {
	s := "Full files: " + Word(ledgerPath)
	if handoffPath != "" {
		s += " (ledger), " + Word(handoffPath) + " (latest handoff)"
	}
	return s + "."
}

// sayNoLedger is injected when the project has no ledger yet.
func sayNoLedger() string {
	return "continuity: this repository has no ledger yet; `continuity new NAME --goal TEXT` starts one, and the hooks then keep it and the handoffs current."
}

// sayProblem heads a ledger that could not be parsed, shown as it stands.
func sayProblem(problem string) string {
	s := "The ledger could not be read"
	if problem != "" {
		s += ": " + problem
	}
	return s + ". Its text as it stands:"
}

// sayHandoffTitle is the latest handoff's title; tokens as "153k".
func sayHandoffTitle(stale bool, byline, tokens string) string {
	s := "Latest handoff"
	if stale {
		s += ", stale"
	}
	if byline != "" {
		s += " (" + byline + ")"
	}
	if tokens != "" {
		s += ", handed off at " + tokens + " tokens"
	}
	return s
}

// sayByline is who wrote a handoff, when and where: "pre-compact from
// Codex by Kim, 3 h ago on feature/auth" (agent: a title, only when
// another agent wrote it; when: "3 h ago").
func sayByline(event, agent, author, when, branch string) string {
	s := event
	if agent != "" {
		s += " from " + agent
	}
	if author != "" {
		s += " by " + author
	}
	if when != "" {
		if event != "" || agent != "" || author != "" {
			s += ", "
		}
		s += when
	}
	if branch != "" {
		s += " on " + branch
	}
	return s
}

// sayMessage is the line shown to the person; handoff is the file's name.
func sayMessage(name, now, handoff, ledgerPath, problem string) string {
	if problem != "" {
		return "continuity: ledger " + ledgerPath + " has a problem: " + problem
	}
	s := "continuity: " + name
	if now != "" {
		s += " — now: " + now
	}
	if handoff != "" {
		s += " (handoff " + handoff + ")"
	}
	return s
}

// sayRecovered is an earlier session that ended without a handoff,
// recovered at this start: a line under the first.
func sayRecovered(r Recovery) string {
	s := "The previous session (" + Word(r.Session) + ") ended without a handoff (" + r.Why + ");"
	if r.Path != "" {
		return s + " recovered from its transcript: " + Word(r.Path) + "."
	}
	return s + " its handoff will be recovered from its transcript into " + Word(r.Dir) + " " + r.When + "."
}

// sayRecoveredMessage is the same, appended to the line shown to the person.
func sayRecoveredMessage(r Recovery) string {
	s := "the previous session ended without a handoff;"
	if r.Path != "" {
		return s + " recovered from its transcript: " + r.Path
	}
	return s + " its handoff will be recovered from its transcript into " + r.Dir + " " + r.When
}

// sayNoLedgerMessage is shown to the person when the project has no
// ledger yet.
func sayNoLedgerMessage() string { return "continuity: no ledger yet (continuity new NAME)" }

// sayQuoted is the line that says what the fence holds, and the fence's
// two lines, named by nonce.
func sayQuoted(nonce string) (intro, open, end string) {
	open, end = fenceMark+"quoted "+nonce+"»", fenceMark+"end "+nonce+"»"
	intro = "Between " + open + " and " + end + ": the repository's files, quoted as committed; continuity's own lines are outside."
	return intro, open, end
}

// sayClaimedAuthor follows the author git names for a handoff whose front
// matter claims another (claimed: "" when it names none).
func sayClaimedAuthor(claimed string) string {
	if claimed == "" {
		return " (per git)"
	}
	return " (per git; the file says " + claimed + ")"
}

// sayFrom attributes something written in another worktree.
func sayFrom(where string) string { return "from " + where }

// sayLedgerFrom says that goal, now and next below come from another
// worktree's copy of the ledger, changed there later.
func sayLedgerFrom(where string) string {
	return "Goal, now and next below are from this stream's ledger in " + where + " (changed there after this worktree's copy)."
}

// maxOthers is how many other sessions the injected context names: one or
// two lines, whatever the number at work.
const maxOthers = 2

// othersText says which other sessions are at work on the stream or its
// files, in one line each (at most maxOthers, then how many more).
func othersText(others []Other, now time.Time) string {
	var lines []string
	for i, o := range others {
		if i == maxOthers {
			lines[len(lines)-1] += fmt.Sprintf(" (and %d more: `continuity status`)", len(others)-maxOthers)
			break
		}
		s := "Also at work: " + hosts.TitleOf(o.Agent) + " in " + o.Worktree
		if o.Branch != "" {
			s += " (branch " + Word(o.Branch) + ")"
		}
		if o.Stream {
			s += " has worked on this stream"
		} else {
			s += " has been at work"
		}
		if !o.Since.IsZero() && !now.IsZero() {
			s += " for " + Age(now.Sub(o.Since))
		}
		if len(o.Files) > 0 {
			fs := make([]string, len(o.Files))
			for i, f := range o.Files {
				fs[i] = Word(f)
			}
			if len(fs) > 3 {
				fs = append(fs[:3:3], fmt.Sprintf("%d more", len(o.Files)-3))
			}
			s += "; it touched " + strings.Join(fs, ", ")
		}
		lines = append(lines, s+".")
	}
	return strings.Join(lines, "\n")
}

// sayLeftOut names the blocks left out for room.
func sayLeftOut(blocks []string) string {
	return "Left out for room (in the files below): " + strings.Join(blocks, ", ") + "."
}

// sayReadTitle heads the working set: the files the session read and did
// not change.
func sayReadTitle() string { return "Files read (not changed), most used first" }

// sayEndedTitle heads the lines of the other sessions that ended since
// the stream was last given to a model.
func sayEndedTitle() string { return "Other sessions since this stream was last given to a model" }
