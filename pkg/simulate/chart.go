// WriteChart: SVG step charts of the GPUs paid for and the GPUs used over trace time, per run.

package simulate

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// WriteChart draws, for each run, the GPUs paid for (on nodes that are up)
// and the GPUs used over trace time as SVG step charts, one panel per run
// on the same scales, with labelled axes and ticks: the gap between the two
// lines is what idle GPUs cost. With more than one run, a first panel has
// one curve per side, the GPUs it paid for, to compare the sides at a
// glance.
func WriteChart(w io.Writer, runs ...Run) error {
	const (
		width, panelH, left, right, top, bottom = 760, 220, 64, 20, 36, 48
	)
	var end time.Duration
	var most int64 = 1
	type series struct{ provisioned, used []Level }
	data := make([]series, len(runs))
	for i, r := range runs {
		end = max(end, r.Record.End)
		p, u := r.Record.GPUSeries()
		data[i] = series{p, u}
		for _, l := range append(p, u...) {
			most = max(most, l.Value)
		}
	}
	if end <= 0 {
		end = time.Minute
	}
	yStep := niceStep(float64(most) / 5)
	yMax := math.Ceil(float64(most)/yStep) * yStep
	xStep := niceStep(end.Minutes() / 8)
	plotW := float64(width - left - right)
	overview := 0
	if len(runs) > 1 {
		overview = 1
	}
	height := (len(runs)+overview)*(panelH+top+bottom) + 10
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	lines := []struct{ name, color string }{{"GPUs paid for (nodes up)", "#1f77b4"}, {"GPUs used", "#2ca02c"}}
	sideColors := []string{"#d62728", "#9467bd", "#1f77b4", "#ff7f0e", "#8c564b", "#e377c2"}
	for panel := range len(runs) + overview {
		y0 := panel*(panelH+top+bottom) + top
		x := func(t time.Duration) float64 { return float64(left) + plotW*float64(t)/float64(end) }
		y := func(v float64) float64 { return float64(y0+panelH) - float64(panelH)*v/yMax }
		path := func(pts []Level) string {
			var p strings.Builder
			fmt.Fprintf(&p, "M%.1f,%.1f", x(pts[0].At), y(float64(pts[0].Value)))
			for k := 1; k < len(pts); k++ {
				fmt.Fprintf(&p, " H%.1f V%.1f", x(pts[k].At), y(float64(pts[k].Value)))
			}
			return p.String()
		}
		axes := func() {
			for v := 0.0; v <= yMax+yStep/2; v += yStep {
				fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", left, y(v), float64(left)+plotW, y(v))
				fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%g</text>`+"\n", left-6, y(v)+4, v)
			}
			for m := 0.0; m <= end.Minutes()+xStep/100; m += xStep {
				xv := x(time.Duration(m * float64(time.Minute)))
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#999"/>`+"\n", xv, y0+panelH, xv, y0+panelH+5)
				fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%g</text>`+"\n", xv, y0+panelH+18, m)
			}
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%d" fill="none" stroke="#999"/>`+"\n", left, y0, plotW, panelH)
			fmt.Fprintf(&b, `<text x="%.0f" y="%d" text-anchor="end">trace minute</text>`+"\n", float64(left)+plotW, y0+panelH+34)
			fmt.Fprintf(&b, `<text transform="translate(%d,%d) rotate(-90)" text-anchor="middle">GPUs</text>`+"\n", left-40, y0+panelH/2)
		}
		if panel < overview {
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">GPUs paid for (nodes up), every side</text>`+"\n", left, y0-14)
			axes()
			for i, r := range runs {
				color := sideColors[i%len(sideColors)]
				fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", path(data[i].provisioned), color)
				fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s">%s</text>`+"\n", left+i*140, y0+panelH+34, color, r.Name)
			}
			continue
		}
		i := panel - overview
		r := runs[i]
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">%s: GPUs over time (cost $%.2f, idle GPU-hours %.1f)</text>`+"\n",
			left, y0-14, r.Name, r.Figures.Cost, r.Figures.IdleGPUHours)
		axes()
		for li, pts := range [][]Level{data[i].provisioned, data[i].used} {
			fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", path(pts), lines[li].color)
			fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s">%s</text>`+"\n", left+li*200, y0+panelH+34, lines[li].color, lines[li].name)
		}
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// niceStep rounds a rough tick step up to 1, 2 or 5 times a power of ten.
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
