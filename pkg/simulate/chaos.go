// Chaos runs: the invariants checked on snapshots, their figures and table, the planned faults.

package simulate

import (
	"fmt"
	"io"
	"math/rand"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// What a chaos run must hold whatever faults it injects. Invariants checks
// them on snapshots of the cluster and the cloud taken while the run goes;
// the chaos command takes the snapshots and injects the faults.
type Invariants struct {
	// PartialBound is how long a gang may run 1..min-1 members (between
	// binds, after losing a node, before its stranded members are evicted).
	PartialBound time.Duration
	// LeakBound is how long a VM may stay Creating or Failed (a restarted
	// autoscaler's provisioning timeout included), and how long one may stay
	// unused at the end of a run (the scale-down delays).
	LeakBound time.Duration
	// Max is each pool's max size.
	Max map[string]int

	partialSince map[string]time.Duration
	partial      map[string]bool
	idleSince    map[string]time.Duration
	leaked       map[string]bool
	deletions    int
	unasked      []string
	overMax      map[string]bool
	pastMax      int
	details      []string
}

// Snapshot is the cluster and the cloud at one moment, in trace time.
type Snapshot struct {
	At time.Duration
	// Running counts each gang's members bound to a node and not being
	// deleted; Min is each gang's min.
	Running, Min map[string]int
	// PodsOnNode counts the run's pods bound to each node and not being
	// deleted.
	PodsOnNode map[string]int
	Pools      []PoolSnapshot
	// Deletions is every VM deletion the cloud has started, oldest first.
	Deletions []Deletion
}

// PoolSnapshot is one pool's size and instances.
type PoolSnapshot struct {
	Name      string
	Capacity  int
	Instances []InstanceSnapshot
}

// InstanceSnapshot is one VM; its name is its node's name.
type InstanceSnapshot struct {
	Name, State string
	Created     time.Duration
}

// Deletion is one VM deletion and who caused it: the fault injector
// (CauseInjected) or the autoscaler (any other cause).
type Deletion struct {
	Pool, Instance, Cause string
	At                    time.Duration
}

// CauseInjected marks a deletion the chaos run made itself (a lost host).
const CauseInjected = "injected"

// VM states as the cloud reports them.
const (
	instanceDeleting  = "Deleting"
	instanceSucceeded = "Succeeded"
)

// Observe checks one snapshot and returns the nodes whose VMs were deleted
// since the last one: their pods are lost (the caller plays the pod garbage
// collector for them, after this check has seen them running).
func (c *Invariants) Observe(s Snapshot) (lost []string) {
	if c.partialSince == nil {
		c.partialSince, c.partial = map[string]time.Duration{}, map[string]bool{}
		c.idleSince, c.leaked, c.overMax = map[string]time.Duration{}, map[string]bool{}, map[string]bool{}
	}
	// Partial gangs: 1..min-1 members running for longer than the bound.
	for gang, min := range s.Min {
		n := s.Running[gang]
		if n == 0 || n >= min {
			delete(c.partialSince, gang)
			continue
		}
		since, ok := c.partialSince[gang]
		if !ok {
			c.partialSince[gang] = s.At
			continue
		}
		if s.At-since > c.PartialBound && !c.partial[gang] {
			c.partial[gang] = true
			c.note(s.At, "gang %s ran %d of min %d members from minute %.1f", gang, n, min, since.Minutes())
		}
	}
	// VMs deleted unasked: the autoscaler deleted a VM whose node ran pods
	// (a drained node's pods are being deleted, so they do not count).
	for _, d := range s.Deletions[min(c.deletions, len(s.Deletions)):] {
		if d.Cause != CauseInjected && s.PodsOnNode[d.Instance] > 0 {
			c.unasked = append(c.unasked, d.Pool+"/"+d.Instance)
			c.note(d.At, "VM %s/%s deleted (%s) while %d pods ran on it", d.Pool, d.Instance, d.Cause, s.PodsOnNode[d.Instance])
		}
		lost = append(lost, d.Instance)
	}
	c.deletions = max(c.deletions, len(s.Deletions))
	// Leaked VMs, while the run goes: a VM that never came up (Creating,
	// Failed) for longer than the bound; the autoscaler must delete it.
	alive := map[string]bool{}
	for _, p := range s.Pools {
		live := 0
		for _, in := range p.Instances {
			if in.State == instanceDeleting {
				continue
			}
			live++
			key := p.Name + "/" + in.Name
			alive[key] = true
			if s.PodsOnNode[in.Name] > 0 {
				c.idleSince[key] = s.At
			} else if _, ok := c.idleSince[key]; !ok {
				c.idleSince[key] = max(in.Created, 0)
			}
			if in.State != instanceSucceeded && s.At-in.Created > c.LeakBound && !c.leaked[key] {
				c.leaked[key] = true
				c.note(s.At, "VM %s still %s since minute %.1f", key, in.State, in.Created.Minutes())
			}
		}
		// Pools past max: counted once each time a pool goes past it.
		max, known := c.Max[p.Name]
		over := known && (p.Capacity > max || live > max)
		if over && !c.overMax[p.Name] {
			c.pastMax++
			c.note(s.At, "pool %s at capacity %d with %d live VMs, max %d", p.Name, p.Capacity, live, max)
		}
		c.overMax[p.Name] = over
	}
	for key := range c.idleSince {
		if !alive[key] {
			delete(c.idleSince, key)
		}
	}
	return lost
}

// Finish checks the run's last snapshot, taken once every job has ended and
// the autoscaler has had LeakBound to scale down: a VM above its pool's
// min that has had nothing on it for that long is leaked.
func (c *Invariants) Finish(s Snapshot, poolMin map[string]int) {
	c.Observe(s)
	for _, p := range s.Pools {
		var idle []InstanceSnapshot
		live := 0
		for _, in := range p.Instances {
			if in.State == instanceDeleting {
				continue
			}
			live++
			if since, ok := c.idleSince[p.Name+"/"+in.Name]; ok && s.PodsOnNode[in.Name] == 0 && s.At-since >= c.LeakBound {
				idle = append(idle, in)
			}
		}
		// The newest idle VMs are the ones a pool at its min would keep
		// last; only those beyond min count.
		extra := min(len(idle), live-poolMin[p.Name])
		for _, in := range idle[:max(extra, 0)] {
			key := p.Name + "/" + in.Name
			if !c.leaked[key] {
				c.leaked[key] = true
				c.note(s.At, "VM %s unused since minute %.1f at the end of the run", key, c.idleSince[key].Minutes())
			}
		}
	}
}

func (c *Invariants) note(at time.Duration, format string, args ...any) {
	c.details = append(c.details, fmt.Sprintf("minute %.1f: ", at.Minutes())+fmt.Sprintf(format, args...))
}

// ChaosFigures are what one chaos run broke.
type ChaosFigures struct {
	PartialGangs, LeakedVMs, DeletedUnasked, PoolsPastMax, StarvedGangs int
	// Details says what broke and when, for the replay.
	Details []string
}

// Zero says nothing broke.
func (f ChaosFigures) Zero() bool {
	return f.PartialGangs+f.LeakedVMs+f.DeletedUnasked+f.PoolsPastMax+f.StarvedGangs == 0
}

// Figures sums up the run: the invariants seen broken, and the starved
// gangs: those of gangs that never had min members running together, or did
// not finish their run by the end (every gang of a chaos trace fits the
// cluster alone, so each must run to its end).
func (c *Invariants) Figures(run Figures, gangs, finished map[string]bool) ChaosFigures {
	f := ChaosFigures{PartialGangs: len(c.partial), LeakedVMs: len(c.leaked), DeletedUnasked: len(c.unasked), PoolsPastMax: c.pastMax}
	f.Details = append(f.Details, c.details...)
	for _, j := range run.Jobs {
		switch {
		case !gangs[j.Name]:
		case !j.AtMin:
			f.StarvedGangs++
			f.Details = append(f.Details, fmt.Sprintf("gang %s never ran min %d members together (most %d)", j.Name, j.Min, j.MostRunning))
		case !finished[j.Name]:
			f.StarvedGangs++
			f.Details = append(f.Details, fmt.Sprintf("gang %s ran min %d members but never finished its run", j.Name, j.Min))
		}
	}
	return f
}

// ChaosRun is one seed's chaos run.
type ChaosRun struct {
	Seed       int64
	Jobs, Done int
	// Faults counts the faults injected, by kind.
	Faults  map[string]int
	Figures ChaosFigures
	Wall    time.Duration
}

// WriteChaosTable writes one line per seed and the summing-up line; it
// returns the seeds that broke an invariant.
func WriteChaosTable(w io.Writer, runs []ChaosRun) (failed []int64, err error) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "seed\tjobs done\tfaults injected\tpartial gangs\tleaked VMs\tVMs deleted unasked\tpools past max\tstarved gangs\twall")
	var sum ChaosFigures
	for _, r := range runs {
		kinds := make([]string, 0, len(r.Faults))
		for k, n := range r.Faults {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(kinds)
		f := r.Figures
		fmt.Fprintf(tw, "%d\t%d/%d\t%s\t%d\t%d\t%d\t%d\t%d\t%s\n", r.Seed, r.Done, r.Jobs, strings.Join(kinds, ", "),
			f.PartialGangs, f.LeakedVMs, f.DeletedUnasked, f.PoolsPastMax, f.StarvedGangs, r.Wall.Round(time.Second))
		sum.PartialGangs += f.PartialGangs
		sum.LeakedVMs += f.LeakedVMs
		sum.DeletedUnasked += f.DeletedUnasked
		sum.PoolsPastMax += f.PoolsPastMax
		sum.StarvedGangs += f.StarvedGangs
		if !f.Zero() {
			failed = append(failed, r.Seed)
		}
	}
	if err := tw.Flush(); err != nil {
		return failed, err
	}
	for _, r := range runs {
		for _, d := range r.Figures.Details {
			fmt.Fprintf(w, "seed %d: %s\n", r.Seed, d)
		}
	}
	_, err = fmt.Fprintf(w, "chaos: runs %d, partial gangs %d, leaked VMs %d, VMs deleted unasked %d, pools past max %d, starved gangs %d\n",
		len(runs), sum.PartialGangs, sum.LeakedVMs, sum.DeletedUnasked, sum.PoolsPastMax, sum.StarvedGangs)
	return failed, err
}

// Fault kinds a chaos run injects.
const (
	FaultSchedulerKill       = "scheduler-kill"       // the leading scheduler killed; the standby takes over, it restarts
	FaultAutoscalerKill      = "autoscaler-kill"      // the autoscaler killed mid scale-up, restarted
	FaultNodeLoss            = "node-loss"            // a VM lost under a running or waiting gang
	FaultBindFailures        = "bind-failures"        // binds to one node refused for a while
	FaultThrottle            = "arm-429"              // a storm of 429s with Retry-After
	FaultServerError         = "arm-5xx"              // ARM answers 5xx
	FaultSlowARM             = "arm-slow"             // ARM answers late
	FaultPartialProvisioning = "partial-provisioning" // a scale-up provisions only some of its VMs
	FaultQuotaCut            = "quota-cut"            // the GPU family's quota halved for a while
)

// FaultKinds lists every kind, in a fixed order.
var FaultKinds = []string{FaultSchedulerKill, FaultAutoscalerKill, FaultNodeLoss, FaultBindFailures,
	FaultThrottle, FaultServerError, FaultSlowARM, FaultPartialProvisioning, FaultQuotaCut}

// PlannedFault is one fault to inject at a trace time.
type PlannedFault struct {
	At   time.Duration
	Kind string
}

// faultSpacing is the mean trace time between two faults.
const faultSpacing = 4 * time.Minute

// PlanFaults picks, from seed alone, when each fault of a run strikes
// between from and to: one about every four trace minutes (jittered by up
// to a minute each way), every kind once in random order before any kind
// comes again.
func PlanFaults(seed int64, from, to time.Duration) []PlannedFault {
	rng := rand.New(rand.NewSource(seed))
	var out []PlannedFault
	var bag []string
	for at := from; at <= to; at += faultSpacing {
		if len(bag) == 0 {
			bag = append([]string(nil), FaultKinds...)
			rng.Shuffle(len(bag), func(a, b int) { bag[a], bag[b] = bag[b], bag[a] })
		}
		jitter := time.Duration(rng.Int63n(int64(2*time.Minute))) - time.Minute
		out = append(out, PlannedFault{At: max(from, min(to, at+jitter)), Kind: bag[0]})
		bag = bag[1:]
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].At < out[b].At })
	return out
}

// FirstBurst keeps the jobs of a trace's first burst (those arriving in its
// first twenty minutes): the short chaos run CI makes.
func (t Trace) FirstBurst() Trace {
	var jobs []Job
	for _, j := range t.Jobs {
		if j.At < 20*time.Minute {
			jobs = append(jobs, j)
		}
	}
	return Trace{Jobs: jobs}
}
