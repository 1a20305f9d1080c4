// Traces of gang arrivals and departures: Gang, Event, Trace, parsing, validation, annotations.

package placement

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/muster-project/muster/pkg/topology"
)

// Gang is one job of a trace: Members pods of GPUs GPUs each, all or nothing.
type Gang struct {
	Name    string
	Members int
	GPUs    int64 // per member
}

// Shape is the gang's shape, e.g. "4x8" (members x GPUs per member).
func (g Gang) Shape() string { return fmt.Sprintf("%dx%d", g.Members, g.GPUs) }

// TotalGPUs is what the whole gang asks for.
func (g Gang) TotalGPUs() int64 { return int64(g.Members) * g.GPUs }

// EventKind says whether a gang arrives or departs.
type EventKind int

const (
	// Arrive creates all of the gang's member pods.
	Arrive EventKind = iota
	// Depart deletes all of the gang's pods, bound or not.
	Depart
)

// Event is one step of a trace.
type Event struct {
	Kind EventKind
	Gang string
}

func (e Event) String() string {
	if e.Kind == Arrive {
		return "+" + e.Gang
	}
	return "-" + e.Gang
}

// Trace is a fixed sequence of gang arrivals and departures.
type Trace struct {
	Gangs  []Gang // in order of arrival
	Events []Event
}

// ParseTrace reads a trace, one event a line: "+ NAME MEMBERSxGPUS" for an
// arrival, "- NAME" for a departure. Blank lines and lines starting with #
// are skipped. The trace is validated.
func ParseTrace(text string) (Trace, error) {
	var t Trace
	for i, line := range strings.Split(text, "\n") {
		if j := strings.IndexByte(line, '#'); j >= 0 {
			line = line[:j]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		bad := func(format string, args ...any) (Trace, error) {
			return Trace{}, fmt.Errorf("trace line %d %q: %s", i+1, strings.TrimSpace(line), fmt.Sprintf(format, args...))
		}
		switch {
		case f[0] == "+" && len(f) == 3:
			m, g, ok := strings.Cut(f[2], "x")
			members, err1 := strconv.Atoi(m)
			gpus, err2 := strconv.ParseInt(g, 10, 64)
			if !ok || err1 != nil || err2 != nil {
				return bad("shape must be MEMBERSxGPUS, e.g. 4x8")
			}
			t.Gangs = append(t.Gangs, Gang{Name: f[1], Members: members, GPUs: gpus})
			t.Events = append(t.Events, Event{Kind: Arrive, Gang: f[1]})
		case f[0] == "-" && len(f) == 2:
			t.Events = append(t.Events, Event{Kind: Depart, Gang: f[1]})
		default:
			return bad(`want "+ NAME MEMBERSxGPUS" or "- NAME"`)
		}
	}
	return t, t.Validate()
}

// Validate checks that gang names are unique DNS labels, shapes are positive,
// and every gang arrives once, in the order of Gangs, and departs at most
// once, after it arrived.
func (t Trace) Validate() error {
	if len(t.Gangs) == 0 {
		return fmt.Errorf("trace: no gangs")
	}
	index := map[string]int{}
	for i, g := range t.Gangs {
		if !isDNSLabel(g.Name) {
			return fmt.Errorf("trace: gang %q: name must be a DNS label of at most 50 characters", g.Name)
		}
		if _, dup := index[g.Name]; dup {
			return fmt.Errorf("trace: gang %s: name used twice", g.Name)
		}
		if g.Members < 1 {
			return fmt.Errorf("trace: gang %s: members must be at least 1, got %d", g.Name, g.Members)
		}
		if g.GPUs < 1 {
			return fmt.Errorf("trace: gang %s: GPUs per member must be at least 1, got %d", g.Name, g.GPUs)
		}
		index[g.Name] = i
	}
	arrived := map[string]bool{}
	departed := map[string]bool{}
	next := 0
	for i, e := range t.Events {
		if _, ok := index[e.Gang]; !ok {
			return fmt.Errorf("trace: event %d (%s): no such gang", i+1, e)
		}
		switch e.Kind {
		case Arrive:
			if arrived[e.Gang] {
				return fmt.Errorf("trace: event %d (%s): gang arrives twice", i+1, e)
			}
			if index[e.Gang] != next {
				return fmt.Errorf("trace: event %d (%s): gangs must arrive in the order they are listed; expected %s", i+1, e, t.Gangs[next].Name)
			}
			next++
			arrived[e.Gang] = true
		case Depart:
			if !arrived[e.Gang] {
				return fmt.Errorf("trace: event %d (%s): gang departs before it arrives", i+1, e)
			}
			if departed[e.Gang] {
				return fmt.Errorf("trace: event %d (%s): gang departs twice", i+1, e)
			}
			departed[e.Gang] = true
		default:
			return fmt.Errorf("trace: event %d: unknown kind %d", i+1, e.Kind)
		}
	}
	if next != len(t.Gangs) {
		return fmt.Errorf("trace: gang %s never arrives", t.Gangs[next].Name)
	}
	return nil
}

func isDNSLabel(s string) bool {
	if s == "" || len(s) > 50 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// Gang returns the named gang.
func (t Trace) Gang(name string) (Gang, bool) {
	for _, g := range t.Gangs {
		if g.Name == name {
			return g, true
		}
	}
	return Gang{}, false
}

// SmallestGPUs is the fewest GPUs per member of any gang in the trace: free
// GPUs on a node fewer than this are stranded.
func (t Trace) SmallestGPUs() int64 {
	var s int64
	for i, g := range t.Gangs {
		if i == 0 || g.GPUs < s {
			s = g.GPUs
		}
	}
	return s
}

// Counts returns the number of arrivals and departures.
func (t Trace) Counts() (arrivals, departures int) {
	for _, e := range t.Events {
		if e.Kind == Arrive {
			arrivals++
		} else {
			departures++
		}
	}
	return arrivals, departures
}

// Peak is the most GPUs the trace's live gangs ask for at once (arrived and
// not yet departed, whether placed or not).
func (t Trace) Peak() int64 {
	var live, peak int64
	for _, e := range t.Events {
		g, _ := t.Gang(e.Gang)
		if e.Kind == Arrive {
			live += g.TotalGPUs()
		} else {
			live -= g.TotalGPUs()
		}
		peak = max(peak, live)
	}
	return peak
}

// GPUProductPattern is the GPU class every gang of the report asks for.
const GPUProductPattern = "NVIDIA-H100*"

// Annotations are the topology annotations a gang's member pods carry, besides
// the gang's own: H100s, clique preferred, and one zone required when the gang
// fits one zone of c (a bigger gang may span zones). The default scheduler
// ignores them.
func (g Gang) Annotations(c Cluster) map[string]string {
	a := map[string]string{
		topology.GPUProductAnnotation:     GPUProductPattern,
		topology.PreferredLevelAnnotation: "clique",
	}
	perNode := c.GPUsPerNode / g.GPUs
	if int64(g.Members) <= perNode*int64(c.NodesPerZone) {
		a[topology.RequiredLevelAnnotation] = "zone"
	}
	return a
}
