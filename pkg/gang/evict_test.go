// Tests of SafeToEvict: nobody at or below min, the newest members beyond min above it, ties broken by name.

package gang

import (
	"fmt"
	"testing"
	"time"
)

func TestSafeToEvict(t *testing.T) {
	t0 := time.Unix(1000, 0)
	p := func(name string, s int) Placed {
		return Placed{Name: name, Created: t0.Add(time.Duration(s) * time.Second)}
	}
	cases := []struct {
		name  string
		bound []Placed
		min   int32
		want  map[string]bool
	}{
		{name: "at min: nobody", bound: []Placed{p("a", 0), p("b", 1)}, min: 2, want: map[string]bool{"a": false, "b": false}},
		{name: "below min: nobody", bound: []Placed{p("a", 0)}, min: 2, want: map[string]bool{"a": false}},
		{name: "above min: the newest beyond min", bound: []Placed{p("c", 5), p("a", 0), p("d", 9), p("b", 1)}, min: 2,
			want: map[string]bool{"a": false, "b": false, "c": true, "d": true}},
		{name: "ties by name", bound: []Placed{p("y", 0), p("x", 0)}, min: 1, want: map[string]bool{"x": false, "y": true}},
	}
	for _, tc := range cases {
		if got := SafeToEvict(tc.bound, tc.min); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// ProtectedOnceBound names members whose SafeToEvict verdict is false
// whichever of the members are bound: for every subset bound, each named
// member bound in it is judged false.
func TestProtectedOnceBoundHoldsForEveryBoundSubset(t *testing.T) {
	t0 := time.Unix(1000, 0)
	members := []Placed{{"e", t0.Add(4 * time.Second)}, {"b", t0}, {"a", t0}, {"d", t0.Add(2 * time.Second)}, {"c", t0.Add(time.Second)}}
	for _, min := range []int32{0, 1, 3, 5, 7} {
		protected := ProtectedOnceBound(members, min)
		if want := int(min); len(protected) != want && !(min > 5 && len(protected) == 5) {
			t.Errorf("min %d: %d protected, want %d", min, len(protected), want)
		}
		for set := 0; set < 1<<len(members); set++ {
			var bound []Placed
			for i, m := range members {
				if set&(1<<i) != 0 {
					bound = append(bound, m)
				}
			}
			verdicts := SafeToEvict(bound, min)
			for name := range protected {
				if safe, isBound := verdicts[name]; isBound && safe {
					t.Errorf("min %d, bound %v: %s named protected once bound, judged safe to evict", min, bound, name)
				}
			}
		}
	}
	if got := ProtectedOnceBound(members, 2); !got["a"] || !got["b"] || len(got) != 2 {
		t.Errorf("min 2: %v, want the oldest two, a and b (ties by name)", got)
	}
}
