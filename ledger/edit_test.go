package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/testkit"
	"github.com/rogpeppe/go-internal/txtar"
)

const goldenDir = "../testdata/ledger"

// edit is one line of a golden's cmd section.
type edit struct {
	op, key, value string
}

func (e edit) String() string { return e.op + " " + e.key + " " + e.value }

// parseCmd reads "op key value" lines; a value starting with " is a Go
// quoted string (for newlines and odd characters).
func parseCmd(t testing.TB, text string) []edit {
	var out []edit
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		op, rest, _ := strings.Cut(line, " ")
		e := edit{op: op}
		switch op {
		case "decide", "touch":
			e.value = rest
		default:
			e.key, e.value, _ = strings.Cut(rest, " ")
		}
		if strings.HasPrefix(e.value, `"`) {
			v, err := strconv.Unquote(e.value)
			if err != nil {
				t.Fatalf("cmd %q: %v", line, err)
			}
			e.value = v
		}
		out = append(out, e)
	}
	return out
}

// apply runs one edit on src.
func apply(src []byte, e edit) ([]byte, error) {
	switch e.op {
	case "set":
		return SetScalar(src, e.key, e.value)
	case "append":
		return AppendItems(src, e.key, e.value)
	case "remove":
		out, _, err := RemoveItem(src, e.key, e.value)
		return out, err
	case "decide":
		f := strings.SplitN(e.value, "|", 3)
		for len(f) < 3 {
			f = append(f, "")
		}
		return AddDecision(src, Decision{Decision: f[0], Why: f[1], Date: f[2]})
	case "touch":
		now, err := time.Parse(time.RFC3339, e.value)
		if err != nil {
			return nil, err
		}
		return Touch(src, now)
	}
	return nil, fmt.Errorf("unknown op %q", e.op)
}

// fileFlags applies a golden's comment flags to a section's text: "crlf"
// turns line ends into CRLF, "nofinalnewline" drops the last one.
func fileFlags(comment string, data []byte) []byte {
	if strings.Contains(comment, "crlf") {
		data = bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
	}
	if strings.Contains(comment, "nofinalnewline") {
		data = bytes.TrimSuffix(bytes.TrimSuffix(data, []byte("\n")), []byte("\r"))
	}
	return data
}

func undoFlags(comment string, data []byte) []byte {
	if strings.Contains(comment, "nofinalnewline") {
		data = append(append([]byte(nil), data...), '\n')
		if strings.Contains(comment, "crlf") {
			data = append(data[:len(data)-1], '\r', '\n')
		}
	}
	if strings.Contains(comment, "crlf") {
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	}
	return data
}

func archiveFile(a *txtar.Archive, name string) ([]byte, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

func setSection(a *txtar.Archive, name string, data []byte) {
	for i := range a.Files {
		if a.Files[i].Name == name {
			a.Files[i].Data = data
			return
		}
	}
	a.Files = append(a.Files, txtar.File{Name: name, Data: data})
}

func goldenFiles(t testing.TB, dir string) []string {
	files, err := filepath.Glob(filepath.Join(goldenDir, dir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files in %s: %v", dir, err)
	}
	return files
}

// TestEditGoldens runs each testdata/ledger/edits/*.txtar: the cmd edits
// applied to input.md give want.md (or the error in section "error").
func TestEditGoldens(t *testing.T) {
	files := goldenFiles(t, "edits")
	if len(files) < 25 {
		t.Errorf("only %d edit goldens; want at least 25", len(files))
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			comment := string(a.Comment)
			in, ok := archiveFile(a, "input.md")
			if !ok {
				t.Fatal("no input.md")
			}
			cmd, _ := archiveFile(a, "cmd")
			src := fileFlags(comment, in)
			var gotErr error
			for _, e := range parseCmd(t, string(cmd)) {
				out, err := apply(src, e)
				if err != nil {
					gotErr = fmt.Errorf("%s: %w", e, err)
					if out != nil {
						t.Errorf("%s: error %v but returned bytes", e, err)
					}
					break
				}
				checkOutsideUnchanged(t, src, out)
				src = out
			}
			if wantErr, ok := archiveFile(a, "error"); ok {
				if gotErr == nil {
					t.Fatalf("no error; want %q", wantErr)
				}
				if !strings.Contains(gotErr.Error(), strings.TrimSpace(string(wantErr))) {
					t.Fatalf("error %q; want it to contain %q", gotErr, wantErr)
				}
				return
			}
			if gotErr != nil {
				t.Fatal(gotErr)
			}
			if _, err := Parse("CONTINUITY_x.md", src); err != nil {
				t.Errorf("result does not parse: %v\n%s", err, src)
			}
			if *testkit.Update {
				setSection(a, "want.md", undoFlags(comment, src))
				if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, ok := archiveFile(a, "want.md")
			if !ok {
				t.Fatal("no want.md (run with -update)")
			}
			if want = fileFlags(comment, want); !bytes.Equal(src, want) {
				t.Errorf("got:\n%s\nwant:\n%s", src, want)
			}
		})
	}
}

// checkOutsideUnchanged checks that an edit left the body (everything from
// the closing delimiter on) byte-identical.
func checkOutsideUnchanged(t testing.TB, before, after []byte) {
	t.Helper()
	_, fmEnd, _, found, _ := splitFrontMatter(before)
	if !found {
		return
	}
	tail := before[fmEnd:]
	if !bytes.HasSuffix(after, tail) {
		t.Errorf("the closing delimiter and body changed:\nbefore:\n%q\nafter:\n%q", before, after)
	}
}

// TestValidationGoldens runs testdata/ledger/invalid/*.txtar: Parse of
// input.md fails with exactly the problems in want.
func TestValidationGoldens(t *testing.T) {
	for _, file := range goldenFiles(t, "invalid") {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			in, _ := archiveFile(a, "input.md")
			in = fileFlags(string(a.Comment), in)
			const path = "thoughts/ledgers/CONTINUITY_x.md"
			_, err = Parse(path, in)
			var probs Problems
			if !errors.As(err, &probs) {
				t.Fatalf("Parse error %v (%T); want Problems", err, err)
			}
			got := err.Error() + "\n"
			// Every edit refuses the broken ledger the same way, with no bytes.
			for _, e := range []edit{{"set", "now", "x"}, {"append", "next", "y"}, {"remove", "next", "a"}, {"touch", "", "2026-11-22T14:05:09Z"}} {
				out, eerr := apply(in, e)
				if out != nil || eerr == nil || WithPath(eerr, path).Error() != err.Error() {
					t.Errorf("%s on a broken ledger: %q, %v; want no bytes and %v", e, out, eerr, err)
				}
			}
			if *testkit.Update {
				setSection(a, "want", []byte(got))
				if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, _ := archiveFile(a, "want")
			if got != string(want) {
				t.Errorf("problems:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// editGolden is one edit golden's input ledger (its flags applied) and edits.
type editGolden struct {
	in    []byte
	edits []edit
}

func editGoldens(t testing.TB) []editGolden {
	t.Helper()
	var out []editGolden
	for _, file := range goldenFiles(t, "edits") {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		in, _ := archiveFile(a, "input.md")
		cmd, _ := archiveFile(a, "cmd")
		out = append(out, editGolden{fileFlags(string(a.Comment), in), parseCmd(t, string(cmd))})
	}
	return out
}
