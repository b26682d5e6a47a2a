package metrics

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
)

// latencyBuckets are the upper bounds (seconds) of the latency histograms:
// from 250 µs, where a check answers, to 10 s.
func latencyBuckets() []float64 {
	return []float64{0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}
}

// histograms is a family of Prometheus histograms with cumulative `le`
// buckets, one per label set. VictoriaMetrics' own histograms use vmrange
// buckets, from which Prometheus cannot compute quantiles; this small type
// gives Prometheus users histogram_quantile at the cost of one atomic add
// per bucket bound crossed.
type histograms struct {
	name   string
	help   string
	bounds []float64
	mu     sync.Mutex
	series map[string]*histogram // by label set, e.g. `route="x",code="200"`
}

type histogram struct {
	counts []atomic.Uint64 // per bucket, not cumulative; last is +Inf
	sum    atomic.Uint64   // float64 bits
}

func newHistograms(name, help string) *histograms {
	return &histograms{name: name, help: help, bounds: latencyBuckets(), series: map[string]*histogram{}}
}

// get returns the histogram of one label set, creating it on first use.
func (f *histograms) get(labels string) *histogram {
	f.mu.Lock()
	defer f.mu.Unlock()
	h, ok := f.series[labels]
	if !ok {
		h = &histogram{counts: make([]atomic.Uint64, len(f.bounds)+1)}
		f.series[labels] = h
	}
	return h
}

// observe records one value in h.
func (f *histograms) observe(h *histogram, v float64) {
	i := sort.SearchFloat64s(f.bounds, v) // first bound >= v: "le"
	h.counts[i].Add(1)
	for {
		old := h.sum.Load()
		if h.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// write renders the family in the Prometheus text format.
func (f *histograms) write(w io.Writer) {
	f.mu.Lock()
	labels := make([]string, 0, len(f.series))
	for l := range f.series {
		labels = append(labels, l)
	}
	f.mu.Unlock()
	sort.Strings(labels)
	wroteFamily := false
	for _, l := range labels {
		h := f.get(l)
		var total uint64
		for i := range h.counts {
			total += h.counts[i].Load()
		}
		if total == 0 {
			continue // created ahead of use, nothing observed yet
		}
		if !wroteFamily {
			family(w, f.name, "histogram", f.help)
			wroteFamily = true
		}
		sep := ","
		if l == "" {
			sep = ""
		}
		var cum uint64
		for i, b := range f.bounds {
			cum += h.counts[i].Load()
			fmt.Fprintf(w, "%s_bucket{%s%sle=\"%s\"} %d\n", f.name, l, sep, strconv.FormatFloat(b, 'g', -1, 64), cum)
		}
		cum += h.counts[len(f.bounds)].Load()
		fmt.Fprintf(w, "%s_bucket{%s%sle=\"+Inf\"} %d\n", f.name, l, sep, cum)
		braces := ""
		if l != "" {
			braces = "{" + l + "}"
		}
		fmt.Fprintf(w, "%s_sum%s %s\n", f.name, braces, strconv.FormatFloat(math.Float64frombits(h.sum.Load()), 'g', -1, 64))
		fmt.Fprintf(w, "%s_count%s %d\n", f.name, braces, cum)
	}
}
