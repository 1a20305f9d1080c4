// Package placement measures how well a scheduler places GPU gangs on a
// topology-labelled cluster, free of any API server: the synthetic cluster
// (nodes in NVLink cliques, racks and zones), a fixed trace of gang arrivals
// and departures, the metrics computed from plain snapshots of the cluster,
// and the report table `muster placement-report` prints for Muster and the
// default scheduler side by side.
//
// # Metrics
//
// A gang is fully placed when all of its members are bound. For each gang,
// at the first snapshot in which it is fully placed, its placement scope is
// the narrowest domain holding all its members: one node, one clique, one
// rack, one zone, or several zones. "Within one clique" counts gangs on one
// node too, and so on up the levels.
//
// Next to each share stands its bound: the share of the same gangs that could
// fit one domain of that level at all, on an empty cluster. A gang of m
// members of g GPUs needs ceil(m / slots) domains, where slots is the number of
// g-GPU members the largest domain of the level holds (the sum over its nodes
// of floor(node GPUs / g)); when g divides the node's GPUs this is the
// familiar ceil(m x g / domain GPUs). A gang needing two cliques' worth can
// never be inside one clique, so no scheduler can beat the bound. For
// Muster the report lists each gang that fits one clique but landed wider,
// and whether, at the step it was placed, some clique had room for it.
//
// Stranded GPUs are the free GPUs of partly used nodes (some but not all of
// their GPUs allocated) that have too few free GPUs for one member of the
// trace's smallest shape (the fewest GPUs per member of any gang in the
// trace). They are sampled after every trace step; the report gives the mean
// over steps and the value at the end.
//
// The largest gang still placeable at the end is counted in members: of whole
// nodes (members of GPUsPerNode GPUs) anywhere, of whole nodes within one
// clique, and of the smallest shape anywhere.
//
// A partial gang has some but not all of its members bound: the default
// scheduler places members one by one, so it leaves such gangs holding GPUs
// they cannot use; Muster places a gang all or nothing.
package placement
