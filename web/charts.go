package web

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/poller/policy"
)

// The charts are drawn on the server as SVG, so that they need no script;
// the templates lay out what is computed here. Each chart also carries its
// numbers as a table, for screen readers and for anyone who wants them.

// Chart geometry, in SVG user units; CSS scales the drawing to the page.
const (
	chartWidth  = 640
	chartHeight = 220
	padLeft     = 64
	padRight    = 8
	padTop      = 12
	padBottom   = 34
)

// chart is a bar chart.
type chart struct {
	Title   string // the accessible name
	Desc    string // what it shows, in a sentence
	Empty   string // shown instead of the drawing when there is no data
	Width   int
	Height  int
	Bars    []bar
	YTicks  []tick
	XLabels []tick
	Table   []datum
	Head    [2]string // the table's column headings
}

// bar is one bar; Label is its tooltip and accessible text.
type bar struct {
	X, Y, W, H float64
	Class      string
	Label      string
}

// tick is a label on an axis, with its grid line's position.
type tick struct {
	X, Y float64
	Text string
}

// datum is one row of a chart's table.
type datum struct {
	Label, Value string
}

// barChart lays out values as bars; labels name each bar on the x axis
// (an empty label is not drawn, to keep dense axes legible). counts says
// that the values are whole numbers (items, polls), whose axis must not
// read 0.5 or 2.5.
func barChart(values []float64, labels []string, classes []string, format func(float64) string, counts bool) chart {
	c := chart{Width: chartWidth, Height: chartHeight}
	top := niceCeil(slicesMax(values))
	if counts {
		top = wholeTop(top)
	}
	plotW := float64(chartWidth - padLeft - padRight)
	plotH := float64(chartHeight - padTop - padBottom)
	step := plotW / float64(len(values))
	gap := math.Min(step*0.2, 8)
	for i, v := range values {
		h := 0.0
		if top > 0 {
			h = v / top * plotH
		}
		x := padLeft + float64(i)*step
		c.Bars = append(c.Bars, bar{
			X: round1(x + gap/2), Y: round1(padTop + plotH - h), W: round1(step - gap), H: round1(h),
			Class: classes[i%len(classes)],
			Label: labels[i] + ": " + format(v),
		})
		if labels[i] != "" {
			c.XLabels = append(c.XLabels, tick{X: round1(x + step/2), Y: chartHeight - 10, Text: labels[i]})
		}
	}
	for _, f := range []float64{0, 0.5, 1} {
		c.YTicks = append(c.YTicks, tick{X: padLeft - 6, Y: round1(padTop + plotH*(1-f)), Text: format(top * f)})
	}
	return c
}

// wholeTop is the top of a count axis: the axis is labelled at 0, half
// and the top, so the top must be an even whole number.
func wholeTop(top float64) float64 {
	if top <= 0 {
		return 0
	}
	t := math.Ceil(top)
	if math.Mod(t, 2) != 0 {
		t++
	}
	return t
}

func slicesMax(values []float64) float64 {
	m := 0.0
	for _, v := range values {
		m = math.Max(m, v)
	}
	return m
}

// niceCeil rounds a chart's maximum up to 1, 2 or 5 times a power of ten,
// so that the axis reads in round numbers.
func niceCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p*(1+1e-9) {
			return m * p
		}
	}
	return 10 * p
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// number writes a chart's value to three significant digits without an
// exponent: 3, 2.5, 0.0417, 1230.
func number(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	scale := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(v))))
	return strconv.FormatFloat(math.Round(v*scale)/scale, 'f', -1, 64)
}

// hourLabels names the hours of day, every third one drawn.
func hourLabels() []string {
	labels := make([]string, 24)
	for h := range labels {
		if h%3 == 0 {
			labels[h] = fmt.Sprintf("%02d", h)
		}
	}
	return labels
}

// rateChart shows when a source posts, by hour of day (UTC). It uses the
// hourly rates the scheduler learnt when there are any; otherwise it counts
// the archive's items by the hour they were posted: their own date when
// they carry one, else when Dynamo first saw them, leaving out the items of
// the first version, whose first sighting says nothing of when they were
// posted.
func (h *Server) rateChart(ctx context.Context, src *dynamo.Source, versions []dynamo.Version) (chart, error) {
	if st, err := policy.LoadState(src.State.Schedule); err == nil && st.Polls > 0 {
		rates := st.HourlyRates()
		c := barChart(rates[:], hourLabels(), []string{"rate"}, number, false)
		c.Title = "Posting rate by hour of day (UTC)"
		c.Desc = fmt.Sprintf("New items expected per hour at each hour of day, as the scheduler learnt them over %d polls; about %.1f items a day in all.", st.Polls, st.Rate())
		c.Head = [2]string{"Hour (UTC)", "Items per hour"}
		c.Table = hourTable(rates[:], func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) })
		return c, nil
	}
	items, err := h.cfg.Store.Items(ctx, dynamo.ItemQuery{SourceID: src.ID, Max: 10000})
	if err != nil {
		return chart{}, fmt.Errorf("items of %s: %w", src.ID, err)
	}
	var first time.Time
	if len(versions) > 0 {
		first = versions[len(versions)-1].SeenAt
	}
	counts, total := postingHours(items, first)
	c := barChart(counts[:], hourLabels(), []string{"rate"}, number, true)
	c.Title = "Items posted by hour of day (UTC)"
	c.Desc = fmt.Sprintf("How many of the archive's items were posted at each hour of day: %d items with a known hour (their own date, or when Dynamo first saw them after the first version).", total)
	c.Head = [2]string{"Hour (UTC)", "Items"}
	c.Table = hourTable(counts[:], func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) })
	if total == 0 {
		c.Empty = "No posting times are known yet: the items carry no dates and no version after the first has brought new ones."
	}
	return c, nil
}

// postingHours counts items by the UTC hour they were posted.
func postingHours(items []dynamo.ArchivedItem, firstVersion time.Time) (counts [24]float64, total int) {
	for _, it := range items {
		at, ok := it.Item.Date()
		if !ok {
			if !it.FirstSeen.After(firstVersion) {
				continue
			}
			at = it.FirstSeen
		}
		counts[at.UTC().Hour()]++
		total++
	}
	return counts, total
}

func hourTable(values []float64, format func(float64) string) []datum {
	rows := make([]datum, len(values))
	for h, v := range values {
		rows[h] = datum{Label: fmt.Sprintf("%02d:00", h), Value: format(v)}
	}
	return rows
}

// outcomes are the poll statuses in the order the charts show them.
var outcomes = []dynamo.PollStatus{dynamo.StatusChanged, dynamo.StatusUnchanged, dynamo.StatusNotModified, dynamo.StatusError}

// pollsChart counts a source's recent polls by outcome.
func pollsChart(polls []dynamo.PollLogEntry) chart {
	counts := make([]float64, len(outcomes))
	labels := make([]string, len(outcomes))
	classes := make([]string, len(outcomes))
	for i, o := range outcomes {
		labels[i] = outcomeLabel(o)
		classes[i] = "st-" + string(o)
		for _, p := range polls {
			if p.Status == o {
				counts[i]++
			}
		}
	}
	c := barChart(counts, labels, classes, number, true)
	c.Title = "Recent polls by outcome"
	c.Desc = fmt.Sprintf("The outcomes of the last %d polls.", len(polls))
	c.Head = [2]string{"Outcome", "Polls"}
	for i := range outcomes {
		c.Table = append(c.Table, datum{Label: labels[i], Value: strconv.Itoa(int(counts[i]))})
	}
	if len(polls) == 0 {
		c.Empty = "No polls yet."
	}
	return c
}

func outcomeLabel(s dynamo.PollStatus) string {
	switch s {
	case dynamo.StatusChanged:
		return "changed"
	case dynamo.StatusUnchanged:
		return "unchanged"
	case dynamo.StatusNotModified:
		return "not modified"
	case dynamo.StatusError:
		return "error"
	}
	return string(s)
}

// strip is the recent polls in time order, one cell each, colored by
// outcome (and named in each cell's title, not by color alone).
type strip struct {
	Width, Height int
	Cells         []bar
	From, To      time.Time
}

func pollStrip(polls []dynamo.PollLogEntry) strip {
	s := strip{Width: chartWidth, Height: 28}
	if len(polls) == 0 {
		return s
	}
	w := float64(chartWidth) / float64(len(polls))
	// Polls come newest first; the strip reads left to right in time.
	for i := range polls {
		p := polls[len(polls)-1-i]
		label := when(p.At) + ": " + outcomeLabel(p.Status)
		if p.NewItems > 0 {
			label += ", " + newItems(p.NewItems)
		}
		if p.Error != "" {
			label += ": " + p.Error
		}
		s.Cells = append(s.Cells, bar{X: round1(float64(i) * w), Y: 0, W: round1(math.Max(w-1, 1)), H: 28, Class: "st-" + string(p.Status), Label: label})
	}
	s.From, s.To = polls[len(polls)-1].At, polls[0].At
	return s
}
