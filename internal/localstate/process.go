// Package proc identifies processes across time: a PID with the time its
// process started, so that a PID the system gave again to another process
// is never taken for the one recorded. The hooks use it to record the
// client (the coding agent) a session runs in, and a later session uses it
// to tell whether that client is gone.
package localstate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Process is one process: its PID and its start time, in a unit of the
// platform's own (compared only for equality, on the same machine), and
// where the PID means something (see Here).
type Process struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
	// Where is the PID's namespace as Here says it when the identity was
	// taken: a PID from another machine, boot or container is not in this
	// one's process table, and must not read as gone there. Empty in an
	// identity recorded before it was kept: taken as here.
	Where string `json:"where,omitempty"`
}

// OurProcess reports whether id's PID is one of this process's namespace: it was
// recorded here, or before Where was kept. An identity from elsewhere, or
// any with a Where when this process cannot say its own, is not ours.
func OurProcess(id Process) bool {
	if id.Where == "" {
		return true
	}
	h := thisHost()
	return h != "" && h == id.Where
}

// thisHost says where this process's PIDs mean something, "" when it cannot
// be known: on Linux the boot and the PID namespace, on macOS the boot
// time and the host's name. Read once.
func thisHost() string {
	hereOnce.Do(func() { here = where() })
	return here
}

var (
	hereOnce sync.Once
	here     string
)

// Known reports whether id names a process.
func (id Process) Known() bool { return id.PID > 0 && id.Start != 0 }

// String is the identity for messages.
func (id Process) String() string { return fmt.Sprintf("pid %d (start %d)", id.PID, id.Start) }

// ErrNoProcessIdentity reports a platform where processes cannot be identified.
var ErrNoProcessIdentity = errors.New("process identity not supported on this platform")

// ErrNoProcess reports that no process has the PID.
var ErrNoProcess = errors.New("no such process")

// info is what the platform says of one process.
type info struct {
	id     Process
	parent int
	name   string // the command's name, as the kernel keeps it (maybe cut)
	gone   bool   // exited, not yet reaped (a zombie)
}

// ProcessOf is the identity of the process pid (ErrNotFound when there is none).
func ProcessOf(pid int) (Process, error) {
	in, err := lookup(pid)
	if err != nil {
		return Process{}, err
	}
	if in.gone {
		return Process{}, ErrNoProcess
	}
	in.id.Where = thisHost()
	return in.id, nil
}

// processAlive reports whether the process id names still runs: a process with
// its PID exists and started when it did. An unknown identity, one from
// another namespace (not Ours), or a platform that cannot tell, reads as
// not alive: callers check Supported and Known first.
func processAlive(id Process) bool {
	if !id.Known() || !OurProcess(id) {
		return false
	}
	now, err := ProcessOf(id.PID)
	return err == nil && now.PID == id.PID && now.Start == id.Start
}

// ProcessGone reports whether the process id names has certainly stopped: no
// process has its PID, or the one that has it started at another time (the
// PID was given again). A platform that cannot tell, a process it may not
// look at, or one whose PID is of another machine, boot or container (not
// Ours), is not gone.
func ProcessGone(id Process) bool {
	if !id.Known() || !OurProcess(id) {
		return false
	}
	now, err := ProcessOf(id.PID)
	if errors.Is(err, ErrNoProcess) {
		return true
	}
	return err == nil && now.Start != id.Start
}

// passThrough are the names of the shells hosts run hook commands through,
// and of the programs a hook command may be wrapped in: none of them is
// the client.
var passThrough = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "fish": true,
	"ksh": true, "mksh": true, "ash": true, "busybox": true, "tcsh": true, "csh": true,
	"env": true, "timeout": true, "nice": true, "nohup": true, "stdbuf": true, "time": true, "setsid": true,
	"ionice": true, "chrt": true, "taskset": true, "flock": true, "sudo": true, "doas": true, "xargs": true,
	// Windows (names without ".exe"): Copilot runs hooks in PowerShell.
	"cmd": true, "powershell": true, "pwsh": true}

// minAge is how long before the hook the client must have started: a
// wrapper this package does not know by name (npx, a script) starts just
// before the hook and ends with it, and must never be taken for the
// client, or a running session would look dead. A client that started its
// hook sooner is passed over for an ancestor (which outlives it: a session
// is then never thought over, the safe side), and the next hook, later,
// finds it.
var minAge = time.Second

// maxDepth bounds the walk up the process tree.
const maxDepth = 16

// ClientProcess is the process this one runs for: its first ancestor that is not
// a shell or a known wrapper (a host runs a hook through `sh -c`, which
// may or may not exec the command, and a plugin may add a script of its
// own) and that started at least a second before this process, or, sooner,
// one whose command name is among names (the client's own, as its host
// knows it: a hook at its start, when the client is younger than a
// second, finds it rather than the terminal the client runs in, which
// would outlive a killed session). named says it was found by its name: a
// process found by its age alone may still be a slow wrapper (one that
// took more than a second to start the hook), which the caller confirms
// by seeing it again.
func ClientProcess(names ...string) (id Process, named bool, err error) {
	self, err := lookup(os.Getpid())
	if err != nil {
		return Process{}, false, err
	}
	id, named, err = clientFrom(self, lookup, names...)
	if err == nil {
		id.Where = thisHost()
	}
	return id, named, err
}

func clientFrom(self info, look func(int) (info, error), names ...string) (Process, bool, error) {
	pid := self.parent
	for range maxDepth {
		if pid <= 1 {
			return Process{}, false, errors.New("no client process: the hook's ancestors are shells up to init")
		}
		in, err := look(pid)
		if err != nil {
			return Process{}, false, fmt.Errorf("process %d: %w", pid, err)
		}
		if in.gone {
			return Process{}, false, fmt.Errorf("process %d: %w", pid, ErrNoProcess)
		}
		name := commandName(in.name)
		if slices.Contains(names, name) {
			return in.id, true, nil
		}
		if young := self.id.Start < in.id.Start+uint64(minAge/tick); !passThrough[name] && !young {
			return in.id, false, nil
		}
		pid = in.parent
	}
	return Process{}, false, errors.New("no client process within 16 ancestors")
}

// commandName is a command name as the table knows it: a login shell's
// leading "-" and a path dropped.
func commandName(name string) string {
	return filepath.Base(strings.TrimPrefix(name, "-"))
}
