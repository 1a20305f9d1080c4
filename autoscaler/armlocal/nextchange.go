// NextChange: the earliest time the simulated cloud changes by itself, for a stepped clock.

package armlocal

import "time"

// NextChange reads the server's clock (Options.Clock) and returns its time
// now and next, the earliest time strictly after now at which the cloud
// changes by itself, with ok; ok is false (next zero) when nothing is
// pending. A simulator that steps its trace clock uses it to jump straight
// to the cloud's next event instead of waiting for it.
//
// It covers everything the server derives from the clock:
//   - an instance booting: a scale set VM or agent pool machine leaves
//     Creating (Succeeded, or Failed under a partial-provisioning fault, when
//     a failed agent pool machine also vanishes and its pool turns Failed) at
//     its creation time plus its provisioning delay;
//   - an instance's deletion completing (scale-in, DeleteInstances,
//     DeleteMachines, DeleteInstance, a spot eviction under the Delete
//     policy): it stops being Deleting and is gone at the deletion time plus
//     the deletion delay;
//   - a long-running operation (scale set update or instance deletion, agent
//     pool update or machine deletion) settling: its async status leaves
//     InProgress when the last of its instances settles, which covers its
//     created instances that are being deleted before they finished booting;
//     the scale set's and agent pool's provisioning state (Updating,
//     Scaling) follow their instances;
//   - a throttling or server-error window (InjectThrottleFor,
//     InjectServerErrorFor) ending.
//
// It does not cover what does not run on the clock: a request held by
// InjectDelay is held for wall time (a request in flight, not a change of
// the cloud's state), and faults counted in requests, partial provisioning,
// preemption and quotas change only when a request or a caller does
// something.
func (s *Server) NextChange() (now, next time.Time, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now = s.now()
	s.settleLocked(now)
	consider := func(t time.Time) {
		if t.After(now) && (!ok || t.Before(next)) {
			next, ok = t, true
		}
	}
	instances := func(p *pool) {
		for _, i := range p.instances {
			if i.gone {
				continue
			}
			if i.deleteAt.IsZero() {
				consider(i.readyAt)
			} else {
				consider(i.deleteAt)
			}
		}
	}
	for _, ss := range s.scaleSets {
		instances(&ss.pool)
	}
	for _, ap := range s.pools {
		instances(&ap.pool)
	}
	for _, op := range s.ops {
		if t, pending := op.settlesAt(now); pending {
			consider(t)
		}
	}
	for _, f := range s.faults {
		if !f.until.IsZero() {
			consider(f.until)
		}
	}
	return now, next, ok
}

// settlesAt is when an operation still InProgress at now stops being so,
// as its instances stand at now: the last boot or deletion it waits for.
// An instance of it that goes away earlier (deleted while booting) is a
// change of its own, after which the time is computed again.
func (o *operation) settlesAt(now time.Time) (time.Time, bool) {
	if st, _, _ := o.status(now); st != "InProgress" {
		return time.Time{}, false
	}
	var last time.Time
	for _, i := range o.creates {
		if !i.gone && i.readyAt.After(last) {
			last = i.readyAt
		}
	}
	for _, i := range o.deletes {
		if !i.gone && !i.deleteAt.IsZero() && i.deleteAt.After(last) {
			last = i.deleteAt
		}
	}
	return last, last.After(now)
}
