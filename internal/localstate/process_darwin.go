//go:build darwin

package localstate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Supported is true where processes can be identified.
const ProcessesSupported = true

// tick is the unit of a start time: a microsecond.
const tick = time.Microsecond

// lookup asks the kernel (sysctl kern.proc.pid) for the process's start
// time (microseconds since the epoch), parent and name.
func lookup(pid int) (info, error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if errors.Is(err, unix.EIO) || errors.Is(err, unix.ESRCH) {
		return info{}, ErrNoProcess // the kernel answers an unknown PID with nothing
	}
	if err != nil {
		return info{}, err
	}
	if int(k.Proc.P_pid) != pid {
		return info{}, ErrNoProcess
	}
	st := k.Proc.P_starttime
	name := k.Proc.P_comm[:]
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	return info{id: Process{PID: pid, Start: uint64(st.Sec)*1_000_000 + uint64(st.Usec)}, parent: int(k.Eproc.Ppid),
		name: string(name), gone: k.Proc.P_stat == 5}, nil // SZOMB
}

// where is the boot (its time) and the machine (its host name), "" when
// either cannot be read: a PID names the same process only within both.
func where() string {
	tv, err := unix.SysctlTimeval("kern.boottime")
	if err != nil {
		return ""
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		return ""
	}
	return fmt.Sprintf("boot %d.%06d host %s", tv.Sec, tv.Usec, host)
}
