// Tests of SummarizeReasons: Filter reasons counted into one message, most frequent first.

package gang

import "testing"

func TestSummarizeReasons(t *testing.T) {
	cases := []struct {
		count map[string]int
		nodes int
		want  string
	}{
		{map[string]int{"node(s) had too few free GPUs": 3, "Insufficient cpu": 5, "node(s) were outside": 3}, 11,
			"0/11 nodes are available: 5 Insufficient cpu, 3 node(s) had too few free GPUs, 3 node(s) were outside"},
		{map[string]int{"gang ns/g needs 5 members x 8 GPUs in one clique": 4}, 4, "gang ns/g needs 5 members x 8 GPUs in one clique"},
		{map[string]int{"node(s) had too few free GPUs": 4}, 4, "0/4 nodes are available: 4 node(s) had too few free GPUs"},
		{nil, 2, "0/2 nodes are available"},
	}
	for _, tc := range cases {
		if got := SummarizeReasons(tc.count, tc.nodes); got != tc.want {
			t.Errorf("SummarizeReasons(%v) = %q, want %q", tc.count, got, tc.want)
		}
	}
}
