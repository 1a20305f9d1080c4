// Board, which follows the demo's gangs to min and max, and the progress line, table and verdict.

package demo

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/muster-project/muster/pkg/topology"
)

// Board follows the gangs while the demo runs: when each gang's last member
// was created and when each member was first seen bound. It is safe for
// concurrent use (a pod watch feeds it while the submitter and the progress
// printer read it).
type Board struct {
	mu      sync.Mutex
	gangs   []Gang
	index   map[string]int
	created []time.Time            // last member creation, zero until then
	bound   []map[string]time.Time // pod name -> first seen bound
	node    []map[string]string    // pod name -> its node
	labels  map[string]map[string]string
}

// NewBoard returns a board for gangs.
func NewBoard(gangs []Gang) *Board {
	b := &Board{gangs: gangs, index: map[string]int{}, created: make([]time.Time, len(gangs)),
		bound: make([]map[string]time.Time, len(gangs)), node: make([]map[string]string, len(gangs)), labels: map[string]map[string]string{}}
	for i, g := range gangs {
		b.index[g.Name] = i
		b.bound[i] = map[string]time.Time{}
		b.node[i] = map[string]string{}
	}
	return b
}

// SetNodes tells the board the nodes' labels, so results say which topology
// domain each gang landed in.
func (b *Board) SetNodes(nodes []Node) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, n := range nodes {
		b.labels[n.Name] = n.Labels
	}
}

// Created records that the gang's last member was created at.
func (b *Board) Created(gang string, at time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if i, ok := b.index[gang]; ok {
		b.created[i] = at
	}
}

// Bound records that pod of gang was seen bound to node at; the first
// sighting counts.
func (b *Board) Bound(gang, pod, node string, at time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i, ok := b.index[gang]
	if !ok {
		return
	}
	if _, seen := b.bound[i][pod]; !seen {
		b.bound[i][pod] = at
		b.node[i][pod] = node
	}
}

// Levels are the topology levels results are reported in, narrowest first.
var Levels = []topology.Level{
	{Name: "node", Label: topology.HostnameLabel},
	{Name: "clique", Label: topology.CliqueLabel},
	{Name: "rack", Label: topology.LeafLabel},
	{Name: "zone", Label: topology.ZoneLabel},
}

// scope returns the narrowest level all nodes share a domain of, as "level
// value" (e.g. "clique h100train-c2"), or "cluster".
func scope(nodes []string, labels map[string]map[string]string) string {
	if len(nodes) == 0 {
		return "-"
	}
	for _, l := range Levels {
		v, ok := labels[nodes[0]][l.Label]
		if !ok {
			continue
		}
		same := true
		for _, n := range nodes[1:] {
			if labels[n][l.Label] != v {
				same = false
				break
			}
		}
		if same {
			return l.Name + " " + v
		}
	}
	return "cluster"
}

// within says whether a scope is no wider than the level.
func within(scope, level string) bool {
	for _, l := range Levels {
		if strings.HasPrefix(scope, l.Name+" ") {
			return true
		}
		if l.Name == level {
			return false
		}
	}
	return false
}

// Progress is a point-in-time count over all gangs.
type Progress struct {
	Bound, Pods  int // pods bound / created or to be created
	AtMin, Gangs int // gangs with at least min members bound / all gangs
}

// Progress counts bound pods and gangs at min.
func (b *Board) Progress() Progress {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := Progress{Gangs: len(b.gangs)}
	for i, g := range b.gangs {
		p.Pods += g.Members
		p.Bound += len(b.bound[i])
		if len(b.bound[i]) >= g.Min {
			p.AtMin++
		}
	}
	return p
}

// Settled says every gang that should reach min has, and every gang that
// should reach max has too.
func (b *Board) Settled() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, g := range b.gangs {
		n := len(b.bound[i])
		if (g.Fits && n < g.Min) || (g.FitsMax && n < g.Max) {
			return false
		}
	}
	return true
}

// Results returns one result per gang, in scenario order, without reasons.
func (b *Board) Results() []Result {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Result, len(b.gangs))
	for i, g := range b.gangs {
		times := make([]time.Time, 0, len(b.bound[i]))
		for _, t := range b.bound[i] {
			times = append(times, t)
		}
		slices.SortFunc(times, func(x, y time.Time) int { return x.Compare(y) })
		nodes := make([]string, 0, len(b.node[i]))
		for _, n := range b.node[i] {
			nodes = append(nodes, n)
		}
		slices.Sort(nodes)
		r := Result{Gang: g, Placed: len(times), Created: b.created[i], Domain: scope(nodes, b.labels)}
		if g.Min > 0 && len(times) >= g.Min {
			r.MinAt = times[g.Min-1]
		}
		if g.Max > 0 && len(times) >= g.Max {
			r.MaxAt = times[g.Max-1]
		}
		out[i] = r
	}
	return out
}

// Result is how one gang fared.
type Result struct {
	Gang    Gang
	Placed  int       // members bound
	Created time.Time // the gang's last member creation
	MinAt   time.Time // when min members were bound; zero if never
	MaxAt   time.Time // when max members were bound; zero if never
	Reason  string    // why the gang is not at min, if it is not
	Domain  string    // the narrowest topology domain holding the placed members
	Asked   string    // what the scheduler asked the autoscaler for, if anything
	// Upstream is how the same gang fared under kube-scheduler's own gang
	// scheduling (UpstreamCell), empty when that was not run.
	Upstream string
}

// UpstreamCell sums up a result of the upstream run for the table:
// "placed/members within time-to-min", e.g. "4/4 clique c1 0.21s".
func UpstreamCell(r Result) string {
	return fmt.Sprintf("%d/%d %s %s", r.Placed, r.Gang.Members, r.Domain, Duration(r.ToMin()))
}

// AtMin says the gang reached min.
func (r Result) AtMin() bool { return !r.MinAt.IsZero() }

// AtMax says the gang reached max.
func (r Result) AtMax() bool { return !r.MaxAt.IsZero() }

// ToMin is the time from the last member's creation to min members bound.
func (r Result) ToMin() (time.Duration, bool) { return Since(r.Created, r.MinAt) }

// ToMax is the time from the last member's creation to max members bound.
func (r Result) ToMax() (time.Duration, bool) { return Since(r.Created, r.MaxAt) }

// Since is at-from, or false if either is unknown. An elastic gang can reach
// min while its last members are still being created; that counts as 0.
func Since(from, at time.Time) (time.Duration, bool) {
	if from.IsZero() || at.IsZero() {
		return 0, false
	}
	return max(0, at.Sub(from)), true
}

// Duration formats a measured duration in seconds, or "-" if there is none.
func Duration(d time.Duration, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

// ProgressLine is the once-a-second line printed while the demo runs.
func ProgressLine(elapsed time.Duration, p Progress) string {
	return fmt.Sprintf("[%5.1fs] pods bound %3d/%d   gangs at min %2d/%d", elapsed.Seconds(), p.Bound, p.Pods, p.AtMin, p.Gangs)
}

// WriteTable writes the result table.
func WriteTable(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	upstream := slices.ContainsFunc(results, func(r Result) bool { return r.Upstream != "" })
	head := "GANG\tSOURCE\tMIN\tMAX\tPLACED\tWITHIN\tTO MIN\tTO MAX\tASKED AUTOSCALER"
	if upstream {
		head += "\tUPSTREAM (PLACED WITHIN TO MIN)"
	}
	fmt.Fprintln(tw, head+"\tREASON")
	for _, r := range results {
		reason := "-"
		if !r.AtMin() {
			reason = oneLine(r.Reason)
			if reason == "" {
				reason = "(no reason reported)"
			}
		}
		asked := r.Asked
		if asked == "" {
			asked = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d/%d\t%s\t%s\t%s\t%s\t", r.Gang.Name, r.Gang.Source, r.Gang.Min, r.Gang.Max,
			r.Placed, r.Gang.Members, r.Domain, Duration(r.ToMin()), Duration(r.ToMax()), asked)
		if upstream {
			fmt.Fprintf(tw, "%s\t", r.Upstream)
		}
		fmt.Fprintf(tw, "%s\n", reason)
	}
	return tw.Flush()
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Verdict lists what went wrong: a gang that should fit did not reach min (or,
// if it should, max), or a gang that cannot fit got members bound. Empty means
// the demo passed.
func Verdict(results []Result) []string {
	var problems []string
	for _, r := range results {
		g := r.Gang
		switch {
		case g.Fits && !r.AtMin():
			problems = append(problems, fmt.Sprintf("gang %s should fit but placed %d of min %d", g.Name, r.Placed, g.Min))
		case g.FitsMax && !r.AtMax():
			problems = append(problems, fmt.Sprintf("gang %s should reach max but placed %d of max %d", g.Name, r.Placed, g.Max))
		case !g.Fits && r.Placed > 0:
			problems = append(problems, fmt.Sprintf("gang %s cannot fit but got %d members bound", g.Name, r.Placed))
		case !g.Fits && !strings.Contains(r.Reason, g.WaitReason):
			problems = append(problems, fmt.Sprintf("gang %s waits without saying %q (reason %q)", g.Name, g.WaitReason, r.Reason))
		}
		if g.Within != "" && r.AtMin() && !within(r.Domain, g.Within) {
			problems = append(problems, fmt.Sprintf("gang %s should sit within one %s but spans %s", g.Name, g.Within, r.Domain))
		}
		if !g.Fits && r.Asked == "" {
			problems = append(problems, fmt.Sprintf("gang %s does not fit but asked the autoscaler for nothing", g.Name))
		}
		if r.Placed > g.Max {
			problems = append(problems, fmt.Sprintf("gang %s placed %d members, more than its max %d", g.Name, r.Placed, g.Max))
		}
	}
	return problems
}
