package localstate

import (
	"errors"
	"os"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Supported is true where processes can be identified.
const ProcessesSupported = true

// tick is the unit of a start time: a FILETIME's 100 ns.
const tick = 100 * time.Nanosecond

// lookup asks Windows for the process's creation time (GetProcessTimes: a
// FILETIME, absolute, so a PID given again after a reboot still differs),
// whether it has exited (a handle open elsewhere keeps an exited
// process's PID taken), and, from a process snapshot, its parent and its
// image name (".exe" dropped, so that the shells and wrappers passed over
// by Client are known by the names they have on Unix).
func lookup(pid int) (info, error) {
	if pid <= 0 {
		return info{}, ErrNoProcess
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
		return info{}, ErrNoProcess // no process has the PID
	}
	if err != nil {
		return info{}, err
	}
	defer windows.CloseHandle(h)
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return info{}, err
	}
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return info{}, err
	}
	in := info{id: Process{PID: pid, Start: uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime)},
		gone: code != uint32(windows.STATUS_PENDING)} // STILL_ACTIVE
	in.parent, in.name, _ = fromSnapshot(uint32(pid))
	return in, nil
}

// fromSnapshot finds pid in a snapshot of the processes: its parent's PID
// and its image name without ".exe"; ok is false when it is not there.
func fromSnapshot(pid uint32) (parent int, name string, ok bool) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return 0, "", false
	}
	defer windows.CloseHandle(snap)
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		if e.ProcessID == pid {
			name = windows.UTF16ToString(e.ExeFile[:])
			if strings.HasSuffix(strings.ToLower(name), ".exe") {
				name = name[:len(name)-len(".exe")]
			}
			return int(e.ParentProcessID), strings.ToLower(name), true
		}
	}
	return 0, "", false
}

// where is the machine (its host name), "" when it cannot be read. Start
// times are absolute, so a boot needs no naming: a PID of another boot
// has another start.
func where() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		return ""
	}
	return "windows host " + host
}
