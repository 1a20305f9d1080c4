// Package statemetrics reports how many entries the plugins' in-memory state
// holds, by plugin and kind (gangs tracked, members seen, requests...), as
// the gauge muster_scheduler_state_entries, read at scrape time. State keyed
// by a pod, gang or node must go when the object goes; this gauge is how an
// operator, and the soak test, see that it does.
package statemetrics

import (
	"sort"
	"strings"
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

// Source counts one plugin's state entries by kind.
type Source func() map[string]int

var (
	mu      sync.Mutex
	sources = map[any]named{}
	once    sync.Once

	entriesDesc = metrics.NewDesc("muster_scheduler_state_entries",
		"Entries in the scheduler plugins' in-memory state, by plugin and kind; state of objects that are gone is pruned.",
		[]string{"plugin", "kind"}, nil, metrics.ALPHA, "")
)

type named struct {
	plugin string
	source Source
}

// Register adds a plugin's source under key (the plugin), replacing one
// registered under the same key. The gauge is registered on first use.
func Register(key any, plugin string, s Source) {
	once.Do(func() { legacyregistry.CustomMustRegister(&collector{}) })
	mu.Lock()
	defer mu.Unlock()
	sources[key] = named{plugin, s}
}

// Unregister drops the source under key (its plugin stopped).
func Unregister(key any) {
	mu.Lock()
	defer mu.Unlock()
	delete(sources, key)
}

// Totals sums the entries of every registered source, keyed "plugin/kind".
func Totals() map[string]int {
	mu.Lock()
	list := make([]named, 0, len(sources))
	for _, n := range sources {
		list = append(list, n)
	}
	mu.Unlock()
	out := map[string]int{}
	for _, n := range list {
		for kind, v := range n.source() {
			out[n.plugin+"/"+kind] += v
		}
	}
	return out
}

type collector struct{ metrics.BaseStableCollector }

func (c *collector) DescribeWithStability(ch chan<- *metrics.Desc) { ch <- entriesDesc }

func (c *collector) CollectWithStability(ch chan<- metrics.Metric) {
	totals := Totals()
	keys := make([]string, 0, len(totals))
	for k := range totals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		plugin, kind, _ := strings.Cut(k, "/")
		ch <- metrics.NewLazyConstMetric(entriesDesc, metrics.GaugeValue, float64(totals[k]), plugin, kind)
	}
}
