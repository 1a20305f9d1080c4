// WriteScaleChart: an SVG of scheduling throughput against cluster size, Muster and upstream, a panel per number of waiting gangs.

package throughput

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// WriteScaleChart draws the grid's pods/s (scheduling alone, first bind to
// last) against the cluster size as SVG, in the style of muster simulate's
// chart (pkg/simulate/chart.go): a panel per number of waiting gangs, on
// the same scales, a line per side, the cluster size on a log scale with a
// tick at each size measured.
func WriteScaleChart(w io.Writer, cells []ScaleCell) error {
	const width, panelH, left, right, top, bottom = 760, 220, 64, 20, 36, 48
	var sizes, gangCounts []int
	seenSize, seenGangs := map[int]bool{}, map[int]bool{}
	most := 1.0
	for _, c := range cells {
		if !seenSize[c.Nodes] {
			seenSize[c.Nodes] = true
			sizes = append(sizes, c.Nodes)
		}
		if !seenGangs[c.Gangs] {
			seenGangs[c.Gangs] = true
			gangCounts = append(gangCounts, c.Gangs)
		}
		most = max(most, c.Result.SchedPodsPerSec)
	}
	sort.Ints(sizes)
	sort.Ints(gangCounts)
	yStep := niceStep(most / 5)
	yMax := math.Ceil(most/yStep) * yStep
	plotW := float64(width - left - right)
	lo, hi := 0.0, 1.0
	if len(sizes) > 0 {
		lo, hi = math.Log(float64(sizes[0])), math.Log(float64(sizes[len(sizes)-1]))
	}
	x := func(nodes int) float64 {
		if hi <= lo {
			return float64(left) + plotW/2
		}
		return float64(left) + plotW*(math.Log(float64(nodes))-lo)/(hi-lo)
	}
	sides := []struct{ name, color string }{{SideMuster, "#d62728"}, {SideUpstream, "#9467bd"}}
	height := len(gangCounts)*(panelH+top+bottom) + 10
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	for panel, gangs := range gangCounts {
		y0 := panel*(panelH+top+bottom) + top
		y := func(v float64) float64 { return float64(y0+panelH) - float64(panelH)*v/yMax }
		size := 0
		for _, c := range cells {
			if c.Gangs == gangs {
				size = c.GangSize
			}
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">%d waiting gangs of %d: pods/s against cluster size</text>`+"\n", left, y0-14, gangs, size)
		for v := 0.0; v <= yMax+yStep/2; v += yStep {
			fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", left, y(v), float64(left)+plotW, y(v))
			fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%g</text>`+"\n", left-6, y(v)+4, v)
		}
		for _, n := range sizes {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#999"/>`+"\n", x(n), y0+panelH, x(n), y0+panelH+5)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", x(n), y0+panelH+18, n)
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%d" fill="none" stroke="#999"/>`+"\n", left, y0, plotW, panelH)
		fmt.Fprintf(&b, `<text x="%.0f" y="%d" text-anchor="end">nodes (log scale)</text>`+"\n", float64(left)+plotW, y0+panelH+34)
		fmt.Fprintf(&b, `<text transform="translate(%d,%d) rotate(-90)" text-anchor="middle">pods/s</text>`+"\n", left-40, y0+panelH/2)
		for i, s := range sides {
			var pts []string
			for _, n := range sizes {
				for _, c := range cells {
					if c.Gangs == gangs && c.Nodes == n && c.Side == s.name {
						pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(n), y(c.Result.SchedPodsPerSec)))
						fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", x(n), y(c.Result.SchedPodsPerSec), s.color)
					}
				}
			}
			if len(pts) > 1 {
				fmt.Fprintf(&b, `<path d="M%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " L"), s.color)
			}
			fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s">%s</text>`+"\n", left+i*140, y0+panelH+34, s.color, s.name)
		}
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// niceStep rounds a rough tick step up to 1, 2 or 5 times a power of ten
// (as pkg/simulate's chart does).
func niceStep(rough float64) float64 {
	if rough <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(rough)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= rough {
			return max(m*p, 1)
		}
	}
	return 10 * p
}
