package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// errorText is err's message for a person: where a file operation failed
// on one of the writer's temporary files (".CONTINUITY_x.md123456", in a
// directory of continuity's own), the message says what the operation was
// for and why it failed ("write thoughts/ledgers/CONTINUITY_x.md: no space
// left on device"), never the temporary file's path.
func errorText(err error) string {
	prefix := ""
	for e := err; e != nil; {
		switch pe := e.(type) {
		case *fs.PathError:
			if isTempPath(pe.Path) {
				return prefix + pe.Err.Error()
			}
		case *os.LinkError:
			if isTempPath(pe.Old) || isTempPath(pe.New) {
				return prefix + pe.Err.Error()
			}
		}
		next := errors.Unwrap(e)
		if next == nil {
			break
		}
		msg, inner := e.Error(), next.Error()
		if !strings.HasSuffix(msg, inner) {
			break // a wrapper that rewords its cause: its text stands
		}
		prefix += msg[:len(msg)-len(inner)]
		e = next
	}
	return err.Error()
}

// isTempPath reports whether path is a temporary file of the atomic
// writer: a hidden name with a random number after the file's own name.
func isTempPath(path string) bool {
	base := filepath.Base(path)
	if len(base) < 3 || base[0] != '.' {
		return false
	}
	last := base[len(base)-1]
	return last >= '0' && last <= '9' && strings.Contains(base[1:], ".")
}
