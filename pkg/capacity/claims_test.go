// Tests of ClaimGPUs: fullest nodes first, large shapes before small ones, launchers and members no node takes claiming nothing.

package capacity

import (
	"maps"
	"testing"
)

func TestClaimGPUs(t *testing.T) {
	s8, s4, s1 := &Shape{Key: "8", GPUs: 8}, &Shape{Key: "4", GPUs: 4}, &Shape{Key: "1", GPUs: 1}
	launcher := &Shape{Key: "launcher"}
	cases := []struct {
		name string
		q    Quorum
		free map[string]int64
		want map[string]int64
	}{
		{name: "fullest node first", q: Quorum{{Shape: s1, Count: 3}}, free: map[string]int64{"a": 8, "b": 4, "c": 2},
			want: map[string]int64{"c": 2, "b": 1}},
		{name: "launcher claims nothing", q: Quorum{{Shape: launcher, Count: 1}, {Shape: s1, Count: 2}}, free: map[string]int64{"a": 8},
			want: map[string]int64{"a": 2}},
		{name: "large shapes first, small ones fill the gaps", q: Quorum{{Shape: s8, Count: 1}, {Shape: s4, Count: 1}, {Shape: s1, Count: 3}},
			free: map[string]int64{"a": 8, "b": 6, "c": 1},
			want: map[string]int64{"a": 8, "b": 6, "c": 1}},
		{name: "a node too small for a member is skipped", q: Quorum{{Shape: s4, Count: 2}}, free: map[string]int64{"a": 3, "b": 8},
			want: map[string]int64{"b": 8}},
		{name: "members no node takes claim nothing", q: Quorum{{Shape: s8, Count: 3}}, free: map[string]int64{"a": 8, "b": 7},
			want: map[string]int64{"a": 8}},
		{name: "no free GPUs", q: Quorum{{Shape: s1, Count: 1}}, free: map[string]int64{"a": 0}, want: nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ClaimGPUs(tc.q, tc.free); !maps.Equal(got, tc.want) {
				t.Errorf("ClaimGPUs = %v, want %v", got, tc.want)
			}
		})
	}
}
