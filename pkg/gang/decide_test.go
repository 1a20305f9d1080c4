// Tests of the per-member decisions: PreEnqueue admission, Permit verdicts, the time left to wait, queue order, Summarize, and the Tracker's counts through a gang's life.

package gang

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestAdmit(t *testing.T) {
	s := Spec{Key: Key{"ns", "g"}, MinMember: 4, MaxMember: 6}
	tests := []struct {
		name string
		c    Counts
		want Admission
		msg  string
	}{
		{name: "quorum not met", c: Counts{Members: 3}, want: AwaitQuorum, msg: "waits for quorum: fewer than 4 members exist"},
		{name: "quorum met", c: Counts{Members: 4}, want: Admit},
		{name: "elastic room left", c: Counts{Members: 8, Placed: 5}, want: Admit},
		{name: "at max", c: Counts{Members: 8, Placed: 6}, want: AwaitRoomUnderMax, msg: "at its max: 6 of 6 members placed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, msg := s.Admit(tt.c)
			if got != tt.want || !strings.Contains(msg, tt.msg) {
				t.Errorf("Admit = %v %q, want %v %q", got, msg, tt.want, tt.msg)
			}
		})
	}
}

func TestPermit(t *testing.T) {
	s := Spec{MinMember: 3, MaxMember: 5}
	tests := []struct {
		name string
		c    Counts // the other members
		want PermitVerdict
	}{
		{name: "first member waits", c: Counts{Members: 2}, want: PermitWait},
		{name: "second member waits", c: Counts{Members: 2, Waiting: 1}, want: PermitWait},
		{name: "third member completes the quorum", c: Counts{Members: 2, Waiting: 2}, want: PermitBindAll},
		{name: "bound members count toward the quorum", c: Counts{Members: 2, Placed: 2}, want: PermitBindAll},
		{name: "elastic member binds directly", c: Counts{Members: 4, Placed: 3}, want: PermitBind},
		{name: "over max is refused", c: Counts{Members: 6, Placed: 5}, want: PermitRejectOverMax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.Permit(tt.c); got != tt.want {
				t.Errorf("Permit = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRemaining(t *testing.T) {
	s := Spec{Timeout: 10 * time.Second}
	start := time.Unix(1000, 0)
	if got := s.Remaining(start, start.Add(4*time.Second)); got != 6*time.Second {
		t.Errorf("Remaining = %s, want 6s", got)
	}
	if got := s.Remaining(start, start.Add(time.Minute)); got != time.Millisecond {
		t.Errorf("Remaining after the timeout = %s, want 1ms", got)
	}
}

func TestLess(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tests := []struct {
		name string
		a, b QueueKey
		want bool
	}{
		{name: "higher priority first", a: QueueKey{Priority: 10, Since: t0.Add(time.Hour)}, b: QueueKey{Priority: 1, Since: t0}, want: true},
		{name: "older gang first", a: QueueKey{Since: t0, Gang: "b"}, b: QueueKey{Since: t0.Add(time.Second), Gang: "a"}, want: true},
		{name: "same age: members of one gang together", a: QueueKey{Since: t0, Gang: "a", Enqueued: t0.Add(time.Hour)}, b: QueueKey{Since: t0, Gang: "b", Enqueued: t0}, want: true},
		{name: "same gang: arrival order", a: QueueKey{Since: t0, Gang: "a", Enqueued: t0.Add(2)}, b: QueueKey{Since: t0, Gang: "a", Enqueued: t0.Add(1)}, want: false},
		{name: "same gang, same arrival: name order", a: QueueKey{Since: t0, Gang: "a", Namespace: "ns", Name: "a-0"}, b: QueueKey{Since: t0, Gang: "a", Namespace: "ns", Name: "a-1"}, want: true},
		{name: "same gang, same arrival: name order, reversed", a: QueueKey{Since: t0, Gang: "a", Namespace: "ns", Name: "a-1"}, b: QueueKey{Since: t0, Gang: "a", Namespace: "ns", Name: "a-0"}, want: false},
		{name: "arrival before name", a: QueueKey{Since: t0, Enqueued: t0.Add(1), Namespace: "ns", Name: "a"}, b: QueueKey{Since: t0, Enqueued: t0, Namespace: "ns", Name: "b"}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Less(tt.a, tt.b); got != tt.want {
				t.Errorf("Less = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	s := Spec{Key: Key{"ns", "g"}, MinMember: 4, MaxMember: 6}
	tests := []struct {
		name        string
		o           Observed
		everPlaced  bool
		lastFailure string
		phase       string
		reason      string
		placed      bool
		msg         string
	}{
		{name: "awaiting quorum", o: Observed{Counts: Counts{Members: 2}}, phase: PhasePending, reason: ReasonAwaitingQuorum, msg: "2 of 4 members exist"},
		{name: "unschedulable", o: Observed{Counts: Counts{Members: 4}}, lastFailure: "no room", phase: PhasePending, reason: ReasonUnschedulable, msg: "no room"},
		{name: "holding reservations", o: Observed{Counts: Counts{Members: 4, Placed: 1, Waiting: 2}}, phase: PhasePending, reason: ReasonWaitingForRoom, msg: "2 holding reservations"},
		{name: "quorum placed", o: Observed{Counts: Counts{Members: 5, Placed: 4}}, phase: PhaseScheduling, reason: ReasonQuorumPlaced, placed: true, msg: "1 more wait for room"},
		{name: "running", o: Observed{Counts: Counts{Members: 4, Placed: 4}, Running: 4}, phase: PhaseRunning, reason: ReasonQuorumPlaced, placed: true},
		{name: "at max", o: Observed{Counts: Counts{Members: 7, Placed: 6}}, phase: PhaseScheduling, reason: ReasonAtMax, placed: true, msg: "6 of max 6"},
		{name: "members lost", o: Observed{Counts: Counts{Members: 3, Placed: 3}}, everPlaced: true, phase: PhaseUnknown, reason: ReasonMembersLost, msg: "only 3 of min 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.Summarize(tt.o, tt.everPlaced, tt.lastFailure)
			if got.Phase != tt.phase || got.Reason != tt.reason || got.Placed != tt.placed || !strings.Contains(got.Message, tt.msg) {
				t.Errorf("Summarize = %+v, want phase %s reason %s placed %v message with %q", got, tt.phase, tt.reason, tt.placed, tt.msg)
			}
		})
	}
}

func member(uid, node string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid)}, Spec: v1.PodSpec{NodeName: node}}
}

func TestTrackerLifecycle(t *testing.T) {
	now := time.Unix(1000, 0)
	tr := NewTracker(func() time.Time { return now })
	k := Key{"ns", "g"}
	pods := []*v1.Pod{member("a", ""), member("b", ""), member("c", ""), member("d", "node-1")}

	if c := tr.Count(k, pods, ""); c != (Counts{Members: 4, Placed: 1}) {
		t.Fatalf("initial counts = %+v", c)
	}
	first := tr.Wait(k, "a")
	now = now.Add(time.Second)
	if again := tr.Wait(k, "b"); !again.Equal(first) {
		t.Errorf("second waiter's start = %v, want the first's %v", again, first)
	}
	if c := tr.Count(k, pods, "c"); c != (Counts{Members: 3, Placed: 1, Waiting: 2}) {
		t.Errorf("counts excluding c = %+v", c)
	}
	allowed := tr.PermitAll(k, "c")
	if len(allowed) != 2 {
		t.Errorf("PermitAll allowed %v, want a and b", allowed)
	}
	if c := tr.Count(k, pods, ""); c.Placed != 4 || c.Waiting != 0 {
		t.Errorf("after PermitAll counts = %+v, want 4 placed", c)
	}
	// Once bound, members count from the API, not from the tracker.
	pods[0].Spec.NodeName = "node-2"
	tr.Count(k, pods, "")
	if was, _ := tr.Release(k, "a"); was {
		t.Error("a was reported waiting after it was permitted")
	}

	tr.Wait(k, "x")
	rejected, _ := tr.Fail(k, "no room", 10*time.Second, tr.Attempt(k))
	if len(rejected) != 1 || rejected[0] != "x" {
		t.Errorf("Fail returned %v, want [x]", rejected)
	}
	if reason, left, ok := tr.BackingOff(k); !ok || reason != "no room" || left != 10*time.Second {
		t.Errorf("BackingOff = %q %s %v", reason, left, ok)
	}
	tr.Unblock(k)
	if _, _, ok := tr.BackingOff(k); ok {
		t.Error("still backing off after Unblock")
	}
	if tr.LastFailure(k) != "no room" {
		t.Error("Unblock dropped the last failure")
	}
	now = now.Add(time.Hour)
	tr.Forget(k)
	if tr.LastFailure(k) != "" {
		t.Error("Forget kept state")
	}
}
