// Tests of firstStepDifference: where two step logs first part, a pod elsewhere, a step later, a shorter log, many lines cut.

package replay

import (
	"strings"
	"testing"
)

func TestFirstStepDifference(t *testing.T) {
	const base = `== minute 0.0
node cpu000000
pod training/etl-1-0 pending
== minute 1.0
node cpu000000
node gpu-light000000 taints=nvidia.com/gpu:NoSchedule
pod training/etl-1-0 on cpu000000
pod training/retrain-1-0 on gpu-light000000
== minute 2.0
node cpu000000
`
	for _, tc := range []struct {
		name, other, want string
	}{
		{name: "same", other: base, want: ""},
		{name: "a pod elsewhere", other: strings.Replace(base, "retrain-1-0 on gpu-light000000", "retrain-1-0 pending", 1),
			want: "minute 1.0 | minute 1.0\n  < pod training/retrain-1-0 on gpu-light000000\n  > pod training/retrain-1-0 pending"},
		{name: "a step later", other: strings.Replace(base, "== minute 1.0", "== minute 1.5", 1),
			want: "minute 1.0 | minute 1.5"},
		{name: "shorter", other: strings.TrimSuffix(base, "== minute 2.0\nnode cpu000000\n"),
			want: "minute 2.0 | (no step)\n  < node cpu000000"},
		{name: "many lines cut", other: strings.ReplaceAll(base, "node cpu000000", "node cpu000001"),
			want: "minute 0.0 | minute 0.0\n  < node cpu000000\n  > node cpu000001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := firstStepDifference(strings.NewReader(base), strings.NewReader(tc.other), 8)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	got, err := firstStepDifference(strings.NewReader(base), strings.NewReader(strings.ReplaceAll(base, "training/", "other/")), 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := "minute 0.0 | minute 0.0\n  < pod training/etl-1-0 pending\n  > pod other/etl-1-0 pending"; got != want {
		t.Errorf("one line at most: got\n%s\nwant\n%s", got, want)
	}
	got, _ = firstStepDifference(strings.NewReader(base), strings.NewReader(strings.ReplaceAll(strings.ReplaceAll(base, "training/", "other/"), "cpu000000", "cpu9")), 1)
	if want := "minute 0.0 | minute 0.0\n  < node cpu000000\n  < ...\n  > node cpu9\n  > ..."; got != want {
		t.Errorf("cut after one line: got\n%s\nwant\n%s", got, want)
	}
}
