// Tests of Decide: a gang short by exactly what does not fit, in the roomiest domain of its required level, and the reasons it asks for nothing.

package shortfall

import (
	"errors"
	"strings"
	"testing"
)

func TestDecide(t *testing.T) {
	cases := []struct {
		name     string
		gang     Facts
		want     Need // zero: no hint
		noReason string
		msg      string
	}{
		{name: "short by exactly what does not fit", gang: Facts{Min: 8, Max: 8, Exists: 8, Room: map[string]int64{"": 5}},
			want: Need{Members: 3}, msg: "short 3 of 8 members (room for 5)"},
		{name: "room made by shedding is said", gang: Facts{Min: 5, Max: 5, Exists: 5, Shed: 1, Room: map[string]int64{"": 4}},
			want: Need{Members: 1}, msg: "short 1 of 5 members (room for 4, counting the room of 1 members above min of other gangs, shed once the nodes come)"},
		{name: "placed members are not counted", gang: Facts{Min: 8, Max: 10, Exists: 10, Placed: 2, Room: map[string]int64{"": 1}},
			want: Need{Members: 5}},
		{name: "nothing fits: the whole quorum", gang: Facts{Min: 4, Max: 4, Exists: 4, Room: map[string]int64{"": 0}},
			want: Need{Members: 4}},
		{name: "required zone: the roomiest zone", gang: Facts{Min: 6, Max: 6, Exists: 6, Level: "zone", Provisionable: true, Room: map[string]int64{"z1": 2, "z2": 4, "z3": 4}},
			want: Need{Members: 2, Level: "zone", Domain: "z2"}, msg: "short 2 of 6 members in zone z2 (room for 4)"},
		{name: "required level with no domain yet", gang: Facts{Min: 2, Max: 2, Exists: 2, Level: "placement-group", Provisionable: true, Room: map[string]int64{}},
			want: Need{Members: 2, Level: "placement-group"}},
		{name: "no room anywhere: no domain pinned", gang: Facts{Min: 2, Max: 2, Exists: 2, Level: "placement-group", Provisionable: true, Room: map[string]int64{"cpu": 0, "gpu-heavy": 0}},
			want: Need{Members: 2, Level: "placement-group"}},
		{name: "a launcher's room in every domain pins none", gang: Facts{Min: 6, Max: 6, Exists: 6, Level: "placement-group", Provisionable: true, Anywhere: 1, Room: map[string]int64{"gpu-light": 1}},
			want: Need{Members: 5, Level: "placement-group"}},
		{name: "GPU room beside the launcher's pins that domain", gang: Facts{Min: 6, Max: 6, Exists: 6, Level: "placement-group", Provisionable: true, Anywhere: 1, Room: map[string]int64{"gpu-light": 1, "gpu-heavy": 3}},
			want: Need{Members: 3, Level: "placement-group", Domain: "gpu-heavy"}},
		{name: "fits now", gang: Facts{Min: 2, Max: 2, Exists: 2, Room: map[string]int64{"": 2}}, noReason: ReasonFits},
		{name: "quorum missing", gang: Facts{Min: 4, Max: 4, Exists: 3, Room: map[string]int64{"": 0}}, noReason: ReasonQuorum, msg: "3 of min 4 members exist"},
		{name: "quorum placed: elastic members get nothing", gang: Facts{Min: 2, Max: 8, Exists: 8, Placed: 2, Room: map[string]int64{"": 0}}, noReason: ReasonPlaced},
		{name: "invalid spec", gang: Facts{Min: 2, Max: 1, Exists: 2, Invalid: errors.New("max < min")}, noReason: ReasonInvalid, msg: "max < min"},
		{name: "pinned to a node", gang: Facts{Min: 2, Max: 2, Exists: 2, Unfixable: "pinned by kubernetes.io/hostname"}, noReason: ReasonUnfixable},
		{name: "required clique", gang: Facts{Min: 9, Max: 9, Exists: 9, Level: "clique", Room: map[string]int64{"c1": 8}}, noReason: ReasonLevel,
			msg: "nodes the autoscaler adds cannot join an existing clique"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := Decide(tc.gang)
			if tc.noReason != "" {
				if v.Ask || v.NoReason != tc.noReason {
					t.Fatalf("verdict %+v, want no hint for %s", v, tc.noReason)
				}
			} else if !v.Ask || v.Short != tc.want {
				t.Fatalf("verdict %+v, want hint %+v", v, tc.want)
			}
			if tc.msg != "" && !strings.Contains(v.Message, tc.msg) {
				t.Errorf("message %q, want it to contain %q", v.Message, tc.msg)
			}
		})
	}
}
