package main

import (
	"fmt"
	"time"
)

// noiseMargin is how far past its target a ratio may fall before it counts
// as missed: the machine's noise on medians of CPU time, measured
// alternately in one run. A ratio missed beyond it is measured again (the
// whole run, a second try); only a ratio missed on both tries fails.
const noiseMargin = 0.15

// cpuRatio is p's median CPU time over ref's: what each process cost,
// whatever else the machine was running.
func cpuRatio(p, ref *proc) float64 {
	return float64(p.cpuMedian()) / float64(ref.cpuMedian())
}

// atMost is a row holding value (a ratio, described by what) to at most
// limit.
func atMost(p *proc, value float64, what string, limit float64) row {
	return row{p: p, ratio: fmt.Sprintf("%.2fx %s", value, what), target: fmt.Sprintf("<= %.2gx", limit),
		ok: pass(value <= limit*(1+noiseMargin)), past: value > limit}
}

// atLeast is a row holding value to at least limit.
func atLeast(p *proc, value float64, what string, limit float64) row {
	return row{p: p, ratio: fmt.Sprintf("%.1fx %s", value, what), target: fmt.Sprintf(">= %.2gx", limit),
		ok: pass(value >= limit/(1+noiseMargin)), past: value < limit}
}

// within is a row holding p to at most d, a host's budget: judged on its
// median CPU time, which is what the process needs of the clock on a
// machine that runs nothing else (this one is shared: its wall time is
// shown beside).
func within(p *proc, d time.Duration) row {
	m := p.cpuMedian()
	return row{p: p, ratio: fmt.Sprintf("CPU %s, wall %s", ms(m), ms(p.median())), target: "< " + ms(d),
		ok: pass(float64(m) <= float64(d)*(1+noiseMargin)), past: m > d}
}

// unjudged is r shown with its target but not judged: a target known to
// be missed, left open (said in the result column).
func unjudged(r row) row {
	if r.ok != nil && r.past {
		r.note = "missed (open: not judged yet)"
	}
	r.ok = nil
	return r
}

// rssAtMost is a row holding p's maximum RSS to at most limit bytes (no
// margin: memory is not the machine's noise).
func rssAtMost(p *proc, rss, limit int64) row {
	return row{p: p, ratio: fmt.Sprintf("max RSS %.1f MB", float64(rss)/(1<<20)), target: fmt.Sprintf("<= %d MB", limit>>20),
		ok: pass(rss <= limit), past: rss > limit}
}
