package web

import (
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// newMarkdown is goldmark for untrusted files: CommonMark (GitHub's
// extensions are left out: their package compiles its regular expressions
// when any process of the binary starts, a millisecond on every hook), raw HTML
// shown as the text it is (never rendered, never silently left out: a
// handoff's "<script>" line is seen for what it is), dangerous link schemes
// not linked, and images shown as links, so that a page never loads
// anything from another host.
func newMarkdown() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(imageAsLink{}, 100), util.Prioritized(htmlAsText{}, 100))),
	)
}

// imageAsLink renders ![alt](url) as a link to url showing alt.
type imageAsLink struct{}

func (imageAsLink) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindImage, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		img := n.(*ast.Image)
		if entering {
			_, _ = w.WriteString(`<a class="image" href="`)
			if !html.IsDangerousURL(img.Destination) {
				_, _ = w.Write(util.EscapeHTML(util.URLEscape(img.Destination, true)))
			}
			_, _ = w.WriteString(`">image: `)
			return ast.WalkContinue, nil
		}
		_, _ = w.WriteString("</a>")
		return ast.WalkContinue, nil
	})
}

// htmlAsText renders raw HTML, a block or inline, as escaped text.
type htmlAsText struct{}

func (htmlAsText) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		b := n.(*ast.HTMLBlock)
		_, _ = w.WriteString(`<pre class="raw-html">`)
		for i := 0; i < b.Lines().Len(); i++ {
			seg := b.Lines().At(i)
			_, _ = w.Write(util.EscapeHTML(seg.Value(src)))
		}
		if b.HasClosure() {
			_, _ = w.Write(util.EscapeHTML(b.ClosureLine.Value(src)))
		}
		_, _ = w.WriteString("</pre>\n")
		return ast.WalkSkipChildren, nil
	})
	reg.Register(ast.KindRawHTML, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkSkipChildren, nil
		}
		r := n.(*ast.RawHTML)
		for i := 0; i < r.Segments.Len(); i++ {
			seg := r.Segments.At(i)
			_, _ = w.Write(util.EscapeHTML(seg.Value(src)))
		}
		return ast.WalkSkipChildren, nil
	})
}
