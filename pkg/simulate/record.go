// Record: what happened to jobs, members and nodes during a run, and the Figures computed from it.

package simulate

import (
	"slices"
	"sort"
	"time"
)

// Record is what happened during one run, in trace time from the start. The
// simulator fills it from API events (pods bound and finished, nodes
// registered and removed) and from the autoscaler's and scheduler's reports
// (scale-ups that failed).
type Record struct {
	Jobs  map[string]*JobRecord
	Nodes map[string]*NodeRecord
	// Changes counts what was recorded (jobs created, started and finished,
	// pods bound and done, nodes up and down): a stepped replay jumps ahead
	// only after a step in which it did not move.
	Changes int
	// ScaleUpFailures are failed or refused scale-ups, with the reason.
	ScaleUpFailures []Failure
	// WithdrawnNodes were asked for and deleted while still being created,
	// their pods having gone elsewhere; they never became nodes.
	WithdrawnNodes int
	End            time.Duration
	// Prices are $ per node-hour by pool, for the run's cost; a node of a
	// pool without one costs nothing (the system node).
	Prices map[string]float64
	// Reclaims counts spot nodes Azure reclaimed; ReclaimedMembers the job
	// pods that ran on them; BelowMinByReclaim the gangs a reclaim took
	// below min (they stop and start again when min run).
	Reclaims          int
	ReclaimedMembers  int
	BelowMinByReclaim map[string]bool
	// CannotRun names the jobs no pool could ever hold (CanRun), which the
	// mean turnaround leaves out: no side can finish them.
	CannotRun map[string]bool
}

// JobRecord follows one job.
type JobRecord struct {
	Job     Job
	Created time.Duration
	// Bound is when each member was first bound; Done when it finished.
	Bound map[string]time.Duration
	Done  map[string]time.Duration
	Node  map[string]string
	// MostBound is the most members bound at once.
	MostBound int
	// Started is when the job began its work (a gang: when min members
	// were bound together); zero if it never did.
	Started time.Duration
	// Finished is when the job's work was done; zero if it was not.
	Finished time.Duration
	// Runs are a gang's runs: from when min members were bound together to
	// when its work was done, or to when it fell below min (Broken: its
	// work so far is thrown away, and it starts afresh once min run again).
	// The last run's To is 0 while it goes on.
	Runs []RunSpan
}

// RunSpan is one run of a gang's work.
type RunSpan struct {
	From, To time.Duration
	Broken   bool
}

// openRun is the gang's run going on, nil when none.
func (jr *JobRecord) openRun() *RunSpan {
	if n := len(jr.Runs); n > 0 && jr.Runs[n-1].To == 0 {
		return &jr.Runs[n-1]
	}
	return nil
}

// NodeRecord follows one node.
type NodeRecord struct {
	Name, Pool string
	GPUs       int64
	Up, Down   time.Duration // Down 0: still up at the end
	// Used says a pod ran on the node at some time.
	Used bool
}

// Failure is one failed scale-up.
type Failure struct {
	At     time.Duration
	Pool   string
	Reason string
}

// NewRecord starts an empty record.
func NewRecord() *Record {
	return &Record{Jobs: map[string]*JobRecord{}, Nodes: map[string]*NodeRecord{}, BelowMinByReclaim: map[string]bool{}}
}

// JobFinished notes a job's work was done.
func (r *Record) JobFinished(job string, at time.Duration) {
	r.Changes++
	if jr := r.Jobs[job]; jr != nil && jr.Finished == 0 {
		jr.Finished = max(at, 1)
		if run := jr.openRun(); run != nil {
			run.To = jr.Finished
		}
	}
}

// JobBroken notes a gang fell below min while it ran: its run ends and its
// work so far is lost.
func (r *Record) JobBroken(job string, at time.Duration) {
	r.Changes++
	if jr := r.Jobs[job]; jr != nil {
		if run := jr.openRun(); run != nil {
			run.To, run.Broken = max(at, run.From+1), true
		}
	}
}

// JobCreated notes a job's pods were created.
func (r *Record) JobCreated(j Job, at time.Duration) {
	r.Changes++
	r.Jobs[j.Name] = &JobRecord{Job: j, Created: at, Bound: map[string]time.Duration{}, Done: map[string]time.Duration{}, Node: map[string]string{}}
}

// PodBound notes a member was bound to node.
func (r *Record) PodBound(job, pod, node string, at time.Duration) {
	r.Changes++
	jr := r.Jobs[job]
	if jr == nil {
		return
	}
	if _, seen := jr.Bound[pod]; !seen {
		jr.Bound[pod] = at
		jr.Node[pod] = node
	}
	running := 0
	for p := range jr.Bound {
		if _, done := jr.Done[p]; !done {
			running++
		}
	}
	jr.MostBound = max(jr.MostBound, running)
	if n := r.Nodes[node]; n != nil {
		n.Used = true
	}
}

// JobStarted notes a job began its work: a gang once min members run
// together, again after each time it broke.
func (r *Record) JobStarted(job string, at time.Duration) {
	r.Changes++
	jr := r.Jobs[job]
	if jr == nil {
		return
	}
	at = max(at, 1)
	if jr.Started == 0 {
		jr.Started = at
	}
	if jr.Job.Kind == KindGang && jr.Finished == 0 && jr.openRun() == nil {
		jr.Runs = append(jr.Runs, RunSpan{From: at})
	}
}

// PodDone notes a member finished (or was deleted) after running on node
// with gpus GPUs.
func (r *Record) PodDone(job, pod, node string, gpus int64, at time.Duration) {
	r.Changes++
	jr := r.Jobs[job]
	if jr == nil {
		return
	}
	if _, bound := jr.Bound[pod]; !bound {
		return
	}
	if _, done := jr.Done[pod]; done {
		return
	}
	jr.Done[pod] = at
}

// heldSpan is when a job's member held its node: from its bind to its end,
// or the run's end if it never ended.
func (r *Record) heldSpan(jr *JobRecord, pod string) (from, to time.Duration) {
	to, done := jr.Done[pod]
	if !done {
		to = r.End
	}
	return jr.Bound[pod], to
}

// memberHours splits the GPU time a member held its node into: used (a
// plain job's, or a gang's in runs that were not broken), lost (a gang's in
// runs that broke: work thrown away) and belowMin (a gang's while it was
// not running: before min members were bound together, or after it broke).
func (r *Record) memberHours(jr *JobRecord, pod string) (used, lost, belowMin float64) {
	from, to := r.heldSpan(jr, pod)
	if to <= from {
		return 0, 0, 0
	}
	gpus := float64(jr.Job.PodGPUs(pod))
	if jr.Job.Kind != KindGang {
		return gpus * (to - from).Hours(), 0, 0
	}
	if jr.Finished > 0 {
		to = min(to, max(from, jr.Finished)) // a member left after its gang's work: idle
	}
	var inRuns time.Duration
	r.eachRun(jr, from, to, func(a, b time.Duration, broken bool) {
		inRuns += b - a
		if broken {
			lost += gpus * (b - a).Hours()
		} else {
			used += gpus * (b - a).Hours()
		}
	})
	return used, lost, gpus * max(0, to-from-inRuns).Hours()
}

// usedSpans are the parts of a member's held span spent on work that was
// kept (memberHours' used), for the chart.
func (r *Record) usedSpans(jr *JobRecord, pod string) [][2]time.Duration {
	from, to := r.heldSpan(jr, pod)
	if jr.Job.Kind != KindGang {
		if to > from {
			return [][2]time.Duration{{from, to}}
		}
		return nil
	}
	var out [][2]time.Duration
	r.eachRun(jr, from, to, func(a, b time.Duration, broken bool) {
		if !broken {
			out = append(out, [2]time.Duration{a, b})
		}
	})
	return out
}

// eachRun calls f with the part [a, b) of [from, to) inside each of the
// gang's runs that it overlaps; a run going on lasts to the record's end.
func (r *Record) eachRun(jr *JobRecord, from, to time.Duration, f func(a, b time.Duration, broken bool)) {
	for _, run := range jr.Runs {
		end := run.To
		if end == 0 {
			end = r.End
		}
		if a, b := max(from, run.From), min(to, end); b > a {
			f(a, b, run.Broken)
		}
	}
}

// NodeUp notes a node registered.
func (r *Record) NodeUp(name, pool string, gpus int64, at time.Duration) {
	r.Changes++
	if _, ok := r.Nodes[name]; !ok {
		r.Nodes[name] = &NodeRecord{Name: name, Pool: pool, GPUs: gpus, Up: at}
	}
}

// NodeDown notes a node was removed.
func (r *Record) NodeDown(name string, at time.Duration) {
	r.Changes++
	if n := r.Nodes[name]; n != nil && n.Down == 0 {
		n.Down = at
	}
}

// Figures are what the report shows for one run.
type Figures struct {
	Jobs []JobFigures
	// PartialGangs ran some members but never min of them together: GPUs
	// held for a job that never started.
	PartialGangs int
	// ExcessNodes were added and removed (or left at the end) without any
	// pod ever running on them.
	ExcessNodes int
	Excess      []string // their names
	// GPU-hours, trace time: paid for (nodes up), used by jobs making
	// progress (plain jobs' pods, gangs' members in runs that were not
	// broken), idle (the difference).
	ProvisionedGPUHours, UsedGPUHours, IdleGPUHours float64
	// PartialGangGPUHours are GPU-hours held by members of gangs that never
	// started.
	PartialGangGPUHours float64
	// BelowMinGPUHours are GPU-hours held by gangs' members while fewer
	// than min ran together (before the gang started, or after it broke);
	// LostWorkGPUHours those of runs that broke, whose work was thrown
	// away. Neither counts as used.
	BelowMinGPUHours, LostWorkGPUHours float64
	// GangsBroken fell below min after they had started, at least once.
	GangsBroken int
	// MeanWaitToMin and P90WaitToMin are over every gang: from arrival to
	// min members bound together, or to the run's end for a gang that never
	// got there.
	MeanWaitToMin, P90WaitToMin time.Duration
	// Cost is $ for the nodes' hours at Record.Prices.
	Cost     float64
	Failures []Failure
	// NodesAdded by pool.
	NodesAdded map[string]int
	// WithdrawnNodes: see Record.
	WithdrawnNodes int
	// LongestWaitAfterCapacity: see Record.LongestWaitAfterCapacity.
	LongestWaitAfterCapacity time.Duration
	LongestWaitGang          string
	// GangsFinished counts the gangs whose work was done; MeanTurnaround is
	// over every gang the pools can run, from arrival to its work done, or
	// to the run's end for a gang not done by then (as the waits count a
	// gang that never reached min), so that a side that leaves gangs
	// undone is not flattered by the mean of those it finished.
	GangsFinished  int
	MeanTurnaround time.Duration
	// End is the run's end on the trace clock; JobsNotDone the jobs whose
	// work was not done by then.
	End         time.Duration
	JobsNotDone int
	// Reclaims, ReclaimedMembers: see Record; GangsBelowMinByReclaim counts
	// Record.BelowMinByReclaim.
	Reclaims, ReclaimedMembers, GangsBelowMinByReclaim int
}

// JobFigures is one job's waits.
type JobFigures struct {
	Name         string
	Min, Max     int
	ToMin, ToMax time.Duration
	AtMin, AtMax bool
	MostRunning  int
}

// Figures computes the run's figures. initial lists nodes that existed before
// the run (they count in GPU-hours but not as added).
func (r *Record) Figures(initial map[string]bool) Figures {
	f := Figures{NodesAdded: map[string]int{}, Failures: r.ScaleUpFailures, WithdrawnNodes: r.WithdrawnNodes, End: r.End,
		Reclaims: r.Reclaims, ReclaimedMembers: r.ReclaimedMembers, GangsBelowMinByReclaim: len(r.BelowMinByReclaim)}
	var turnaround time.Duration
	turnarounds := 0
	var waits []time.Duration
	names := make([]string, 0, len(r.Jobs))
	for n := range r.Jobs {
		names = append(names, n)
	}
	sort.Slice(names, func(a, b int) bool {
		ja, jb := r.Jobs[names[a]], r.Jobs[names[b]]
		if ja.Job.At != jb.Job.At {
			return ja.Job.At < jb.Job.At
		}
		return names[a] < names[b]
	})
	for _, n := range names {
		jr := r.Jobs[n]
		times := make([]time.Duration, 0, len(jr.Bound))
		for _, t := range jr.Bound {
			times = append(times, t)
		}
		sort.Slice(times, func(a, b int) bool { return times[a] < times[b] })
		jf := JobFigures{Name: n, Min: jr.Job.Min, Max: jr.Job.Max, MostRunning: jr.MostBound}
		// A gang's members count only together; each pod of a plain job
		// works on its own, so it reaches min once min pods have run at all.
		together := jr.MostBound
		if jr.Job.Kind != KindGang {
			together = len(times)
		}
		if together >= jr.Job.Min && len(times) >= jr.Job.Min {
			jf.AtMin, jf.ToMin = true, max(0, times[jr.Job.Min-1]-jr.Created)
		}
		if together >= jr.Job.Max && len(times) >= jr.Job.Max {
			jf.AtMax, jf.ToMax = true, max(0, times[jr.Job.Max-1]-jr.Created)
		}
		if jr.Job.Kind == KindGang && jr.MostBound > 0 && jr.MostBound < jr.Job.Min {
			f.PartialGangs++
		}
		if jr.Job.Kind == KindGang {
			wait := max(0, r.End-jr.Created)
			if jf.AtMin {
				wait = jf.ToMin
			}
			waits = append(waits, wait)
			if slices.ContainsFunc(jr.Runs, func(run RunSpan) bool { return run.Broken }) {
				f.GangsBroken++
			}
		}
		if jr.Finished == 0 {
			f.JobsNotDone++
		}
		if jr.Job.Kind == KindGang && jr.Finished > 0 {
			f.GangsFinished++
		}
		if jr.Job.Kind == KindGang && !r.CannotRun[n] {
			turnarounds++
			if jr.Finished > 0 {
				turnaround += jr.Finished - jr.Created
			} else {
				turnaround += max(0, r.End-jr.Created)
			}
		}
		f.Jobs = append(f.Jobs, jf)
	}
	for _, jr := range r.Jobs {
		for pod := range jr.Bound {
			used, lost, belowMin := r.memberHours(jr, pod)
			f.UsedGPUHours += used
			f.LostWorkGPUHours += lost
			f.BelowMinGPUHours += belowMin
			if jr.Job.Kind == KindGang && jr.Started == 0 {
				from, to := r.heldSpan(jr, pod)
				f.PartialGangGPUHours += float64(jr.Job.PodGPUs(pod)) * max(0, to-from).Hours()
			}
		}
	}
	for _, n := range r.Nodes {
		end := n.Down
		if end == 0 {
			end = r.End
		}
		f.ProvisionedGPUHours += float64(n.GPUs) * (end - n.Up).Hours()
		f.Cost += r.Prices[n.Pool] * (end - n.Up).Hours()
		if initial[n.Name] {
			continue
		}
		f.NodesAdded[n.Pool]++
		if !n.Used {
			f.ExcessNodes++
			f.Excess = append(f.Excess, n.Name)
		}
	}
	if turnarounds > 0 {
		f.MeanTurnaround = turnaround / time.Duration(turnarounds)
	}
	f.MeanWaitToMin, f.P90WaitToMin = meanAndP90(waits)
	f.IdleGPUHours = max(0, f.ProvisionedGPUHours-f.UsedGPUHours)
	f.LongestWaitAfterCapacity, f.LongestWaitGang = r.LongestWaitAfterCapacity()
	sort.Strings(f.Excess)
	return f
}

// GPUSeries is the GPUs paid for (on nodes that are up) and the GPUs used
// (by members of jobs that have started, as UsedGPUHours counts them) over
// time, one point per change.
func (r *Record) GPUSeries() (provisioned, used []Level) {
	type ev struct {
		at    time.Duration
		delta int64
	}
	var pe, ue []ev
	for _, n := range r.Nodes {
		pe = append(pe, ev{n.Up, n.GPUs})
		if n.Down != 0 {
			pe = append(pe, ev{n.Down, -n.GPUs})
		}
	}
	for _, jr := range r.Jobs {
		for pod := range jr.Bound {
			g := jr.Job.PodGPUs(pod)
			if g == 0 {
				continue
			}
			for _, span := range r.usedSpans(jr, pod) {
				ue = append(ue, ev{span[0], g}, ev{span[1], -g})
			}
		}
	}
	series := func(evs []ev) []Level {
		sort.SliceStable(evs, func(a, b int) bool { return evs[a].at < evs[b].at })
		var v int64
		out := []Level{{At: 0}}
		for _, e := range evs {
			if e.at >= r.End {
				break // the run's end closes every series at its last value
			}
			v += e.delta
			if last := &out[len(out)-1]; last.At == e.at {
				last.Value = v
			} else {
				out = append(out, Level{At: e.at, Value: v})
			}
		}
		return append(out, Level{At: r.End, Value: v})
	}
	return series(pe), series(ue)
}

// meanAndP90 is the mean of ds and their 90th percentile (nearest rank);
// zero for none.
func meanAndP90(ds []time.Duration) (mean, p90 time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	var sum time.Duration
	for _, d := range sorted {
		sum += d
	}
	rank := (9*len(sorted) + 9) / 10 // ceil(0.9 n)
	return sum / time.Duration(len(sorted)), sorted[rank-1]
}

// Level is a value from At on.
type Level struct {
	At    time.Duration
	Value int64
}

// LongestWaitAfterCapacity is the longest any gang waited to start after the
// cluster first had free GPUs for its quorum: enough nodes up, each with
// whole members' worth of GPUs free of other jobs' pods, for its min GPU
// members. It counts GPUs only (not CPU or topology), so it is the wait a
// scheduler could not blame on missing capacity. A gang that never started
// waits until the end of the run. It returns the wait and the gang.
func (r *Record) LongestWaitAfterCapacity() (time.Duration, string) {
	type hold struct {
		job      string
		from, to time.Duration
		gpus     int64
	}
	onNode := map[string][]hold{}
	times := []time.Duration{}
	for name, jr := range r.Jobs {
		times = append(times, jr.Created)
		for pod, at := range jr.Bound {
			to, done := jr.Done[pod]
			if !done {
				to = r.End
			}
			gpus := jr.Job.GPUs
			if pod == jr.Job.Launcher() {
				gpus = 0
			}
			onNode[jr.Node[pod]] = append(onNode[jr.Node[pod]], hold{job: name, from: at, to: to, gpus: gpus})
			times = append(times, at, to)
		}
	}
	for _, n := range r.Nodes {
		times = append(times, n.Up)
		if n.Down > 0 {
			times = append(times, n.Down)
		}
	}
	sort.Slice(times, func(a, b int) bool { return times[a] < times[b] })
	room := func(job string, gpus int64, t time.Duration) int64 {
		var copies int64
		for _, n := range r.Nodes {
			if n.Up > t || (n.Down > 0 && n.Down <= t) {
				continue
			}
			free := n.GPUs
			for _, h := range onNode[n.Name] {
				if h.job != job && h.from <= t && t < h.to {
					free -= h.gpus
				}
			}
			copies += max(free, 0) / gpus
		}
		return copies
	}
	var longest time.Duration
	var who string
	names := make([]string, 0, len(r.Jobs))
	for n := range r.Jobs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		jr := r.Jobs[name]
		if jr.Job.Kind != KindGang || jr.Job.GPUs <= 0 {
			continue
		}
		need := int64(jr.Job.Min)
		if jr.Job.LauncherMilliCPU > 0 {
			need--
		}
		start := jr.Started
		if start == 0 {
			start = r.End
		}
		for _, t := range times {
			if t < jr.Created || t >= start {
				continue
			}
			if room(name, jr.Job.GPUs, t) >= need {
				if w := start - t; w > longest {
					longest, who = w, name
				}
				break
			}
		}
	}
	return longest, who
}
