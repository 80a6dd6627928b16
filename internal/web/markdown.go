package web

import (
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// newMarkdown is goldmark for untrusted files: GitHub's markdown, raw HTML
// left out (goldmark's default, without html.WithUnsafe), dangerous link
// schemes not linked, and images shown as links, so that a page never
// loads anything from another host.
func newMarkdown() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(imageAsLink{}, 100))),
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
