// Command bench measures continuity as an agent's client runs it (host.go names the host): whole processes,
// a payload on stdin, against named baselines measured alternately in the
// same run (a minimal Go program that prints "{}", `wc -l` and `jq` on the
// same transcript). It builds the binary and the baseline, generates the
// repositories and transcripts in a temporary directory, and prints one table.
// A session's end on the long transcript, with 2 MB appended since its last
// hook, is timed beside an end on a fresh 2 MB transcript: a later hook
// resumes from the last one's checkpoint and costs what is new.
// It reports and never asserts: a missed target prints MISSED, the exit
// status stays 0.
//
//	go run ./script/bench          # 200 runs per session-start case, 200 MB transcript
//	go run ./script/bench -quick   # CI: fewer runs, 20 MB transcript
package main
