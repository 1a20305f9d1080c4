// Package demo holds what `muster demo` shows, free of any API server: the
// simulated GPU pool, the bursty mix of gangs submitted to it, and the report
// (progress lines, the result table and the pass/fail verdict).
package demo

import (
	"fmt"
	"time"

	"github.com/muster-project/muster/pkg/topology"
)

// Namespace is where the demo's gangs run.
const Namespace = "ml-research"

// WaveInterval is the pause between two waves of submissions.
const WaveInterval = 1500 * time.Millisecond

// MinNodes is the smallest pool the scenario is sized for.
const MinNodes = 18

// Labels every simulated node carries besides kubernetes.io/hostname: the
// pool, the GPU (as GPU Feature Discovery publishes it) and the topology
// (NVLink cliques of CliqueNodes nodes, racks of RackNodes, one zone).
const (
	LabelGPUProduct   = topology.ProductLabel
	LabelAgentPool    = topology.LegacyAgentPoolLabel
	LabelInstanceType = topology.InstanceTypeLabel

	CliqueNodes = 8
	RackNodes   = 16
	Zone        = "westeurope-1"
)

// Pool is a group of identical GPU nodes, as a managed node pool would be.
type Pool struct {
	Name         string // agentpool label value
	Nodes        int
	GPUs         int64 // per node
	Product      string
	InstanceType string
}

// Node is one simulated node.
type Node struct {
	Name   string
	GPUs   int64
	Labels map[string]string
}

// Source says where a gang's spec lives.
type Source string

const (
	// SourcePodGroup is a scheduler-plugins PodGroup object named by the
	// scheduling.x-k8s.io/pod-group label.
	SourcePodGroup Source = "PodGroup"
	// SourceLabels is a CRD-free gang: muster.dev/pod-group plus min/max annotations.
	SourceLabels Source = "labels"
	// SourceWorkload is upstream's PodGroup (scheduling.k8s.io/v1beta1) named
	// by the members' spec.schedulingGroup.
	SourceWorkload Source = "Workload"
)

// Gang is one job of the scenario.
type Gang struct {
	Name    string
	Source  Source
	Min     int
	Max     int
	Members int   // pods created
	GPUs    int64 // per member
	Pool    string
	Wave    int // 0-based submission wave
	// Fits says the gang can reach min; FitsMax that it can reach max. The
	// scenario is sized so that both follow from capacity alone, whatever order
	// the scheduler places gangs in.
	Fits, FitsMax bool
	// WaitReason is part of the reason a gang that cannot fit must report.
	WaitReason string
	// Ask holds the gang's GPU class and topology annotations.
	Ask map[string]string
	// Within is the widest level ("node", "clique", "rack", "zone") the
	// placed members must share; empty for no promise.
	Within string
}

// Scenario is the simulated cluster and the gangs submitted to it.
type Scenario struct {
	Pools []Pool
	Gangs []Gang
}

// Pool names.
const (
	TrainPool = "h100train"
	DevPool   = "a100dev"
)

// NewScenario sizes the scenario for a pool of nodes 8-GPU nodes: an A100
// pool for notebooks, small gangs and the elastic gang (members of 1-2 GPUs),
// and an H100 training pool for whole-node gangs (8 GPUs per member). Both are
// sized so that everything meant to fit does whatever order the scheduler
// places gangs in (see Check), with a few training nodes to spare. One gang
// asks for more whole nodes than the cluster has and must wait, binding
// nothing. It is deterministic: the same nodes give the same scenario.
func NewScenario(nodes int) (Scenario, error) {
	if nodes < MinNodes {
		return Scenario{}, fmt.Errorf("the demo needs at least %d nodes, got %d", MinNodes, nodes)
	}
	dev := max(6, nodes/8)
	train := nodes - dev
	const finetune = 4
	spare := max(1, train/7)
	pretrain := train - finetune - spare // 32 of 48 nodes
	s := Scenario{
		Pools: []Pool{
			{Name: TrainPool, Nodes: train, GPUs: 8, Product: "NVIDIA-H100-80GB-HBM3", InstanceType: "Standard_ND96isr_H100_v5"},
			{Name: DevPool, Nodes: dev, GPUs: 8, Product: "NVIDIA-A100-SXM4-80GB", InstanceType: "Standard_ND96amsr_A100_v4"},
		},
		Gangs: []Gang{
			// Wave 1: a notebook, the big pre-training run, a small fine-tune.
			{Name: "notebook-ana", Source: SourceLabels, Min: 1, Max: 1, Members: 1, GPUs: 1, Pool: DevPool, Wave: 0},
			{Name: "llm-pretrain", Source: SourcePodGroup, Min: pretrain, Max: pretrain, Members: pretrain, GPUs: 8, Pool: TrainPool, Wave: 0,
				Ask: map[string]string{topology.GPUProductAnnotation: "NVIDIA-H100*", topology.PreferredLevelAnnotation: "clique", topology.RequiredLevelAnnotation: "zone"}, Within: "zone"},
			{Name: "finetune-bert", Source: SourceLabels, Min: 4, Max: 4, Members: 4, GPUs: 2, Pool: DevPool, Wave: 0, Within: "node"},
			// Wave 2: another notebook, a whole-node fine-tune, the elastic job
			// (two members more than its max), a single-pod PodGroup.
			{Name: "notebook-raj", Source: SourceLabels, Min: 1, Max: 1, Members: 1, GPUs: 1, Pool: DevPool, Wave: 1},
			{Name: "finetune-llama", Source: SourcePodGroup, Min: finetune, Max: finetune, Members: finetune, GPUs: 8, Pool: TrainPool, Wave: 1,
				Ask: map[string]string{topology.PreferredLevelAnnotation: "clique", topology.RequiredLevelAnnotation: "clique"}, Within: "clique"},
			{Name: "elastic-ddp", Source: SourceLabels, Min: 4, Max: 8, Members: 10, GPUs: 2, Pool: DevPool, Wave: 1},
			{Name: "eval-batch", Source: SourcePodGroup, Min: 1, Max: 1, Members: 1, GPUs: 2, Pool: DevPool, Wave: 1},
			// Wave 3: a gang bigger than the cluster, and more small work.
			{Name: "giant-moe", Source: SourcePodGroup, Min: nodes + 16, Max: nodes + 16, Members: nodes + 16, GPUs: 8, Pool: TrainPool, Wave: 2},
			{Name: "rl-rollout", Source: SourceWorkload, Min: 4, Max: 4, Members: 4, GPUs: 2, Pool: DevPool, Wave: 2},
			{Name: "notebook-kim", Source: SourceLabels, Min: 1, Max: 1, Members: 1, GPUs: 1, Pool: DevPool, Wave: 2},
		},
	}
	for i := range s.Gangs {
		g := &s.Gangs[i]
		g.Fits = g.Name != "giant-moe"
		g.FitsMax = g.Fits
		if !g.Fits {
			g.WaitReason = "the cluster has room for"
		}
	}
	return s, nil
}

// Nodes lists the simulated nodes, pool by pool.
func (s Scenario) Nodes() []Node {
	var out []Node
	for _, p := range s.Pools {
		for i := 0; i < p.Nodes; i++ {
			name := fmt.Sprintf("aks-%s-vmss%06d", p.Name, i)
			out = append(out, Node{Name: name, GPUs: p.GPUs, Labels: map[string]string{
				topology.HostnameLabel:  name,
				LabelAgentPool:          p.Name,
				topology.AgentPoolLabel: p.Name,
				LabelGPUProduct:         p.Product,
				topology.MemoryLabel:    "81559",
				LabelInstanceType:       p.InstanceType,
				topology.CliqueLabel:    fmt.Sprintf("%s-c%d", p.Name, i/CliqueNodes),
				topology.LeafLabel:      fmt.Sprintf("%s-r%d", p.Name, i/RackNodes),
				topology.ZoneLabel:      Zone,
			}})
		}
	}
	return out
}

// Waves returns the number of waves.
func (s Scenario) Waves() int {
	n := 0
	for _, g := range s.Gangs {
		n = max(n, g.Wave+1)
	}
	return n
}

// TotalMembers is the number of pods the scenario creates.
func (s Scenario) TotalMembers() int {
	n := 0
	for _, g := range s.Gangs {
		n += g.Members
	}
	return n
}

// Check verifies the sizing promise: per pool, the GPUs wanted by gangs that
// should fit at max fit the pool, and whole-node members are never mixed with
// smaller ones (so fragmentation cannot get in the way). It returns the first
// problem found.
func (s Scenario) Check() error {
	for _, p := range s.Pools {
		var want int64
		var largest int64
		whole, partial := false, false
		for _, g := range s.Gangs {
			if g.Pool != p.Name {
				continue
			}
			largest = max(largest, g.GPUs)
			if g.GPUs == p.GPUs {
				whole = true
			} else {
				partial = true
			}
			if g.FitsMax {
				want += int64(g.Max) * g.GPUs
			} else if g.Fits {
				want += int64(g.Min) * g.GPUs
			}
		}
		if whole && partial {
			return fmt.Errorf("pool %s mixes whole-node and partial-node members", p.Name)
		}
		// With members of at most largest GPUs, a member still fits somewhere
		// while less than largest-1 GPUs per node are stranded.
		have := int64(p.Nodes) * p.GPUs
		if partial {
			have -= int64(p.Nodes) * (largest - 1)
		}
		if want > have {
			return fmt.Errorf("pool %s: gangs that should fit want %d GPUs, the pool has room for %d", p.Name, want, have)
		}
		for _, g := range s.Gangs {
			if g.Pool == p.Name && !g.Fits && int64(g.Min)*g.GPUs <= int64(p.Nodes)*p.GPUs {
				return fmt.Errorf("gang %s is meant not to fit but its min fits pool %s", g.Name, p.Name)
			}
		}
	}
	return nil
}
