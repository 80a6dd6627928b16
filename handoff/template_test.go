package handoff

import (
	"strings"
	"testing"
	"time"
)

func TestRenderProjectFallsBack(t *testing.T) {
	h := &Handoff{Meta: testMeta, Summary: "the summary", Files: []string{"a.go", "b.go"}}
	builtin, err := renderLimit(h, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	nest := "{{range .Files.Items}}{{range $.Files.Items}}{{range $.Files.Items}}{{end}}{{end}}{{end}}"
	for name, c := range map[string]struct {
		tmpl    string
		own     bool
		problem string
	}{
		"good":          {tmpl: "---\nsession: {{.Session}}\n---\nmine: {{.Summary}}\n", own: true},
		"broken":        {tmpl: "{{.Nope", problem: "template not used"},
		"unknown key":   {tmpl: "{{.Summary.Nope}}", problem: "template not used"},
		"nested, cheap": {tmpl: nest, own: true},
		"endless output": {tmpl: "{{range .Files.Items}}" + strings.Repeat("{{range $.Files.Items}}", 24) + "xxxxxxxxxxxxxxxx" + strings.Repeat("{{end}}", 24) + "{{end}}",
			problem: "template not used"},
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			out, problem, err := RenderProject(h, c.tmpl, 0, 300*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("took %v", took)
			}
			if c.own {
				if problem != "" || string(out) == string(builtin) {
					t.Errorf("own template not used: problem %q", problem)
				}
				return
			}
			if !strings.Contains(problem, c.problem) || strings.Contains(problem, "\n") {
				t.Errorf("problem = %q, want one line with %q", problem, c.problem)
			}
			if string(out) != string(builtin) {
				t.Errorf("fallback is not the built-in rendering:\n%s", out)
			}
		})
	}
	t.Run("too slow", func(t *testing.T) {
		many := &Handoff{Meta: testMeta}
		for i := 0; i < 200; i++ {
			many.Files = append(many.Files, "f.go")
		}
		deep := "{{range .Files.Items}}" + strings.Repeat("{{range $.Files.Items}}", 3) + "{{end}}{{end}}{{end}}{{end}}"
		start := time.Now()
		_, problem, err := RenderProject(many, deep, 0, 100*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("took %v", took)
		}
		if !strings.Contains(problem, "ran past") {
			t.Errorf("problem = %q", problem)
		}
	})
}
