package localstate

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestOpenIndexConcurrent: sessions closed and reopened at once by
// concurrent updates, while starts read the index (and heal it), end with
// the index saying exactly which are open: an open session left out of it
// would never be recovered.
func TestOpenIndexConcurrent(t *testing.T) {
	p, now := stateProject(t)
	ids := []string{"s1", "s2", "s3", "s4"}
	for round := range 200 {
		var wg sync.WaitGroup
		for _, id := range ids {
			for i := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ended := (round+i)%2 == 0
					if err := p.UpdateSession(id, now, func(s *Session) { s.Transcript, s.Ended = "/t/"+id, ended }); err != nil {
						t.Error(err)
					}
				}()
			}
		}
		wg.Add(1)
		go func() { defer wg.Done(); p.Unfinished() }()
		wg.Wait()
		for _, id := range ids {
			s := p.LoadSession(id)
			_, err := os.Stat(filepath.Join(p.openDir(), filepath.Base(p.sessionFile(id))))
			if marked := err == nil; s.open() && !marked {
				t.Fatalf("round %d: session %s is open but not in the index", round, id)
			}
		}
	}
}
