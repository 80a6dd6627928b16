package safefile

import (
	"io/fs"
	"syscall"
)

// changeTime is the inode change time, which (unlike the modification time)
// no program can set back.
func changeTime(fi fs.FileInfo) syscall.Timespec {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim
	}
	return syscall.Timespec{}
}

// links is the number of hard links to the file fi describes (1 when not
// known).
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
