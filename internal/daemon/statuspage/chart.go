package statuspage

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/plural"
)

// The chart's size and how many runs it draws.
const (
	chartWidth, chartHeight = 640, 240
	chartMargin             = 40
	chartBottom             = chartHeight - 60 // the time axis, the time labels and the legend below
	chartRuns               = 30
)

// results are the run results the chart colours, in the legend's order.
var results = []struct{ result, color, label string }{
	{store.RunSuccess, "#4a7bd0", "success"},
	{store.RunHeld, "#d08a1e", "held for approval"},
	{store.RunFailure, "#c0392b", "failed"},
}

// barColor colours a run's bar by its result.
func barColor(result string) string {
	for _, r := range results {
		if r.result == result {
			return r.color
		}
	}
	return "#888"
}

// Chart draws the changes (bars, left scale) and the run time (line,
// right scale) of the last runs as an SVG element, oldest on the left,
// with a time axis (the runs' ends in loc) and a legend of the results
// the runs drawn have. Every run is drawn: a mark of its result's colour
// under the axis, and a bar at least a few pixels high (a failed run
// that changed nothing shows too). Both scales are logarithmic, so that
// one large or slow run does not flatten the others.
func Chart(runs []store.Run, loc *time.Location) template.HTML {
	if len(runs) > chartRuns {
		runs = runs[len(runs)-chartRuns:]
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" id="chart" role="img" width="%d" height="%d" viewBox="0 0 %[1]d %[2]d">`, chartWidth, chartHeight)
	b.WriteString(`<title>changes and run time of the last runs</title>`)
	if len(runs) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">no run yet</text></svg>`, chartWidth/2, chartHeight/2)
		return template.HTML(b.String())
	}
	maxChanges, maxSecs := 1, 0.001
	for i := range runs {
		maxChanges = max(maxChanges, runs[i].Total())
		maxSecs = max(maxSecs, runs[i].Duration().Seconds())
	}
	plotW, plotH := float64(chartWidth-2*chartMargin), float64(chartBottom-chartMargin)
	slot := plotW / float64(len(runs))
	bottom := float64(chartBottom)
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#888"/>`, chartMargin, bottom, chartWidth-chartMargin, bottom)
	var line []string
	for i := range runs {
		r := &runs[i]
		h := max(plotH*logScale(float64(r.Total()), float64(maxChanges)), minBar)
		x := float64(chartMargin) + slot*float64(i)
		fmt.Fprintf(&b, `<rect class="bar %s" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s, %s, %s</title></rect>`,
			html.EscapeString(r.Result), x+slot*0.15, bottom-h, slot*0.7, h, barColor(r.Result), html.EscapeString(clock(r.End, loc)),
			html.EscapeString(r.Org), plural.Of(r.Total(), "change", "changes"), html.EscapeString(r.Result), r.Duration().Round(time.Millisecond))
		fmt.Fprintf(&b, `<rect class="mark" x="%.1f" y="%.1f" width="%.1f" height="5" fill="%s"/>`, x+slot*0.15, bottom+2, slot*0.7, barColor(r.Result))
		y := bottom - plotH*logScale(r.Duration().Seconds(), maxSecs)
		line = append(line, fmt.Sprintf("%.1f,%.1f", x+slot/2, y))
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="#222"/>`, x+slot/2, y)
	}
	fmt.Fprintf(&b, `<polyline id="runtime" points="%s" fill="none" stroke="#222" stroke-width="2"/>`, strings.Join(line, " "))
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12">%s applied (bars, log scale)</text>`, 4, chartMargin-8, plural.Of(maxChanges, "change", "changes"))
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" text-anchor="end">%s run time (line, log scale)</text>`, chartWidth-4, chartMargin-8,
		html.EscapeString(time.Duration(maxSecs*float64(time.Second)).Round(time.Millisecond).String()))
	timeAxis(&b, runs, slot, loc)
	legend(&b, runs)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// minBar is the height of the bar of a run that changed nothing.
const minBar = 3

// logScale is v's height on a logarithmic scale whose top is top: 0 for
// 0, 1 for top.
func logScale(v, top float64) float64 {
	if v <= 0 || top <= 0 {
		return 0
	}
	return math.Log1p(v) / math.Log1p(top)
}

// timeAxis labels the first, the middle and the last run with when they
// ended, in loc.
func timeAxis(b *strings.Builder, runs []store.Run, slot float64, loc *time.Location) {
	ticks := []int{0, len(runs) / 2, len(runs) - 1}
	anchors := []string{"start", "middle", "end"}
	for k, i := range ticks {
		if k > 0 && i == ticks[k-1] {
			continue
		}
		x := float64(chartMargin) + slot*float64(i) + slot/2
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#888"/>`, x, chartBottom, x, chartBottom+5)
		fmt.Fprintf(b, `<text class="tick" x="%.1f" y="%d" font-size="11" text-anchor="%s">%s</text>`, x, chartBottom+18, anchors[k],
			html.EscapeString(runs[i].End.In(loc).Format("Jan 2 15:04 MST")))
	}
}

// legend names the colours of the results the runs have.
func legend(b *strings.Builder, runs []store.Run) {
	has := map[string]bool{}
	for i := range runs {
		has[runs[i].Result] = true
	}
	x := chartMargin
	for _, r := range results {
		if !has[r.result] {
			continue
		}
		fmt.Fprintf(b, `<rect class="legend" x="%d" y="%d" width="10" height="10" fill="%s"/>`, x, chartHeight-18, r.color)
		fmt.Fprintf(b, `<text x="%d" y="%d" font-size="11">%s</text>`, x+14, chartHeight-9, r.label)
		x += 24 + 7*len(r.label)
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="11">bars: changes; line: run time; oldest left</text>`, x+10, chartHeight-9)
}
