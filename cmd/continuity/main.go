// Command continuity keeps a coding agent's work continuous across context
// compaction, /clear, restarts and teammates. See README.md.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
