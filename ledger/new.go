package ledger

import (
	"bytes"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/continuity-md/continuity/templates"
)

// TemplateName is the embedded template New renders.
const TemplateName = "ledger.md.tmpl"

// newTemplate parses the ledger template once; its funcs write YAML scalars.
var newTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New(TemplateName).Funcs(template.FuncMap{
		// yaml writes a value as a top-level YAML scalar: plain when it can
		// be, quoted or as a block literal when it must.
		"yaml": func(s string) string { return formatScalar(s, styleAuto, false, "  ", "\n") },
	}).Parse(templates.Read(TemplateName)))
})

// New returns the bytes of a fresh ledger from the embedded template.
func New(session, goal string, now time.Time) []byte {
	var b bytes.Buffer
	err := newTemplate().Execute(&b, struct{ Session, Goal, Updated string }{session, goal, FormatTime(now)})
	if err != nil {
		panic("ledger: template " + TemplateName + ": " + err.Error())
	}
	return b.Bytes()
}

// templateBody is the body a new ledger starts with, trimmed. It is read
// from the template's text when the body holds no action (every ledger a
// hook reads asks, and running the template costs more than the rest of
// the question); else from a ledger New renders.
var templateBody = sync.OnceValue(func() string {
	if body, ok := bodyOf([]byte(templates.Read(TemplateName))); ok && !strings.Contains(body, "{{") {
		return body
	}
	body, _ := bodyOf(New("x", "", time.Time{}))
	return body
})

// bodyOf is src's body after its front matter, trimmed.
func bodyOf(src []byte) (string, bool) {
	_, _, body, found, _ := splitFrontMatter(src)
	if !found {
		return "", false
	}
	return strings.TrimSpace(string(src[body:])), true
}

// IsTemplateBody reports whether body is still the one a new ledger starts
// with (whitespace aside): placeholder text, not notes anyone wrote.
func IsTemplateBody(body []byte) bool {
	return templateBody() != "" && strings.TrimSpace(string(body)) == templateBody()
}
