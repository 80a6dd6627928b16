//go:build linux

package localstate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"syscall"
	"time"
)

// Supported is true where processes can be identified.
const ProcessesSupported = true

// tick is the unit of a start time: the kernel's clock tick (USER_HZ,
// 100 a second on every Linux /proc reports to).
const tick = 10 * time.Millisecond

// lookup reads /proc/PID/stat: the name between the first "(" and the
// last ")" (a name may hold either), then the fields after it: state (3),
// parent (4), start time in clock ticks since boot (22).
func lookup(pid int) (info, error) {
	b, err := readProc("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, fs.ErrNotExist) {
		return info{}, ErrNoProcess
	}
	if err != nil {
		return info{}, err
	}
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return info{}, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := bytes.Fields(b[end+1:])
	if len(f) < 20 {
		return info{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	parent, err1 := strconv.Atoi(string(f[1]))
	start, err2 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil {
		return info{}, fmt.Errorf("/proc/%d/stat: unreadable fields", pid)
	}
	state := string(f[0])
	return info{id: Process{PID: pid, Start: start}, parent: parent, name: string(b[open+1 : end]),
		gone: state == "Z" || state == "X" || state == "x"}, nil
}

// readProc reads a small /proc file (at most 4 KiB) in one read: a hook
// reads several of them walking its ancestors, and os.ReadFile's stat,
// second read and poller registration cost more than the reading.
func readProc(path string) ([]byte, error) {
	fd, err := ignoringEINTR(func() (int, error) { return syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0) })
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	buf := make([]byte, 4096)
	n, err := ignoringEINTR(func() (int, error) { return syscall.Read(fd, buf) })
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return buf[:n], nil
}

// ignoringEINTR calls fn again while a signal interrupts it.
func ignoringEINTR(fn func() (int, error)) (int, error) {
	for {
		n, err := fn()
		if err != syscall.EINTR {
			return n, err
		}
	}
}

// where is the boot (its random id) and the PID namespace of this process
// ("" when either cannot be read): a PID names the same process only
// within both.
func where() string {
	boot, err := readProc("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil || ns == "" {
		return ""
	}
	id := string(bytes.TrimSpace(boot))
	if id == "" {
		return ""
	}
	return "boot " + id + " " + ns
}
