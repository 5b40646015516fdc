package statuspage

import (
	"fmt"
	"html"
	"html/template"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/state"
)

// The chart's size and how many runs it draws.
const (
	chartWidth, chartHeight = 640, 220
	chartMargin             = 40
	chartRuns               = 30
)

// barColor colours a run's bar by its result.
var barColor = map[string]string{state.RunSuccess: "#4a7bd0", state.RunHeld: "#d08a1e", state.RunFailure: "#c0392b"}

// Chart draws the changes (bars, left scale) and the run time (line,
// right scale) of the last runs as an SVG element, oldest on the left.
func Chart(runs []state.Run) template.HTML {
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
	plotW, plotH := float64(chartWidth-2*chartMargin), float64(chartHeight-2*chartMargin)
	slot := plotW / float64(len(runs))
	bottom := float64(chartHeight - chartMargin)
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#888"/>`, chartMargin, bottom, chartWidth-chartMargin, bottom)
	var line []string
	for i := range runs {
		r := &runs[i]
		h := plotH * float64(r.Total()) / float64(maxChanges)
		x := float64(chartMargin) + slot*float64(i)
		color := barColor[r.Result]
		if color == "" {
			color = "#888"
		}
		fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %d changes, %s, %s</title></rect>`,
			x+slot*0.15, bottom-h, slot*0.7, h, color, html.EscapeString(r.End.UTC().Format(time.DateTime)), html.EscapeString(r.Org),
			r.Total(), html.EscapeString(r.Result), r.Duration().Round(time.Millisecond))
		y := bottom - plotH*r.Duration().Seconds()/maxSecs
		line = append(line, fmt.Sprintf("%.1f,%.1f", x+slot/2, y))
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="#222"/>`, x+slot/2, y)
	}
	fmt.Fprintf(&b, `<polyline id="runtime" points="%s" fill="none" stroke="#222" stroke-width="2"/>`, strings.Join(line, " "))
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12">%d changes</text>`, 4, chartMargin-8, maxChanges)
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" text-anchor="end">%s run time</text>`, chartWidth-4, chartMargin-8,
		html.EscapeString(time.Duration(maxSecs*float64(time.Second)).Round(time.Millisecond).String()))
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" text-anchor="middle">bars: changes applied (blue ok, orange held, red failed); line: run time; oldest left</text>`,
		chartWidth/2, chartHeight-10)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
