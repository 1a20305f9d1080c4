// Tests of stranded members: a gang bound below min unless finishing or failing, and the earliest stranded-since time recorded, bad values skipped.

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
	if !evict || !strings.Contains(msg, "gang ml/llm had 2 of min 4 members bound since 2026-01-01T00:00:00.000Z, past its timeout of 1m0s") {
		t.Errorf("at the timeout: evict %v msg %q", evict, msg)
	}
}

// TestStrandedSince: the earliest recorded time wins (members annotated by
// different schedulers), bad values are skipped, a future time is no later
// than now, and a time survives its own rendering to the millisecond.
func TestStrandedSince(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := now.Add(-90*time.Second + 123*time.Millisecond)
	for _, tc := range []struct {
		name   string
		values []string
		want   time.Time
		ok     bool
	}{
		{name: "none", values: nil},
		{name: "empty and bad", values: []string{"", "yesterday", "2026-13-01T00:00:00Z"}},
		{name: "one", values: []string{FormatStrandedSince(at)}, want: at, ok: true},
		{name: "earliest wins", values: []string{FormatStrandedSince(now.Add(-time.Second)), "", FormatStrandedSince(at), "bad"}, want: at, ok: true},
		{name: "future clamps to now", values: []string{FormatStrandedSince(now.Add(time.Hour))}, want: now, ok: true},
		{name: "other zone", values: []string{"2026-01-01T12:58:30.123+01:00"}, want: at, ok: true},
	} {
		got, ok := StrandedSince(tc.values, now)
		if ok != tc.ok || !got.Equal(tc.want) {
			t.Errorf("%s: StrandedSince = %s %v, want %s %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
