package core

import (
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/continuity-md/continuity/internal/testkit"
)

var secret = "AKIA" + "IOSFODNN7EXAMPLE"

// TestRunSources: by default every ledger and handoff is read (never a file
// outside them); files named are read wherever they are; --staged reads the
// index, not the work tree.
func TestRunSources(t *testing.T) {
	r := testkit.New(t, true)
	r.Write("thoughts/ledgers/CONTINUITY_auth.md", "---\nsession: auth\n---\nkey "+secret+"\n")
	r.Write("thoughts/shared/handoffs/auth/h.md", "clean\n")
	r.Write("notes.txt", "key "+secret+"\n")
	p := openProject(r)
	hits, n, err := Scan(p, ScanOptions{Dir: r.Dir})
	if err != nil || n != 2 || len(hits) != 1 || hits[0].File != "thoughts/ledgers/CONTINUITY_auth.md" || hits[0].Line != 4 {
		t.Fatalf("default: %+v, %d files, %v", hits, n, err)
	}
	if strings.Contains(hits[0].Kind, secret) {
		t.Error("a hit names the secret")
	}
	hits, n, err = Scan(p, ScanOptions{Dir: r.Dir, Files: []string{"notes.txt"}})
	if err != nil || n != 1 || len(hits) != 1 || hits[0].File != "notes.txt" {
		t.Errorf("named: %+v, %v", hits, err)
	}
	if _, _, err := Scan(p, ScanOptions{Dir: r.Dir, Files: []string{"nosuch"}}); err == nil {
		t.Error("a missing named file is no error")
	}
	// Staged: the clean version is staged, the secret is only in the work tree.
	r.Write("thoughts/ledgers/CONTINUITY_auth.md", "---\nsession: auth\n---\nclean\n")
	r.Git("add", "thoughts")
	r.Write("thoughts/ledgers/CONTINUITY_auth.md", "---\nsession: auth\n---\nkey "+secret+"\n")
	hits, n, err = Scan(p, ScanOptions{Dir: r.Dir, Staged: true})
	if err != nil || n != 2 || len(hits) != 0 {
		t.Errorf("staged clean: %+v, %d, %v", hits, n, err)
	}
	r.Git("add", "thoughts")
	if hits, _, _ = Scan(p, ScanOptions{Dir: r.Dir, Staged: true}); len(hits) != 1 {
		t.Errorf("staged secret: %+v", hits)
	}
}

// encode spells s in an encoding git may hold a text file in.
func encode(s, enc string) []byte {
	u16 := func(big bool) []byte {
		var b []byte
		for _, u := range utf16.Encode([]rune(s)) {
			if big {
				b = binary.BigEndian.AppendUint16(b, u)
			} else {
				b = binary.LittleEndian.AppendUint16(b, u)
			}
		}
		return b
	}
	u32 := func(big bool) []byte {
		var b []byte
		for _, r := range s {
			if big {
				b = binary.BigEndian.AppendUint32(b, uint32(r))
			} else {
				b = binary.LittleEndian.AppendUint32(b, uint32(r))
			}
		}
		return b
	}
	switch enc {
	case "utf-8-bom":
		return append([]byte{0xEF, 0xBB, 0xBF}, s...)
	case "utf-16le-bom":
		return append([]byte{0xFF, 0xFE}, u16(false)...)
	case "utf-16be-bom":
		return append([]byte{0xFE, 0xFF}, u16(true)...)
	case "utf-16le":
		return u16(false)
	case "utf-16be":
		return u16(true)
	case "utf-32le-bom":
		return append([]byte{0xFF, 0xFE, 0, 0}, u32(false)...)
	case "utf-32be-bom":
		return append([]byte{0, 0, 0xFE, 0xFF}, u32(true)...)
	case "latin-1":
		return []byte(strings.ReplaceAll(s, "é", "\xe9"))
	}
	return []byte(s)
}

// TestEncodings: a secret is found, on its line, in a file of any encoding
// git keeps as text, named or staged.
func TestEncodings(t *testing.T) {
	const tok = "ghp_Xq7Lk2Xw9Zp3Rt8Mn4Bc6Yd1Fg5Hj0Ks2Ua9"
	body := "# Notes, café\r\nCI uses the key below.\r\ntoken " + tok + " for the deploy\r\n"
	for _, enc := range []string{"utf-8", "utf-8-bom", "utf-16le-bom", "utf-16be-bom", "utf-16le", "utf-16be", "utf-32le-bom", "utf-32be-bom", "latin-1"} {
		t.Run(enc, func(t *testing.T) {
			r := testkit.New(t, true)
			name := "thoughts/shared/handoffs/auth/h.md"
			r.Write(name, string(encode(body, enc)))
			p := openProject(r)
			hits, _, err := Scan(p, ScanOptions{Dir: r.Dir, Files: []string{name}})
			if err != nil || len(hits) != 1 || hits[0].Line != 3 || hits[0].Kind != "github-token" {
				t.Errorf("named: %+v, %v", hits, err)
			}
			r.Git("add", "thoughts")
			if hits, _, err := Scan(p, ScanOptions{Dir: r.Dir, Staged: true}); err != nil || len(hits) != 1 || hits[0].Line != 3 {
				t.Errorf("staged: %+v, %v", hits, err)
			}
		})
	}
}
