// Tests of the bench table's last lines, the throughput ratios.

package throughput

import (
	"reflect"
	"strings"
	"testing"

	"github.com/muster-project/muster/test/bench"
)

func TestRatioLines(t *testing.T) {
	all := bench.Scenarios(true)
	// pods/s and scheduling-only pods/s of every scenario: mixed is the
	// worst gang scenario in pods/s, and against its twin (300/250); in
	// scheduling alone gang512 is the worst against its twin (500/400).
	figures := map[string][2]float64{
		"plain": {250, 400}, "gang8": {450, 450}, "gang64": {400, 500}, "gang512": {320, 500}, "mixed": {300, 520},
		"upstream8": {180, 190}, "upstream64": {200, 300}, "upstream512": {200, 400}, "upstream-mixed": {250, 260},
	}
	rowsOf := func(scs []bench.Scenario, schedOnly bool) []row {
		var rows []row
		for _, sc := range scs {
			f, ok := figures[sc.Name]
			if !ok {
				t.Fatalf("no figures for scenario %s", sc.Name)
			}
			r := row{name: sc.Name, podsPerSec: f[0]}
			if schedOnly {
				r.schedPodsPerSec = f[1]
			}
			rows = append(rows, r)
		}
		return rows
	}
	only := func(names ...string) []bench.Scenario {
		scs, err := selected(all, strings.Join(names, ","))
		if err != nil {
			t.Fatal(err)
		}
		return scs
	}
	for _, tc := range []struct {
		name      string
		scenarios []bench.Scenario
		schedOnly bool
		want      []string
	}{
		{name: "every scenario, both throughputs", scenarios: all, schedOnly: true, want: []string{
			"gang64/plain throughput ratio: 1.60",
			"gang/plain throughput ratio: 1.20",
			"muster/upstream gang throughput ratio: 1.20",
			"muster/upstream gang scheduling throughput ratio (pods created first): 1.25",
		}},
		{name: "--sched-only=false leaves the scheduling-only line out", scenarios: all, want: []string{
			"gang64/plain throughput ratio: 1.60",
			"gang/plain throughput ratio: 1.20",
			"muster/upstream gang throughput ratio: 1.20",
		}},
		{name: "no upstream twins", scenarios: only("plain", "gang8", "gang512"), schedOnly: true, want: []string{
			"gang/plain throughput ratio: 1.28",
		}},
		{name: "a twin pair without plain pods", scenarios: only("gang512", "upstream512"), schedOnly: true},
		{name: "one pair and plain pods", scenarios: only("plain", "gang512", "upstream512"), schedOnly: true, want: []string{
			"gang/plain throughput ratio: 1.28",
			"muster/upstream gang throughput ratio: 1.60",
			"muster/upstream gang scheduling throughput ratio (pods created first): 1.25",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ratioLines(tc.scenarios, rowsOf(tc.scenarios, tc.schedOnly))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ratio lines:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
