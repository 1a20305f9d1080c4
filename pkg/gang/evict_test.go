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
