package gang

import (
	"strings"
	"testing"
	"time"
)

func TestStranded(t *testing.T) {
	s := Spec{Key: Key{Namespace: "ml", Name: "llm"}, MinMember: 4, MaxMember: 6, Timeout: time.Minute}
	for _, tc := range []struct {
		name                     string
		bound, succeeded, failed int
		want                     bool
	}{
		{name: "nothing bound", bound: 0},
		{name: "one bound", bound: 1, want: true},
		{name: "min-1 bound", bound: 3, want: true},
		{name: "min bound", bound: 4},
		{name: "above min", bound: 5},
		{name: "finishing: members succeeded", bound: 2, succeeded: 2},
		{name: "failing: a member failed", bound: 3, failed: 1},
	} {
		if got := s.Stranded(tc.bound, tc.succeeded, tc.failed); got != tc.want {
			t.Errorf("%s: Stranded = %v, want %v", tc.name, got, tc.want)
		}
	}
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if evict, left, _ := s.StrandedVerdict(2, since, since.Add(40*time.Second)); evict || left != 20*time.Second {
		t.Errorf("within the timeout: evict %v left %s, want false 20s", evict, left)
	}
	evict, _, msg := s.StrandedVerdict(2, since, since.Add(time.Minute))
	if !evict || !strings.Contains(msg, "gang ml/llm had 2 of min 4 members bound for 1m0s") {
		t.Errorf("at the timeout: evict %v msg %q", evict, msg)
	}
}
