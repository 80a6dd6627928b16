package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/continuity-md/continuity/internal/localstate"
)

// ccTree writes a Continuous-Claude thoughts/ tree: files maps paths
// under root to contents.
func ccTree(t *testing.T, files map[string]string) *Workspace {
	t.Helper()
	root := t.TempDir()
	for path, body := range files {
		full := filepath.Join(root, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &Workspace{Root: root, LedgerDir: filepath.Join(root, "thoughts", "ledgers"),
		HandoffDir: filepath.Join(root, "thoughts", "shared", "handoffs"), Local: localstate.New(filepath.Join(root, ".state"), "", nil)}
}

// TestCCStreams: CONTINUITY_CLAUDE-x.md and the handoff folder x are one
// work stream x; a native CONTINUITY_x.md wins over it.
func TestCCStreams(t *testing.T) {
	p := ccTree(t, map[string]string{
		"thoughts/ledgers/CONTINUITY_CLAUDE-billing.md":                   "# Session: billing\n\n## Goal\nx\n",
		"thoughts/ledgers/CONTINUITY_CLAUDE-auth.md":                      "# Session: auth\n\n## Goal\ny\n",
		"thoughts/ledgers/CONTINUITY_auth.md":                             "---\nsession: auth\n---\n",
		"thoughts/shared/handoffs/billing/2026-10-01_10-00-00_a.md":       "---\ndate: 2026-10-01T10:00:00Z\n---\n",
		"thoughts/shared/handoffs/billing/2026-10-02_09-00_b.yaml":        "---\ndate: 2026-10-02T09:00:00Z\n---\ngoal: g\n",
		"thoughts/shared/handoffs/billing/2026-10-01T23-00-00Z_x_y.md":    "---\ncreated: \"2026-10-01T23:00:00.000Z\"\n---\n",
		"thoughts/shared/handoffs/2026-10-03_08-00-00_loose-billing.md":   "---\ndate: 2026-10-03T08:00:00Z\nsession_name: billing\n---\n",
		"thoughts/shared/handoffs/2026-10-04_08-00-00_loose-mention.md":   "---\ndate: 2026-10-04T08:00:00Z\n---\n## Critical References\n- `thoughts/ledgers/CONTINUITY_CLAUDE-auth.md`\n",
		"thoughts/shared/handoffs/2026-10-05_08-00-00_loose-nobody.md":    "---\ndate: 2026-10-05T08:00:00Z\n---\n# Handoff\n",
		"thoughts/shared/handoffs/2026-10-06_08-00-00_loose-other-one.md": "---\ndate: 2026-10-06T08:00:00Z\nsession_name: CLAUDE-other\n---\n",
	})
	ls, err := p.Ledgers()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range ls {
		names = append(names, l.Name+"="+filepath.Base(l.Path))
	}
	got := strings.Join(names, " ")
	if !strings.Contains(got, "billing=CONTINUITY_CLAUDE-billing.md") || !strings.Contains(got, "auth=CONTINUITY_auth.md") || len(ls) != 2 {
		t.Errorf("Ledgers = %s", got)
	}
	if lp, _ := p.LedgerPath("billing"); filepath.Base(lp) != "CONTINUITY_CLAUDE-billing.md" {
		t.Errorf("LedgerPath(billing) = %s", lp)
	}
	if lp, _ := p.LedgerPath("new-one"); filepath.Base(lp) != "CONTINUITY_new-one.md" {
		t.Errorf("LedgerPath(new-one) = %s", lp)
	}
	if d, _ := p.StreamHandoffDir("CLAUDE-billing"); filepath.Base(d) != "billing" {
		t.Errorf("StreamHandoffDir(CLAUDE-billing) = %s", d)
	}

	// The newest of billing's is the loose one that names it; auth's the
	// one that mentions its ledger; the one naming nobody goes nowhere (two
	// streams here), the one naming "other" to other.
	if h, err := p.LatestHandoff("billing", testNow); err != nil || filepath.Base(h) != "2026-10-03_08-00-00_loose-billing.md" {
		t.Errorf("LatestHandoff(billing) = %s, %v", h, err)
	}
	if h, err := p.LatestHandoff("auth", testNow); err != nil || filepath.Base(h) != "2026-10-04_08-00-00_loose-mention.md" {
		t.Errorf("LatestHandoff(auth) = %s, %v", h, err)
	}
	if h, _ := p.LatestHandoff("other", testNow); filepath.Base(h) != "2026-10-06_08-00-00_loose-other-one.md" {
		t.Errorf("LatestHandoff(other) = %s", h)
	}
	var files []string
	for _, f := range p.HandoffFiles("billing") {
		files = append(files, filepath.Base(f))
	}
	if want := "2026-10-01_10-00-00_a.md 2026-10-01T23-00-00Z_x_y.md 2026-10-02_09-00_b.yaml 2026-10-03_08-00-00_loose-billing.md"; strings.Join(files, " ") != want {
		t.Errorf("HandoffFiles(billing) = %v\nwant %s", files, want)
	}
}

// TestLooseOnlyStream: with one work stream, a loose handoff that names
// none is that stream's.
func TestLooseOnlyStream(t *testing.T) {
	p := ccTree(t, map[string]string{
		"thoughts/ledgers/CONTINUITY_CLAUDE-solo.md":               "# Session: solo\n\n## Goal\nx\n",
		"thoughts/shared/handoffs/2026-10-05_08-00-00_anything.md": "---\ndate: 2026-10-05T08:00:00Z\n---\n# Handoff\n",
	})
	if h, err := p.LatestHandoff("solo", testNow); err != nil || filepath.Base(h) != "2026-10-05_08-00-00_anything.md" {
		t.Errorf("LatestHandoff(solo) = %s, %v", h, err)
	}
}
