// Package web is `continuity serve`: a local, read-only web view of a
// repository's work (the timeline of handoffs, each stream's ledger and
// handoffs, one handoff, search). Pages are html/template templates and a
// stylesheet embedded in the binary; nothing is fetched from the network
// and no script runs. Everything shown comes from files a teammate or an
// agent may have written, so it is treated as untrusted: redacted first,
// markdown rendered by goldmark without raw HTML, every other string
// escaped by html/template, and a strict Content-Security-Policy. The
// server answers only requests addressed to its own host and port (no DNS
// rebinding).
package web

import (
	"bytes"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/yuin/goldmark"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/internal/redact"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

//go:embed templates/*.html templates/style.css
var files embed.FS

// Server serves one project's pages.
type Server struct {
	p    *workspace.Workspace
	host string // the only Host header answered: "127.0.0.1:PORT"
	now  func() time.Time
	page map[string]*template.Template
	md   goldmark.Markdown
}

// New returns the server of project p, answering requests for host (the
// address it listens on, "127.0.0.1:PORT").
func New(p *workspace.Workspace, host string, now func() time.Time) *Server {
	s := &Server{p: p, host: host, now: now, page: map[string]*template.Template{},
		md: newMarkdown()}
	funcs := template.FuncMap{
		"time": func(t time.Time) string { return t.In(now().Location()).Format("15:04") },
		"date": func(t time.Time) string { return t.In(now().Location()).Format("2006-01-02 15:04 MST") },
	}
	for _, name := range []string{"timeline", "stream", "handoff", "search", "error"} {
		s.page[name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/"+name+".html"))
	}
	return s
}

// Handler routes the server's pages behind the host check.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.timeline)
	mux.HandleFunc("GET /stream/{name}", s.stream)
	mux.HandleFunc("GET /handoff/{path...}", s.handoff)
	mux.HandleFunc("GET /search", s.search)
	mux.HandleFunc("GET /style.css", s.style)
	return s.guard(mux)
}

// guard answers only GET and HEAD requests addressed to the server itself:
// a page of another site that points a name it controls at 127.0.0.1
// (DNS rebinding) sends its own name as Host and gets nothing. Every
// answer forbids scripts, frames, remote images and sniffing.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		if r.Host != s.host {
			http.Error(w, "continuity serve answers only http://"+s.host+"/", http.StatusMisdirectedRequest)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "read-only", http.StatusMethodNotAllowed)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// clean redacts text from the project's files: the built-in rules, then
// the project's own.
func (s *Server) clean(text string) string {
	out, _ := redact.Redact(text)
	return s.p.Redact(out)
}

// markdown renders redacted markdown as HTML (raw HTML left out).
func (s *Server) markdown(src []byte) template.HTML {
	var b bytes.Buffer
	if err := s.md.Convert([]byte(s.clean(string(src))), &b); err != nil {
		return template.HTML(template.HTMLEscapeString(string(src)))
	}
	return template.HTML(b.String()) // goldmark escapes text and drops raw HTML
}

// render writes a page, or a plain error when the template fails.
func (s *Server) render(w http.ResponseWriter, status int, name string, data any) {
	var b bytes.Buffer
	if err := s.page[name].Execute(&b, data); err != nil {
		http.Error(w, "continuity: page "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// notFound answers 404 with the site's layout.
func (s *Server) notFound(w http.ResponseWriter, what string) {
	s.render(w, http.StatusNotFound, "error", page{Title: "Not found", Data: what})
}

// page is what every template gets.
type page struct {
	Title string
	Root  string // the repository's directory name
	Query string // the search box's text
	Data  any
}

func (s *Server) page0(title string, data any) page {
	return page{Title: title, Root: path.Base(s.p.Root), Data: data}
}

// day is a day of the timeline.
type day struct {
	Date    string
	Entries []entry
}

// entry is a handoff on the timeline, redacted, with its page's address.
type entry struct {
	core.LogEntry
	Href string
}

// entries redacts log entries and gives each its page's address.
func (s *Server) entries(es []core.LogEntry) []entry {
	out := make([]entry, len(es))
	for i, e := range es {
		for _, f := range []*string{&e.Author, &e.Agent, &e.Event, &e.Branch, &e.Task, &e.Checks, &e.Summary} {
			*f = s.clean(*f)
		}
		href := ""
		if e.Machine == "" {
			href = s.handoffHref(e.Path) // a snapshot from another machine has no page of its own
		}
		out[i] = entry{e, href}
	}
	return out
}

// handoffHref is a handoff's page, from its path relative to the root.
func (s *Server) handoffHref(rel string) string {
	dir := strings.TrimSuffix(s.p.Rel(s.p.HandoffDir), "/") + "/"
	return "/handoff/" + strings.TrimPrefix(rel, dir)
}

// timelineData is the timeline page.
type timelineData struct {
	Days                         []day
	Stream, Author, Agent, Since string
	Total, Shown                 int
	Streams                      []string
	Problem                      string
}

// maxTimeline bounds the timeline page; the filters narrow it.
const maxTimeline = 500

func (s *Server) timeline(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := timelineData{Stream: q.Get("stream"), Author: q.Get("author"), Agent: q.Get("agent"), Since: q.Get("since"), Streams: core.Names(s.p)}
	lq := core.LogQuery{Author: d.Author, Agent: d.Agent}
	if d.Stream != "" {
		if workspace.CheckName(d.Stream) != nil {
			d.Problem = "no such stream"
		}
		lq.Stream = d.Stream
	}
	since, err := core.Since(d.Since, s.now())
	if err != nil {
		d.Problem = err.Error()
	}
	lq.Since = since
	var es []core.LogEntry
	if d.Problem == "" {
		es = core.Log(s.p, lq)
	}
	d.Total = len(es)
	if len(es) > maxTimeline {
		es = es[:maxTimeline]
	}
	d.Shown = len(es)
	loc := s.now().Location()
	for _, e := range s.entries(es) {
		date := core.LogDay(e.Created, loc)
		if len(d.Days) == 0 || d.Days[len(d.Days)-1].Date != date {
			d.Days = append(d.Days, day{Date: date})
		}
		last := &d.Days[len(d.Days)-1]
		last.Entries = append(last.Entries, e)
	}
	s.render(w, http.StatusOK, "timeline", s.page0("Timeline", d))
}

// streamData is a stream's page.
type streamData struct {
	Name     string
	Path     string
	Ledger   *ledger.Ledger // redacted; nil when there is none or it does not parse
	Notes    template.HTML
	Problem  string
	Raw      string // the redacted file, when it does not parse
	Handoffs []entry
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	known := false
	for _, n := range core.Names(s.p) {
		known = known || n == name
	}
	if !known || workspace.CheckName(name) != nil {
		s.notFound(w, "no work stream "+name)
		return
	}
	d := streamData{Name: name}
	if lp, err := s.p.LedgerPath(name); err == nil {
		if src, err := safefile.Read(lp, s.p.WriteOptions()); err == nil {
			d.Path = s.p.Rel(lp)
			clean := []byte(s.clean(string(src)))
			if l, err := compat.ParseLedger(d.Path, clean); err == nil {
				d.Ledger = l
				d.Notes = s.markdown(l.Body)
			} else {
				d.Problem, d.Raw = err.Error(), string(clean)
			}
		}
	}
	d.Handoffs = s.entries(core.Log(s.p, core.LogQuery{Stream: name}))
	s.render(w, http.StatusOK, "stream", s.page0(name, d))
}

// handoffData is a handoff's page.
type handoffData struct {
	Stream string
	Path   string
	Meta   handoff.Meta
	Body   template.HTML
}

func (s *Server) handoff(w http.ResponseWriter, r *http.Request) {
	rel := r.PathValue("path")
	parts := strings.Split(rel, "/")
	ok := len(parts) <= 2 && handoff.IsFile(parts[len(parts)-1])
	for _, part := range parts {
		ok = ok && part != "" && part != "." && part != ".." && !strings.ContainsAny(part, `\:`)
	}
	if len(parts) == 2 {
		ok = ok && workspace.CheckName(parts[0]) == nil
	}
	if !ok {
		s.notFound(w, "no handoff "+rel)
		return
	}
	full := filepath.Join(s.p.HandoffDir, filepath.FromSlash(rel))
	src, err := safefile.Read(full, s.p.WriteOptions())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			s.notFound(w, "no handoff "+rel)
		} else {
			s.notFound(w, "handoff "+rel+": cannot be read")
		}
		return
	}
	clean := []byte(s.clean(string(src)))
	d := handoffData{Path: s.p.Rel(full)}
	body := clean
	if b, found, err := ledger.SplitFront(clean); found && err == nil {
		body = clean[b.Body:]
	}
	if h, err := compat.ParseHandoff(clean); err == nil {
		d.Meta = h.Meta
	}
	if d.Meta.Created.IsZero() {
		d.Meta.Created = handoff.Time(full)
	}
	if len(parts) == 2 {
		d.Stream = parts[0]
	} else if workspace.CheckName(d.Meta.Stream) == nil {
		d.Stream = d.Meta.Stream
	}
	d.Body = s.markdown(body)
	s.render(w, http.StatusOK, "handoff", s.page0(path.Base(rel), d))
}

// searchData is the search page.
type searchData struct {
	Hits  []hit
	Files int
}

// hit is a search hit, redacted, with its page's address.
type hit struct {
	core.Hit
	Href string
}

// maxHits bounds the search page.
const maxHits = 500

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	text := strings.TrimSpace(r.URL.Query().Get("q"))
	d := searchData{}
	if text != "" {
		files := map[string]bool{}
		for i, h := range core.Search(s.p, core.Query{Text: text}) {
			files[h.Path] = true
			if i >= maxHits {
				continue
			}
			h.Text, h.Author = s.clean(h.Text), s.clean(h.Author)
			href := "/stream/" + h.Stream
			if h.Kind == "handoff" {
				href = s.handoffHref(h.Path)
			}
			d.Hits = append(d.Hits, hit{h, href})
		}
		d.Files = len(files)
	}
	pg := s.page0("Search", d)
	pg.Query = text
	s.render(w, http.StatusOK, "search", pg)
}

func (s *Server) style(w http.ResponseWriter, r *http.Request) {
	css, _ := files.ReadFile("templates/style.css")
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(css)
}
