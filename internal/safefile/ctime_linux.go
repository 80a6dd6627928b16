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
