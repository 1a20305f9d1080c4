// Scale-ups under way: which instances each created, their record in pool tags, resuming them.

package agentpool

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/klog/v2"
)

// scaleUp is one capacity increase of a pool, from the write until its
// instances are settled (or, after a failure, removed). A pool may have
// several under way: GPU VMs take 10-30 minutes to boot, and the core does
// not wait for one scale-up of a pool before it asks for the next.
type scaleUp struct {
	seq    uint64          // issue order within the pool
	before map[string]bool // instance keys the pool had when it was issued
	delta  int
	atomic bool
	// deadline is when its instances must have come up.
	deadline time.Time
	// owned is frozen when the scale-up ends: the keys it created. Until
	// then its instances are worked out by claimInstances.
	owned map[string]bool
	ended bool
	// began is when its write was issued; zero for a scale-up taken up
	// from the pool's tag after a restart.
	began time.Time
}

// claimInstances works out which instances each scale-up created, in issue
// order. Azure numbers a pool's instances in creation order (scale set
// instance IDs, AKS machine names) and assigns them when it accepts a
// capacity write, so a scale-up's instances are numbered above everything
// its snapshot held and below what the next scale-up's snapshot held: it
// owns the first delta such instances no earlier scale-up claims. An ended
// scale-up keeps what it had when it ended, so instances it has deleted
// since do not shift the claims of later ones. Where lists disagree (a
// stale snapshot, an instance not listed yet) a scale-up claims less, never
// another's and never more than it asked for: an instance a failed
// scale-up leaves behind becomes a node the autoscaler removes once it is
// unneeded, while deleting another scale-up's VM would break that one.
func claimInstances(ups []*scaleUp, instances []vm) map[*scaleUp][]vm {
	sorted := append([]vm(nil), instances...)
	sort.Slice(sorted, func(a, b int) bool { return keyBefore(sorted[a].key, sorted[b].key) })
	claimed := map[string]bool{}
	out := make(map[*scaleUp][]vm, len(ups))
	for i, u := range ups {
		if u.owned != nil {
			for k := range u.owned {
				claimed[k] = true
			}
			for _, v := range sorted {
				if u.owned[v.key] {
					out[u] = append(out[u], v)
				}
			}
			continue
		}
		from := highestKey(u.before)
		to, bounded := "", false
		if i+1 < len(ups) {
			to, bounded = highestKey(ups[i+1].before), true
		}
		for _, v := range sorted {
			if len(out[u]) == u.delta || (bounded && keyBefore(to, v.key)) {
				break
			}
			if u.before[v.key] || claimed[v.key] || (from != "" && !keyBefore(from, v.key)) {
				continue
			}
			claimed[v.key] = true
			out[u] = append(out[u], v)
		}
	}
	return out
}

// highestKey is the newest instance key of a snapshot, "" when it is empty.
func highestKey(keys map[string]bool) string {
	top := ""
	for k := range keys {
		if top == "" || keyBefore(top, k) {
			top = k
		}
	}
	return top
}

// keyBefore orders instance keys by creation: scale set instance IDs and
// AKS machine names (a fixed prefix and a zero-padded base-36 number) grow
// with each instance, so the shorter, then the smaller, is the older.
func keyBefore(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return strings.Compare(a, b) < 0
}

// newScaleUp numbers a scale-up about to be written. writeMu must be held,
// so that issue order is the order of the writes.
func (g *nodeGroup) newScaleUp(before map[string]bool, delta int, atomic bool, deadline time.Time) *scaleUp {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.scaleUpSeq++
	return &scaleUp{seq: g.scaleUpSeq, before: before, delta: delta, atomic: atomic, deadline: deadline, began: time.Now()}
}

// beginScaleUp records a scale-up whose capacity write Azure accepted.
func (g *nodeGroup) beginScaleUp(u *scaleUp) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.scaleUps = append(g.scaleUps, u)
	sort.Slice(g.scaleUps, func(a, b int) bool { return g.scaleUps[a].seq < g.scaleUps[b].seq })
}

// scaleUpTagPrefix names the pool tags that record scale-ups under way, one
// each: "<prefix><seq>" = "<newest instance key before>;<delta>;<atomic>;<deadline, Unix seconds>".
// Written with the capacity change, removed once the scale-up has ended and
// its cleanup is done, so a restarted autoscaler takes up what the last one
// left: it follows the instances and keeps the scale-up all-or-nothing.
const scaleUpTagPrefix = "muster.dev_scale-up_"

func (u *scaleUp) tag() (string, string) {
	return fmt.Sprintf("%s%d", scaleUpTagPrefix, u.seq),
		fmt.Sprintf("%s;%d;%t;%d", highestKey(u.before), u.delta, u.atomic, u.deadline.Unix())
}

// withTag returns the pool's tags with u's record added.
func withTag(tags map[string]string, u *scaleUp) map[string]string {
	out := make(map[string]string, len(tags)+1)
	for k, v := range tags {
		out[k] = v
	}
	k, v := u.tag()
	out[k] = v
	return out
}

// parseScaleUpTag reads a scale-up record back; ok is false for other tags.
func parseScaleUpTag(k, v string) (u *scaleUp, ok bool, err error) {
	rest, ok := strings.CutPrefix(k, scaleUpTagPrefix)
	if !ok {
		return nil, false, nil
	}
	seq, err := strconv.ParseUint(rest, 10, 64)
	if err != nil {
		return nil, true, fmt.Errorf("tag %s: the sequence number %q is not a number", k, rest)
	}
	f := strings.Split(v, ";")
	if len(f) != 4 {
		return nil, true, fmt.Errorf("tag %s: value %q is not <newest key>;<delta>;<atomic>;<deadline>", k, v)
	}
	delta, err1 := strconv.Atoi(f[1])
	atomic, err2 := strconv.ParseBool(f[2])
	deadline, err3 := strconv.ParseInt(f[3], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil || delta <= 0 {
		return nil, true, fmt.Errorf("tag %s: value %q: delta must be a positive number, atomic a bool and the deadline Unix seconds: %v", k, v, err)
	}
	before := map[string]bool{}
	if f[0] != "" {
		before[f[0]] = true // claims need only the newest key
	}
	return &scaleUp{seq: seq, before: before, delta: delta, atomic: atomic, deadline: time.Unix(deadline, 0)}, true, nil
}

// untag removes u's record from the pool (a record left behind would make
// a restarted autoscaler follow a scale-up that has ended). writeMu must be
// held.
func (g *nodeGroup) untag(ctx context.Context, u *scaleUp) error {
	k, _ := u.tag()
	st, err := g.fresh()
	if err != nil {
		return err
	}
	if _, ok := st.tags[k]; !ok {
		return nil
	}
	tags := make(map[string]string, len(st.tags))
	for tk, tv := range st.tags {
		if tk != k {
			tags[tk] = tv
		}
	}
	tctx, cancel := g.ctx()
	op, err := g.be.setTags(tctx, st, tags)
	cancel()
	if err != nil {
		return err
	}
	if err := g.waitLRO(ctx, op, time.Now().Add(g.m.requestTimeout)); err != nil && !isPreempted(err) {
		return err
	}
	return nil
}

// resume takes up the scale-ups a previous autoscaler left recorded on the
// pool (tags as first read): each is followed by its instances' states to
// its end, then finished as if this process had issued it.
func (g *nodeGroup) resume(tags map[string]string) {
	var found []*scaleUp
	for k, v := range tags {
		u, ok, err := parseScaleUpTag(k, v)
		if !ok {
			continue
		}
		if err != nil {
			klog.ErrorS(err, "Ignoring a scale-up record on the pool", "pool", g.id)
			continue
		}
		found = append(found, u)
	}
	if len(found) == 0 {
		return
	}
	g.mu.Lock()
	for _, u := range found {
		g.scaleUpSeq = max(g.scaleUpSeq, u.seq)
	}
	g.mu.Unlock()
	for _, u := range found {
		g.beginScaleUp(u)
		klog.InfoS("Taking up a scale-up recorded on the pool", "pool", g.id, "delta", u.delta, "atomic", u.atomic, "deadline", u.deadline)
	}
	for _, u := range found {
		g.m.goWatch(func(ctx context.Context) {
			outcome := g.followInstances(ctx, u, u.deadline)
			if ctx.Err() == nil {
				g.finishScaleUp(ctx, u, outcome)
			}
		})
	}
}

// ownedBy returns the instances u created, as far as instances shows them.
func (g *nodeGroup) ownedBy(u *scaleUp, instances []vm) []vm {
	g.mu.Lock()
	defer g.mu.Unlock()
	return claimInstances(g.scaleUps, instances)[u]
}

// endScaleUp freezes what u created and reports whether another scale-up
// of the pool is still under way. Once none is, the ledger is emptied: the
// next scale-up's snapshot holds every instance there is.
func (g *nodeGroup) endScaleUp(u *scaleUp, owned []vm) (othersRunning bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	u.ended = true
	u.owned = make(map[string]bool, len(owned))
	for _, v := range owned {
		u.owned[v.key] = true
	}
	for _, o := range g.scaleUps {
		if !o.ended {
			othersRunning = true
		}
	}
	if !othersRunning {
		g.scaleUps = nil
	}
	return othersRunning
}
