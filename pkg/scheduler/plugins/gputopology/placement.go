// Where a gang's members sit: placements per gang, the GPU index synced, members and forgetting.

package gputopology

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/topology"
)

// loadPlacement starts tracking a gang, counting members already bound (after
// a scheduler restart, or a gang whose attempt was reset).
func (pl *Topology) loadPlacement(key gang.Key) *placement {
	p := &placement{key: key, members: map[types.UID]member{}, onNode: map[string]int{}}
	if strings.HasPrefix(key.Name, "pod:") {
		return p
	}
	objs, _ := pl.pods.ByIndex(gangstate.GangIndex, key.String())
	for _, o := range objs {
		pod, ok := o.(*v1.Pod)
		if !ok || pod.Spec.NodeName == "" || pod.DeletionTimestamp != nil || podFinished(pod) {
			continue
		}
		if g := pl.gpusOf(pod); g > 0 {
			p.add(pod.UID, pod.Spec.NodeName, g)
		} else {
			p.mixed = true
		}
	}
	return p
}

func podFinished(p *v1.Pod) bool {
	return p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed
}

func (p *placement) add(uid types.UID, node string, gpus int64) bool {
	if _, ok := p.members[uid]; ok {
		return false
	}
	p.members[uid] = member{node: node, gpus: gpus}
	p.onNode[node]++
	return true
}

func (p *placement) remove(uid types.UID) (member, bool) {
	m, ok := p.members[uid]
	if !ok {
		return m, false
	}
	delete(p.members, uid)
	if p.onNode[m.node]--; p.onNode[m.node] <= 0 {
		delete(p.onNode, m.node)
	}
	return m, true
}

func (p *placement) anchor() []string {
	out := make([]string, 0, len(p.onNode))
	for n := range p.onNode {
		out = append(out, n)
	}
	return out
}

// sync brings the index up to date with the snapshot, re-reading only nodes
// whose NodeInfo changed since the last sync.
func (pl *Topology) sync(nodes []fwk.NodeInfo) {
	pl.index.BeginSync()
	for _, ni := range nodes {
		node := ni.Node()
		if node == nil || capacity.IsSpot(node) {
			continue // spot nodes hold no quorum (capacity.SpotRule)
		}
		gen := ni.GetGeneration()
		if g, ok := pl.synced[node.Name]; ok && g == gen && pl.index.Touch(node.Name) {
			continue
		}
		alloc, used := ni.GetAllocatable().GetScalarResources()[pl.gpu], ni.GetRequested().GetScalarResources()[pl.gpu]
		pl.index.Set(topology.NodeState{Name: node.Name, Labels: node.Labels, AllocGPUs: alloc, UsedGPUs: used})
		pl.synced[node.Name] = gen
	}
	pl.index.EndSync()
	if len(pl.synced) > pl.index.Len() {
		for name := range pl.synced {
			if _, ok := pl.index.Node(name); !ok {
				delete(pl.synced, name)
			}
		}
	}
}

// membersOf lists a gang's pods; nil for a lone pod, or a gang whose members
// the informer has not seen.
func (pl *Topology) membersOf(key gang.Key) []*v1.Pod {
	if strings.HasPrefix(key.Name, "pod:") {
		return nil
	}
	objs, _ := pl.pods.ByIndex(gangstate.GangIndex, key.String())
	if len(objs) == 0 {
		return nil
	}
	out := make([]*v1.Pod, 0, len(objs))
	for _, o := range objs {
		if pod, ok := o.(*v1.Pod); ok {
			out = append(out, pod)
		}
	}
	return out
}

// unplaced lists the live members with neither a node nor a reservation.
func (pl *Topology) unplaced(members []*v1.Pod, p *placement) []*v1.Pod {
	out := make([]*v1.Pod, 0, len(members))
	for _, m := range members {
		if _, reserved := p.members[m.UID]; !reserved && m.Spec.NodeName == "" && gang.Live(m) {
			out = append(out, m)
		}
	}
	return out
}

// withoutGPUs says some live member asks for no GPU.
func (pl *Topology) withoutGPUs(members []*v1.Pod) bool {
	for _, m := range members {
		if gang.Live(m) && pl.gpusOf(m) == 0 {
			return true
		}
	}
	return false
}

// boundWithoutGPUs counts the bound live members that ask for no GPU.
func (pl *Topology) boundWithoutGPUs(members []*v1.Pod) int64 {
	var n int64
	for _, m := range members {
		if m.Spec.NodeName != "" && gang.Live(m) && pl.gpusOf(m) == 0 {
			n++
		}
	}
	return n
}

// stateEntries counts the plugin's state by kind, for the
// muster_scheduler_state_entries gauge.
func (pl *Topology) stateEntries() map[string]int {
	pl.mu.RLock()
	out := map[string]int{"placed-gangs": len(pl.gangs), "hinted-gangs": len(pl.hinted), "synced-nodes": len(pl.synced), "starving-gangs": len(pl.starving), "beyond-domain-gangs": len(pl.beyond), "claimed-nodes": len(pl.claimed)}
	pl.mu.RUnlock()
	if pl.requests != nil {
		for k, v := range pl.requests.StateEntries() {
			out[k] = v
		}
	}
	return out
}

func (pl *Topology) forgetIfEmpty(p *placement) {
	if len(p.members) == 0 && pl.gangs[p.key] == p {
		pl.dropClaims(p)
		delete(pl.gangs, p.key)
	}
}

// forgetHinted drops a gang's hint timestamp when its last member is gone.
func (pl *Topology) forgetHinted(k gang.Key) {
	if !pl.hasMembers(k) {
		delete(pl.hinted, k)
		delete(pl.starving, k)
		delete(pl.beyond, k)
	}
}

// hasMembers tells whether the informer still holds a pod of gang k. The
// index drops a pod before podGone runs, so a cycle that checks this under
// pl.mu before recording per-gang state either sees the gang gone or leaves
// podGone to forget what it records.
func (pl *Topology) hasMembers(k gang.Key) bool {
	objs, _ := pl.pods.ByIndex(gangstate.GangIndex, k.String())
	return len(objs) > 0
}

// podGone drops a deleted member from its gang. The index learns of the freed
// GPUs at its next sync from the snapshot.
func (pl *Topology) podGone(obj any) {
	pod, ok := obj.(*v1.Pod)
	if !ok {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			pod, _ = t.Obj.(*v1.Pod)
		}
	}
	if pod == nil {
		return
	}
	key, _, isGang, err := gang.GroupOf(pod)
	if err != nil {
		return
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pod.Spec.NodeName == "" {
		// A gang that never placed a member may still have a hint time.
		if isGang {
			pl.forgetHinted(key)
		}
		return
	}
	if !isGang {
		key = gang.Key{Namespace: pod.Namespace, Name: "pod:" + pod.Name}
	}
	if p := pl.gangs[key]; p != nil {
		p.remove(pod.UID)
		pl.forgetIfEmpty(p)
	}
	pl.forgetHinted(key)
}
