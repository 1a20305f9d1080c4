// The synthetic GPU clusters of the report (default and small), their nodes and groupings.

package placement

import (
	"fmt"
	"strconv"

	"github.com/muster-project/muster/pkg/topology"
)

// Cluster is a synthetic GPU cluster of identical nodes, grouped narrowest
// first into NVLink cliques, racks (leaf switches) and zones. Each grouping
// holds a whole number of the one below it.
type Cluster struct {
	Nodes          int
	GPUsPerNode    int64
	NodesPerClique int
	NodesPerRack   int
	NodesPerZone   int
	Product        string // nvidia.com/gpu.product
	MemoryMiB      int    // nvidia.com/gpu.memory, MiB per GPU
}

// DefaultCluster is the report's cluster: 64 nodes of 8 H100s, in 8 cliques
// of 8 nodes, 4 racks of 16 and 2 zones of 32.
func DefaultCluster() Cluster {
	return Cluster{Nodes: 64, GPUsPerNode: 8, NodesPerClique: 8, NodesPerRack: 16, NodesPerZone: 32,
		Product: "NVIDIA-H100-80GB-HBM3", MemoryMiB: 81559}
}

// SmallCluster is a quarter-size cluster for a quick run: 16 nodes of 8 GPUs,
// in 8 cliques of 2 nodes, 4 racks of 4 and 2 zones of 8.
func SmallCluster() Cluster {
	return Cluster{Nodes: 16, GPUsPerNode: 8, NodesPerClique: 2, NodesPerRack: 4, NodesPerZone: 8,
		Product: "NVIDIA-H100-80GB-HBM3", MemoryMiB: 81559}
}

// Validate checks that every grouping is positive and nests in the next.
func (c Cluster) Validate() error {
	switch {
	case c.Nodes < 1:
		return fmt.Errorf("cluster: nodes must be at least 1, got %d", c.Nodes)
	case c.GPUsPerNode < 1:
		return fmt.Errorf("cluster: gpusPerNode must be at least 1, got %d", c.GPUsPerNode)
	case c.NodesPerClique < 1:
		return fmt.Errorf("cluster: nodesPerClique must be at least 1, got %d", c.NodesPerClique)
	case c.NodesPerRack%c.NodesPerClique != 0 || c.NodesPerRack < 1:
		return fmt.Errorf("cluster: nodesPerRack %d is not a positive multiple of nodesPerClique %d", c.NodesPerRack, c.NodesPerClique)
	case c.NodesPerZone%c.NodesPerRack != 0 || c.NodesPerZone < 1:
		return fmt.Errorf("cluster: nodesPerZone %d is not a positive multiple of nodesPerRack %d", c.NodesPerZone, c.NodesPerRack)
	case c.Nodes%c.NodesPerZone != 0:
		return fmt.Errorf("cluster: nodes %d is not a multiple of nodesPerZone %d", c.Nodes, c.NodesPerZone)
	case c.Product == "":
		return fmt.Errorf("cluster: product must be set")
	}
	return nil
}

// GPUs is the cluster's GPU count.
func (c Cluster) GPUs() int64 { return int64(c.Nodes) * c.GPUsPerNode }

// String describes the cluster in one line.
func (c Cluster) String() string {
	return fmt.Sprintf("%d nodes x %d GPUs (%s) = %d GPUs; cliques of %d nodes, racks of %d, zones of %d",
		c.Nodes, c.GPUsPerNode, c.Product, c.GPUs(), c.NodesPerClique, c.NodesPerRack, c.NodesPerZone)
}

// Node is one node as the metrics see it: its name, allocatable GPUs and
// labels.
type Node struct {
	Name   string
	GPUs   int64
	Labels map[string]string
}

// NodeList returns the nodes in order: node i is in clique i/NodesPerClique,
// rack i/NodesPerRack and zone i/NodesPerZone. Every node carries the GPU
// Feature Discovery labels, its clique, rack (leaf switch) and zone.
func (c Cluster) NodeList() []Node {
	out := make([]Node, c.Nodes)
	for i := range out {
		name := fmt.Sprintf("gpu-%03d", i)
		out[i] = Node{Name: name, GPUs: c.GPUsPerNode, Labels: map[string]string{
			topology.HostnameLabel: name,
			topology.ProductLabel:  c.Product,
			topology.MemoryLabel:   strconv.Itoa(c.MemoryMiB),
			topology.CountLabel:    strconv.FormatInt(c.GPUsPerNode, 10),
			topology.CliqueLabel:   fmt.Sprintf("clique-%02d", i/c.NodesPerClique),
			topology.LeafLabel:     fmt.Sprintf("rack-%02d", i/c.NodesPerRack),
			topology.ZoneLabel:     fmt.Sprintf("eastus-%d", i/c.NodesPerZone+1),
		}}
	}
	return out
}
