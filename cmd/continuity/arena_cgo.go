//go:build cgo && linux && !android

package main

/*
#include <malloc.h>

// Run by the loader, before Go's runtime starts its threads.
__attribute__((constructor)) static void continuity_one_arena(void) { mallopt(M_ARENA_MAX, 1); }
*/
import "C"

// A cgo build (the default where a C compiler is found: pflag imports net)
// starts its threads with pthreads, and glibc reserves 64 MiB of address
// space for the malloc arena of each thread that allocates, up to eight
// per core. Under an address-space limit (ulimit -v 1 GiB) those
// reservations, not continuity's memory, failed one start in ten, deep
// input or not: one arena is all a process that hardly calls C needs. The
// constructor above limits them before the first thread starts.
