// Tables for the pure decision of a gang's sync: the step, the marks, a request's end, the backoff, the request plan.

package provisioning

import (
	"errors"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/shortfall"
)

func TestDecide(t *testing.T) {
	short := &Want{Min: 3, Verdict: shortfall.Verdict{Ask: true, Short: shortfall.Need{Members: 2}}}
	fits := &Want{Min: 3, Verdict: shortfall.Verdict{NoReason: shortfall.ReasonFits}}
	placed := &Want{Min: 3, Verdict: shortfall.Verdict{NoReason: shortfall.ReasonPlaced}}
	level := &Want{Min: 3, Verdict: shortfall.Verdict{NoReason: shortfall.ReasonLevel}}
	for _, tc := range []struct {
		name string
		f    gangFacts
		want step
	}{
		{"no members, a request live", gangFacts{Want: short, Live: "r"}, stepGone},
		{"no members, no verdict", gangFacts{Adopted: true, AdoptedMin: 2, Live: "r"}, stepGone},
		{"quorum bound", gangFacts{Members: 4, Bound: 3, Want: short, Live: "r", Booked: true}, stepPlaced},
		{"quorum bound although the verdict still asks", gangFacts{Members: 3, Bound: 3, Want: short}, stepPlaced},
		{"adopted, quorum bound while away", gangFacts{Members: 3, Bound: 2, Adopted: true, AdoptedMin: 2, Live: "r"}, stepPlacedAway},
		{"adopted, short, no verdict yet", gangFacts{Members: 3, Bound: 1, Adopted: true, AdoptedMin: 2, Live: "r"}, stepKeep},
		{"no verdict, nothing adopted", gangFacts{Members: 3}, stepKeep},
		{"fits on its booked nodes", gangFacts{Members: 3, Want: fits, Live: "r", Booked: true}, stepAwaitBooked},
		{"fits, nothing booked", gangFacts{Members: 3, Want: fits, Live: "r"}, stepNoRequest},
		{"fits, booked but no live request", gangFacts{Members: 3, Want: fits, Booked: true}, stepNoRequest},
		{"quorum placed by the verdict, below min bound", gangFacts{Members: 3, Bound: 2, Want: placed, Live: "r"}, stepNoRequest},
		{"kept for its extras, quorum still bound", gangFacts{Members: 5, Bound: 3, Want: placed, Extras: true}, stepPlaced},
		{"kept for its extras, quorum lost", gangFacts{Members: 5, Bound: 2, Want: placed, Extras: true}, stepQuorumLost},
		{"kept for its extras, gone", gangFacts{Want: placed, Extras: true}, stepGone},
		{"level not provisionable", gangFacts{Members: 3, Want: level, Live: "r", Booked: true}, stepNoRequest},
		{"short", gangFacts{Members: 3, Bound: 1, Want: short}, stepRequest},
		{"short with a live request", gangFacts{Members: 3, Want: short, Live: "r", Booked: true}, stepRequest},
	} {
		if got := decide(tc.f); got != tc.want {
			t.Errorf("%s: decide = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestNoRequestMarks(t *testing.T) {
	for reason, want := range map[string]marking{
		shortfall.ReasonFits:      markInRoom,
		shortfall.ReasonPlaced:    markHoldExtras,
		shortfall.ReasonLevel:     markHold,
		shortfall.ReasonUnfixable: markHold,
		shortfall.ReasonQuorum:    markHold,
		shortfall.ReasonInvalid:   markHold,
	} {
		if got := noRequestMarks(reason); got != want {
			t.Errorf("noRequestMarks(%s) = %d, want %d", reason, got, want)
		}
	}
}

func conds(cs ...metav1.Condition) map[string]metav1.Condition {
	out := map[string]metav1.Condition{}
	for _, c := range cs {
		out[c.Type] = c
	}
	return out
}

func cond(t string, status metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: t, Status: status, Reason: reason, Message: msg}
}

var notFound = apierrors.NewNotFound(schema.GroupResource{Group: "autoscaling.x-k8s.io", Resource: "provisioningrequests"}, "r")

func TestRequestViewEndAndCovers(t *testing.T) {
	provisioned := cond(autoscalingv1.Provisioned, metav1.ConditionTrue, "Provisioned", "added 2 nodes")
	for _, tc := range []struct {
		name        string
		v           requestView
		why, outcom string
		never       bool
		covers3     bool
	}{
		{"deleted", requestView{Err: notFound}, "was deleted", OutcomeDeleted, false, false},
		{"unreadable", requestView{Err: errors.New("timeout")}, "", "", false, false},
		{"accepted", requestView{Pods: 3, Conds: conds(cond(autoscalingv1.Accepted, metav1.ConditionTrue, "", ""))}, "", "", false, false},
		{"provisioned for 3", requestView{Pods: 3, Conds: conds(provisioned)}, "", "", false, true},
		{"provisioned for 2", requestView{Pods: 2, Conds: conds(provisioned)}, "", "", false, false},
		{"failed", requestView{Pods: 3, Conds: conds(cond(autoscalingv1.Failed, metav1.ConditionTrue, "Quota", "out of quota"))}, "failed: out of quota", OutcomeFailed, false, false},
		{"failed, never fits", requestView{Pods: 3, Conds: conds(cond(autoscalingv1.Failed, metav1.ConditionTrue, ReasonNeverFits, "no pool"))}, "failed: no pool", OutcomeFailed, true, false},
		{"booking expired", requestView{Pods: 3, Conds: conds(provisioned, cond(autoscalingv1.BookingExpired, metav1.ConditionTrue, "", "timed out"))}, "ended its booking: timed out", OutcomeExpired, false, false},
		{"capacity revoked", requestView{Pods: 3, Conds: conds(provisioned, cond(autoscalingv1.CapacityRevoked, metav1.ConditionTrue, "", "spot reclaimed"))}, "had its capacity revoked: spot reclaimed", OutcomeRevoked, false, false},
	} {
		why, outcome, never := tc.v.end()
		if why != tc.why || outcome != tc.outcom || never != tc.never {
			t.Errorf("%s: end = %q, %q, %v; want %q, %q, %v", tc.name, why, outcome, never, tc.why, tc.outcom, tc.never)
		}
		if got := tc.v.covers(3); got != tc.covers3 {
			t.Errorf("%s: covers(3) = %v, want %v", tc.name, got, tc.covers3)
		}
	}
}

// The backoff of a gang whose requests keep ending: it starts at First,
// doubles with each replacement up to Ceiling, starts afresh once a
// request is served, and a gang no pool can ever hold waits the Ceiling,
// doubling up to NeverFitsCeiling; when the autoscaler watches the pools
// for its failure, the backstop, or until it flags them changed.
func TestReplacementBackoff(t *testing.T) {
	b := Backoff{First: time.Second, Ceiling: 4 * time.Second, NeverFitsCeiling: 16 * time.Second, NeverFitsBackstop: 100 * time.Second}
	t0 := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	type end struct {
		at                   int
		never                bool
		watched, changed     bool
		wantNoticed, wantDue bool
		wantGen              int
		wantWait             time.Duration
	}
	for _, tc := range []struct {
		name string
		ends []end
	}{
		{"doubling up to the ceiling", []end{
			{at: 0, wantNoticed: true, wantWait: time.Second},
			{at: 0, wantWait: time.Second}, // seen again: not noticed twice
			{at: 1, wantDue: true, wantGen: 1, wantWait: 2 * time.Second},
			{at: 2, wantNoticed: true, wantGen: 1, wantWait: 2 * time.Second},
			{at: 4, wantDue: true, wantGen: 2, wantWait: 4 * time.Second},
			{at: 5, wantNoticed: true, wantGen: 2, wantWait: 4 * time.Second},
			{at: 9, wantDue: true, wantGen: 3, wantWait: 4 * time.Second},
		}},
		{"never fits: the ceiling, doubling to its own", []end{
			{at: 0, never: true, wantNoticed: true, wantWait: 4 * time.Second},
			{at: 3, never: true, wantWait: 4 * time.Second},
			{at: 4, never: true, wantDue: true, wantGen: 1, wantWait: 8 * time.Second},
			{at: 5, never: true, wantNoticed: true, wantGen: 1, wantWait: 8 * time.Second},
			{at: 13, never: true, wantDue: true, wantGen: 2, wantWait: 16 * time.Second},
			{at: 14, never: true, wantNoticed: true, wantGen: 2, wantWait: 16 * time.Second},
			{at: 30, never: true, wantDue: true, wantGen: 3, wantWait: 16 * time.Second},
		}},
		{"never fits, pools watched: the backstop", []end{
			{at: 0, never: true, watched: true, wantNoticed: true, wantWait: 100 * time.Second},
			{at: 99, never: true, watched: true, wantWait: 100 * time.Second},
			{at: 100, never: true, watched: true, wantDue: true, wantGen: 1, wantWait: 16 * time.Second},
			{at: 101, never: true, watched: true, wantNoticed: true, wantGen: 1, wantWait: 100 * time.Second},
		}},
		{"never fits, pools watched: due once they changed", []end{
			{at: 0, never: true, watched: true, wantNoticed: true, wantWait: 100 * time.Second},
			{at: 5, never: true, watched: true, wantWait: 100 * time.Second},
			{at: 6, never: true, watched: true, changed: true, wantDue: true, wantGen: 1, wantWait: 16 * time.Second},
		}},
		{"a changed flag on an end that is no never-fits failure changes nothing", []end{
			{at: 0, watched: true, changed: true, wantNoticed: true, wantWait: time.Second},
		}},
		{"due at once when the end is seen late", []end{
			{at: 0, wantNoticed: true, wantWait: time.Second},
			{at: 100, wantDue: true, wantGen: 1, wantWait: 2 * time.Second},
		}},
	} {
		var r replacement
		for i, e := range tc.ends {
			next, noticed, due := r.ended(at(e.at), "failed", true, e.never, requestView{PoolsWatched: e.watched, PoolsChanged: e.changed}, b)
			if noticed != e.wantNoticed || due != e.wantDue || next.gen != e.wantGen || next.wait != e.wantWait {
				t.Errorf("%s, end %d at %ds: noticed %v due %v gen %d wait %v; want %v %v %d %v", tc.name, i, e.at,
					noticed, due, next.gen, next.wait, e.wantNoticed, e.wantDue, e.wantGen, e.wantWait)
			}
			r = next
		}
	}
}

func TestPlanRequest(t *testing.T) {
	b := Backoff{First: time.Second, Ceiling: 4 * time.Second, NeverFitsCeiling: 16 * time.Second}
	now := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	provisioned := func(pods int64) requestView {
		return requestView{Pods: pods, Conds: conds(cond(autoscalingv1.Provisioned, metav1.ConditionTrue, "", ""))}
	}
	accepted := requestView{Pods: 2, Conds: conds(cond(autoscalingv1.Accepted, metav1.ConditionTrue, "", ""))}
	failed := requestView{Pods: 2, Conds: conds(cond(autoscalingv1.Failed, metav1.ConditionTrue, "Quota", "no quota"))}
	expired := requestView{Pods: 2, Conds: conds(cond(autoscalingv1.Provisioned, metav1.ConditionTrue, "", ""),
		cond(autoscalingv1.BookingExpired, metav1.ConditionTrue, "CapacityReservationTimeExpired", "released"))}
	for _, tc := range []struct {
		name       string
		base, live string
		v          requestView
		short      int64
		r          replacement
		want       requestPlan
		wantR      replacement
	}{
		{name: "no live request: create one", base: "g-2", short: 2,
			want: requestPlan{Name: "g-2"}},
		{name: "live request for the shortfall: keep it", base: "g-2", live: "g-2", v: accepted, short: 2,
			want: requestPlan{Name: "g-2"}},
		{name: "shortfall changed: replace", base: "g-1", live: "g-2", v: accepted, short: 1,
			want: requestPlan{Name: "g-1"}},
		{name: "shortfall shrank as the provisioned nodes came: keep", base: "g-1", live: "g-2", v: provisioned(2), short: 1,
			want: requestPlan{Name: "g-2"}},
		{name: "shortfall grew beyond the provisioned request: replace", base: "g-3", live: "g-2", v: provisioned(2), short: 3,
			want: requestPlan{Name: "g-3"}},
		{name: "served: the backoff starts afresh", base: "g-2-r1", live: "g-2-r1", v: provisioned(2), short: 2,
			r:    replacement{gen: 1, wait: 2 * time.Second},
			want: requestPlan{Name: "g-2-r1"}, wantR: replacement{gen: 1}},
		{name: "failed: wait, members held on the failed request", base: "g-2", live: "g-2", v: failed, short: 2,
			want:  requestPlan{Name: "g-2", Wait: true, KeepMarks: true, Why: "failed: no quota", Noticed: true, Outcome: OutcomeFailed},
			wantR: replacement{wait: time.Second, due: now.Add(time.Second), why: "failed: no quota", failed: true}},
		{name: "failed, backoff passed: replaced under the next generation", base: "g-2", live: "g-2", v: failed, short: 2,
			r:     replacement{wait: time.Second, due: now, why: "failed: no quota", failed: true},
			want:  requestPlan{Name: "g-2-r1", Replacing: true, Why: "failed: no quota", Outcome: OutcomeFailed},
			wantR: replacement{gen: 1, wait: 2 * time.Second, why: "failed: no quota", failed: true}},
		{name: "deleted while the shortfall changed: still waits", base: "g-1", live: "g-2", v: requestView{Err: notFound}, short: 1,
			want:  requestPlan{Name: "g-2", Wait: true, KeepMarks: true, Why: "was deleted", Noticed: true, Outcome: OutcomeDeleted},
			wantR: replacement{wait: time.Second, due: now.Add(time.Second), why: "was deleted"}},
		{name: "booking expired: wait, members held under the hold name", base: "g-2", live: "g-2", v: expired, short: 2,
			want:  requestPlan{Name: "g-2", Wait: true, Why: "ended its booking: released", Noticed: true, Outcome: OutcomeExpired},
			wantR: replacement{wait: time.Second, due: now.Add(time.Second), why: "ended its booking: released"}},
		{name: "unreadable: kept as it is", base: "g-2", live: "g-2", v: requestView{Err: errors.New("timeout")}, short: 2,
			want: requestPlan{Name: "g-2"}},
	} {
		plan, r := planRequest(tc.base, tc.live, tc.v, tc.short, tc.r, now, b)
		if plan != tc.want {
			t.Errorf("%s: plan %+v, want %+v", tc.name, plan, tc.want)
		}
		if r != tc.wantR {
			t.Errorf("%s: replacement %+v, want %+v", tc.name, r, tc.wantR)
		}
	}
}

// New nodes may come for a gang only while its verdict asks for them and
// the autoscaler has not failed its request (the backoff after a failure);
// a gang with no verdict yet may, since its first attempt fails before its
// shortfall is worked out.
func TestNodesMayCome(t *testing.T) {
	now := time.Unix(1000, 0)
	short := &Want{Min: 3, Verdict: shortfall.Verdict{Ask: true, Short: shortfall.Need{Members: 2}, Message: "short 2 of 3 members"}}
	fitsNow := &Want{Min: 3, Verdict: shortfall.Verdict{NoReason: shortfall.ReasonFits, Message: "3 more members fit now"}}
	never := &Want{Min: 3, Verdict: shortfall.Verdict{NoReason: shortfall.ReasonUnfixable, Message: "members fit no node for a reason new nodes cannot fix: taint"}}
	failed := &replacement{due: now.Add(time.Minute), why: "failed: max node group size reached", failed: true}
	deleted := &replacement{due: now.Add(time.Minute), why: "was deleted"}
	replaced := &replacement{gen: 1, failed: true} // its replacement is out: no end seen since
	const atMax = "no node pool can add capacity for 2 pods now (gpu: max node group size reached); will retry"
	for _, tc := range []struct {
		name   string
		want   *Want
		r      *replacement
		notNow string
		may    bool
		whyHas string
	}{
		{"no verdict yet", nil, nil, "", true, ""},
		{"short, request out", short, nil, "", true, ""},
		{"short, the autoscaler can add no nodes now", short, nil, "the cluster-autoscaler cannot add them now: " + atMax, false, "the cluster-autoscaler cannot add them now: " + atMax},
		{"short, request failed, backing off", short, failed, "", false, "its ProvisioningRequest failed: max node group size reached"},
		{"short, request deleted, backing off", short, deleted, "", true, ""},
		{"short, failed request replaced", short, replaced, "", true, ""},
		{"members fit now: no request", fitsNow, nil, "", false, "no nodes were asked for it: 3 more members fit now"},
		{"nodes would not help", never, nil, "", false, "new nodes cannot fix"},
	} {
		may, why := nodesMayCome(tc.want, tc.r, tc.notNow)
		if may != tc.may || !strings.Contains(why, tc.whyHas) || (tc.may && why != "") {
			t.Errorf("%s: may %v (%q), want %v (%q)", tc.name, may, why, tc.may, tc.whyHas)
		}
	}
	// ended records whether the end was a failure the autoscaler reported.
	b := Backoff{First: time.Second, Ceiling: time.Minute, NeverFitsCeiling: time.Hour}
	if r, _, _ := (replacement{}).ended(now, "failed: quota", true, false, requestView{}, b); !r.failed {
		t.Error("a failed request's replacement state does not say it failed")
	}
	if r, _, _ := (replacement{}).ended(now, "was deleted", false, false, requestView{}, b); r.failed {
		t.Error("a deleted request's replacement state says it failed")
	}
}

// A live request cannot be served now when the autoscaler says no pool can
// add its nodes, or when no autoscaler has answered it for unansweredAfter
// (on the writer's clock, from the request's created-at annotation).
func TestNotNowFor(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	notFound := map[string]metav1.Condition{autoscalingv1.Provisioned: {Type: autoscalingv1.Provisioned, Status: metav1.ConditionFalse, Reason: autoscalingv1.CapacityIsNotFound, Message: "gpu: max node group size reached"}}
	accepted := map[string]metav1.Condition{autoscalingv1.Accepted: {Type: autoscalingv1.Accepted, Status: metav1.ConditionTrue}}
	for _, tc := range []struct {
		name    string
		conds   map[string]metav1.Condition
		created time.Time
		whyHas  string
	}{
		{"no pool can add them", notFound, now, "the cluster-autoscaler cannot add them now: gpu: max node group size reached"},
		{"accepted, long ago", accepted, now.Add(-time.Hour), ""},
		{"no answer yet, just written", nil, now.Add(-time.Second), ""},
		{"no answer past the bound", nil, now.Add(-unansweredAfter), "no cluster-autoscaler has answered its ProvisioningRequest muster-a in 2m0s"},
		{"no answer, creation unknown (adopted without the annotation)", nil, time.Time{}, ""},
	} {
		why := notNowFor("muster-a", tc.conds, tc.created, now)
		if (tc.whyHas == "") != (why == "") || !strings.Contains(why, tc.whyHas) {
			t.Errorf("%s: %q, want %q", tc.name, why, tc.whyHas)
		}
	}
}

// A launcher is held until the autoscaler answers its gang's request, and
// after a failure because no pool could ever hold the gang; any other
// answer leaves it to the ordinary scale-up.
func TestHoldLauncher(t *testing.T) {
	provisioned := cond(autoscalingv1.Provisioned, metav1.ConditionTrue, "CapacityIsProvisioned", "added 2 nodes")
	for _, tc := range []struct {
		name  string
		conds map[string]metav1.Condition
		hold  bool
	}{
		{"unread or unanswered", nil, true},
		{"accepted only", conds(cond(autoscalingv1.Accepted, metav1.ConditionTrue, "Accepted", "")), true},
		{"provisioned", conds(provisioned), false},
		{"no pool can add them now", conds(cond(autoscalingv1.Provisioned, metav1.ConditionFalse, autoscalingv1.CapacityIsNotFound, "max node group size reached")), false},
		{"failed: out of quota", conds(cond(autoscalingv1.Failed, metav1.ConditionTrue, "Quota", "out of quota")), false},
		{"failed: never fits", conds(cond(autoscalingv1.Provisioned, metav1.ConditionFalse, autoscalingv1.CapacityIsNotFound, ""), cond(autoscalingv1.Failed, metav1.ConditionTrue, ReasonNeverFits, "no pool holds it")), true},
		{"provisioned, booking expired", conds(provisioned, cond(autoscalingv1.BookingExpired, metav1.ConditionTrue, "", "timed out")), false},
	} {
		if got := holdLauncher(tc.conds); got != tc.hold {
			t.Errorf("%s: holdLauncher = %v, want %v", tc.name, got, tc.hold)
		}
	}
}

// A gang's members above min go to spot scale-up before its quorum binds
// only once the autoscaler provisioned the quorum's nodes, and not after
// the request ended.
func TestExtrasGoEarly(t *testing.T) {
	provisioned := cond(autoscalingv1.Provisioned, metav1.ConditionTrue, "CapacityIsProvisioned", "added 2 nodes")
	for _, tc := range []struct {
		name  string
		conds map[string]metav1.Condition
		early bool
	}{
		{"unread or unanswered", nil, false},
		{"accepted only", conds(cond(autoscalingv1.Accepted, metav1.ConditionTrue, "Accepted", "")), false},
		{"provisioned", conds(provisioned), true},
		{"no pool can add them now", conds(cond(autoscalingv1.Provisioned, metav1.ConditionFalse, autoscalingv1.CapacityIsNotFound, "max node group size reached")), false},
		{"failed", conds(cond(autoscalingv1.Failed, metav1.ConditionTrue, ReasonNeverFits, "no pool holds it")), false},
		{"provisioned, booking expired", conds(provisioned, cond(autoscalingv1.BookingExpired, metav1.ConditionTrue, "", "timed out")), false},
		{"provisioned, capacity revoked", conds(provisioned, cond(autoscalingv1.CapacityRevoked, metav1.ConditionTrue, "", "gone")), false},
	} {
		if got := extrasGoEarly(tc.conds); got != tc.early {
			t.Errorf("%s: extrasGoEarly = %v, want %v", tc.name, got, tc.early)
		}
	}
}
