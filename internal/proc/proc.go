// Package proc identifies processes across time: a PID with the time its
// process started, so that a PID the system gave again to another process
// is never taken for the one recorded. The hooks use it to record the
// client (the coding agent) a session runs in, and a later session uses it
// to tell whether that client is gone.
package proc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Identity is one process: its PID and its start time, in a unit of the
// platform's own (compared only for equality, on the same machine).
type Identity struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
}

// Known reports whether id names a process.
func (id Identity) Known() bool { return id.PID > 0 && id.Start != 0 }

// String is the identity for messages.
func (id Identity) String() string { return fmt.Sprintf("pid %d (start %d)", id.PID, id.Start) }

// ErrUnsupported reports a platform where processes cannot be identified.
var ErrUnsupported = errors.New("process identity not supported on this platform")

// ErrNotFound reports that no process has the PID.
var ErrNotFound = errors.New("no such process")

// info is what the platform says of one process.
type info struct {
	id     Identity
	parent int
	name   string // the command's name, as the kernel keeps it (maybe cut)
	gone   bool   // exited, not yet reaped (a zombie)
}

// Of is the identity of the process pid (ErrNotFound when there is none).
func Of(pid int) (Identity, error) {
	in, err := lookup(pid)
	if err != nil {
		return Identity{}, err
	}
	if in.gone {
		return Identity{}, ErrNotFound
	}
	return in.id, nil
}

// Alive reports whether the process id names still runs: a process with
// its PID exists and started when it did. An unknown identity, or a
// platform that cannot tell, reads as not alive: callers check Supported
// and Known first.
func Alive(id Identity) bool {
	if !id.Known() {
		return false
	}
	now, err := Of(id.PID)
	return err == nil && now == id
}

// Gone reports whether the process id names has certainly stopped: no
// process has its PID, or the one that has it started at another time (the
// PID was given again). A platform that cannot tell, or a process it may
// not look at, is not gone.
func Gone(id Identity) bool {
	if !id.Known() {
		return false
	}
	now, err := Of(id.PID)
	if errors.Is(err, ErrNotFound) {
		return true
	}
	return err == nil && now.Start != id.Start
}

// shells are the names of the shells hosts run hook commands through.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "fish": true,
	"ksh": true, "mksh": true, "ash": true, "busybox": true, "tcsh": true, "csh": true}

// maxDepth bounds the walk up the process tree.
const maxDepth = 16

// Client is the process this one runs for: its first ancestor that is not
// a shell (a host runs a hook through `sh -c`, which may or may not exec
// the command, and a plugin may add a script of its own).
func Client() (Identity, error) {
	return clientFrom(os.Getppid(), lookup)
}

func clientFrom(pid int, look func(int) (info, error)) (Identity, error) {
	for range maxDepth {
		if pid <= 1 {
			return Identity{}, errors.New("no client process: the hook's ancestors are shells up to init")
		}
		in, err := look(pid)
		if err != nil {
			return Identity{}, fmt.Errorf("process %d: %w", pid, err)
		}
		if in.gone {
			return Identity{}, fmt.Errorf("process %d: %w", pid, ErrNotFound)
		}
		if !shells[shellName(in.name)] {
			return in.id, nil
		}
		pid = in.parent
	}
	return Identity{}, errors.New("no client process within 16 ancestors")
}

// shellName is a command name as a shell's: a login shell's leading "-"
// and a path dropped.
func shellName(name string) string {
	return filepath.Base(strings.TrimPrefix(name, "-"))
}
