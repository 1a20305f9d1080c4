package simulate

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// WriteChart draws nodes per pool over time as an SVG step chart, one panel
// per run, so the two runs can be compared at a glance.
func WriteChart(w io.Writer, runs ...Run) error {
	const (
		width, panelH, left, top, bottom = 760, 220, 50, 30, 30
	)
	var end time.Duration
	most := 1
	poolSet := map[string]bool{}
	for _, r := range runs {
		end = max(end, r.Record.End)
		for pool, pts := range r.Record.PoolSeries() {
			poolSet[pool] = true
			for _, p := range pts {
				most = max(most, p.Nodes)
			}
		}
	}
	if end <= 0 {
		end = time.Minute
	}
	pools := make([]string, 0, len(poolSet))
	for p := range poolSet {
		pools = append(pools, p)
	}
	sort.Strings(pools)
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"}
	height := len(runs)*(panelH+top+bottom) + 20
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	plotW := float64(width - left - 20)
	for i, r := range runs {
		y0 := i*(panelH+top+bottom) + top
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">%s: nodes per pool</text>`+"\n", left, y0-10, r.Name)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%d" fill="none" stroke="#999"/>`+"\n", left, y0, plotW, panelH)
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%d</text><text x="%d" y="%d" text-anchor="end">0</text>`+"\n", left-5, y0+10, most, left-5, y0+panelH)
		fmt.Fprintf(&b, `<text x="%.0f" y="%d" text-anchor="end">minute %.0f</text>`+"\n", float64(left)+plotW, y0+panelH+15, end.Minutes())
		series := r.Record.PoolSeries()
		for ci, pool := range pools {
			pts := series[pool]
			if len(pts) == 0 {
				continue
			}
			x := func(t time.Duration) float64 { return float64(left) + plotW*float64(t)/float64(end) }
			y := func(n int) float64 { return float64(y0+panelH) - float64(panelH)*float64(n)/float64(most) }
			var path strings.Builder
			fmt.Fprintf(&path, "M%.1f,%.1f", x(pts[0].At), y(pts[0].Nodes))
			for k := 1; k < len(pts); k++ {
				fmt.Fprintf(&path, " H%.1f V%.1f", x(pts[k].At), y(pts[k].Nodes))
			}
			color := colors[ci%len(colors)]
			fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", path.String(), color)
			fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s">%s</text>`+"\n", left+10+ci*150, y0+panelH+15, color, pool)
		}
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
