package handoff

import (
	"fmt"
	"path/filepath"
	"time"
)

// ClockSkew is how far past now a handoff may be dated and still count:
// teammates' clocks differ by seconds, seldom by minutes. One dated later
// (a clock set wrong, a crafted name or created time) is never the latest,
// or it would hide every fresh handoff until its date came.
const ClockSkew = 10 * time.Minute

// Future reports whether t lies more than ClockSkew past now.
func Future(t, now time.Time) bool { return t.Sub(now) > ClockSkew }

// LatestAt is Latest among the handoffs in dir not dated in the future of
// now; future counts those passed over. With every handoff in the future
// it returns an error wrapping ErrNoHandoff.
func LatestAt(dir string, now time.Time) (path string, future int, err error) {
	es, err := entries(dir)
	if err != nil {
		return "", 0, err
	}
	// Dated in the future by name, then (the newest settled by their
	// created times) by what their files say.
	present := es[:0]
	for _, e := range es {
		if Future(e.t, now) {
			future++
			continue
		}
		present = append(present, e)
	}
	settle(dir, present)
	var best *entry
	for i := range present {
		switch {
		case Future(present[i].t, now):
			future++
		case best == nil || later(present[i], *best):
			best = &present[i]
		}
	}
	if best == nil {
		return "", future, fmt.Errorf("%s: %w (%d dated in the future)", dir, ErrNoHandoff, future)
	}
	return filepath.Join(dir, best.name), future, nil
}

// FutureAt reports whether the handoff at path is dated in the future of
// now, by its name or by its created time.
func FutureAt(path string, now time.Time) bool {
	nt, _, ok := NameTime(filepath.Base(path))
	return ok && Future(nt, now) || Future(Time(path), now)
}
