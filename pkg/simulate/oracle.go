// The oracle: what a clairvoyant provisioner would pay for a trace on the
// pools, computed, not simulated; the physical limit the sides are measured
// against.

package simulate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// vmShape is what the oracle needs of a VM size: its vCPUs, GPUs and list
// price. It copies the sizes of armlocal's catalogue (autoscaler/armlocal,
// DefaultSKUs), which this module does not import (the autoscaler is a
// nested module on another Kubernetes line).
type vmShape struct {
	VCPUs, GPUs int
	Price       float64
}

var vmShapes = map[string]vmShape{
	"Standard_D4s_v5":           {4, 0, 0.192},
	"Standard_D16s_v5":          {16, 0, 0.768},
	"Standard_D16ps_v5":         {16, 0, 0.616},
	"Standard_NC4as_T4_v3":      {4, 1, 0.526},
	"Standard_NC64as_T4_v3":     {64, 4, 4.352},
	"Standard_NC6s_v3":          {6, 1, 3.06},
	"Standard_NV36ads_A10_v5":   {36, 1, 3.20},
	"Standard_NC24ads_A100_v4":  {24, 1, 3.673},
	"Standard_NC40ads_H100_v5":  {40, 1, 6.98},
	"Standard_ND40rs_v2":        {40, 8, 22.032},
	"Standard_ND96asr_v4":       {96, 8, 27.197},
	"Standard_ND96amsr_A100_v4": {96, 8, 32.77},
	"Standard_ND96isr_H100_v5":  {96, 8, 98.32},
	"Standard_ND96isr_H200_v5":  {96, 8, 110.24},
}

// OraclePool is a pool as the oracle sees it: node shape, bounds, boot
// time, price and what it accepts.
type OraclePool struct {
	Name     string
	GPUs     int   // per node
	MilliCPU int64 // per node: the VM's vCPUs (no reserve, so a lower bound)
	Max      int
	Boot     time.Duration
	Price    float64 // $ per node-hour
	// PlacementGroup: the pool is in a proximity placement group, which a
	// job's require= option asks for.
	PlacementGroup bool
	// Spot pools are tainted: only a spot job's pods go there.
	Spot bool
}

// OraclePools turns a pools file into the oracle's pools; a VM size the
// catalogue lacks is an error naming the pool and field.
func OraclePools(pf PoolsFile) ([]OraclePool, error) {
	out := make([]OraclePool, 0, len(pf.Pools))
	for _, p := range pf.Pools {
		shape, ok := vmShapes[p.VMSize]
		if !ok {
			return nil, fmt.Errorf("oracle: pool %q: field vmSize: unknown size %q", p.Name, p.VMSize)
		}
		price := p.PricePerHour
		if price == 0 {
			price = shape.Price
		}
		out = append(out, OraclePool{Name: p.Name, GPUs: shape.GPUs, MilliCPU: int64(shape.VCPUs) * 1000, Max: p.Max,
			Boot: time.Duration(p.BootMinutes * float64(time.Minute)), Price: price, PlacementGroup: p.PlacementGroup != "", Spot: p.Spot})
	}
	return out, nil
}

// OracleJob is where the oracle ran one job: its members on Nodes nodes of
// Pool, its launcher (if any) on a node of LauncherPool, each node paid for
// its pool's boot time plus the job's run.
type OracleJob struct {
	Name          string
	Pool          string
	Nodes         int
	LauncherPool  string
	PaidGPUHours  float64
	UsedGPUHours  float64
	Cost          float64
	Unplaceable   bool // no pool holds the job at max
	UnplaceableBy string
}

// Oracle is the physical limit of a trace on its pools: every job's nodes
// come up exactly their pool's boot time before the job starts and go as
// it ends, at max members, on the cheapest pool that takes it.
type Oracle struct {
	Jobs                                           []OracleJob
	PaidGPUHours, UsedGPUHours, IdleGPUHours, Cost float64
}

// OracleOf computes the oracle of a trace on pools. For each job, its
// members at max (a plain job's pods, each for its run; a gang's workers at
// max, for its run-minutes, its run at max) are packed on whole nodes of one
// pool: the cheapest for the job among the pools whose node holds at least
// one member (GPUs and CPU), that the members tolerate (a GPU pool's taint
// only GPU pods, a spot pool's only a spot job's, a require= job only a
// placement group's pool) and that hold the job within their max. A
// launcher asks for no GPU and tolerates no GPU taint, so it takes a node
// of the cheapest pool without GPUs. A job no pool holds at max never runs
// and costs nothing. Jobs are placed each alone: pools' max are not shared
// between jobs that overlap in time, nor their min nodes counted. It is not
// a lower bound on a replay: a side that runs a job on nodes still up from
// an earlier one pays no boot for it, and a replay that ends before its
// jobs are done pays for less work (the report gives the share of the
// oracle's work each side did).
func OracleOf(trace Trace, pools []OraclePool) Oracle {
	var o Oracle
	for _, j := range trace.Jobs {
		oj := oracleJob(j, pools)
		o.Jobs = append(o.Jobs, oj)
		o.PaidGPUHours += oj.PaidGPUHours
		o.UsedGPUHours += oj.UsedGPUHours
		o.Cost += oj.Cost
	}
	o.IdleGPUHours = o.PaidGPUHours - o.UsedGPUHours
	return o
}

func oracleJob(j Job, pools []OraclePool) OracleJob {
	_, most := j.Workers()
	w, l, ok, why := placeJob(j, pools, most)
	if !ok {
		return OracleJob{Name: j.Name, Unplaceable: true, UnplaceableBy: why}
	}
	oj := OracleJob{Name: j.Name, Pool: w.pool.Name, Nodes: w.nodes, Cost: w.cost + l.cost, LauncherPool: l.pool.Name}
	oj.PaidGPUHours = float64(w.nodes*w.pool.GPUs) * (w.pool.Boot + j.Run).Hours()
	oj.UsedGPUHours = float64(int64(w.count)*j.GPUs) * j.Run.Hours()
	return oj
}

// CanRun says whether the pools could ever run job j, alone on them: its
// min workers (a plain job: its pods) on one pool within that pool's max,
// and its launcher on a CPU pool, placed as the oracle places a job. A
// replay run until its jobs are done waits for the jobs that can run.
func CanRun(j Job, pools []OraclePool) bool {
	least, _ := j.Workers()
	_, _, ok, _ := placeJob(j, pools, least)
	return ok
}

// placeJob places a job with the given number of workers (a plain job: all
// its pods, whatever workers says) on the cheapest pool that holds them,
// and its launcher, if any, on the cheapest CPU pool (launcher is then the
// zero place); why says what no pool holds.
func placeJob(j Job, pools []OraclePool, workers int) (w, launcher place, ok bool, why string) {
	if j.Kind != KindGang {
		workers = j.Members
	}
	if w, ok = cheapestPlace(j, pools, j.GPUs, max(j.MilliCPU, 100), workers); !ok {
		return w, launcher, false, fmt.Sprintf("no pool holds %d x %s", workers, shape(j))
	}
	if j.LauncherMilliCPU > 0 {
		if launcher, ok = cheapestPlace(j, pools, 0, max(j.LauncherMilliCPU, 100), 1); !ok {
			return w, launcher, false, "no CPU pool holds its launcher"
		}
	}
	return w, launcher, true, ""
}

// place is count pods of a job on nodes of one pool, and what that costs
// for the job's run and the pool's boot.
type place struct {
	pool  OraclePool
	count int
	nodes int
	cost  float64
}

// cheapestPlace packs count pods of job j, each asking gpus GPUs and
// milliCPU of CPU, on whole nodes of the cheapest pool that takes them:
// its node holds at least one pod, the pods tolerate it (a GPU pool's
// taint only GPU pods, a spot pool's only a spot job's, a require= job's
// GPU pods only a placement group's pool) and it holds them within its
// max. False if no pool does.
func cheapestPlace(j Job, pools []OraclePool, gpus, milliCPU int64, count int) (place, bool) {
	var cs []place
	for _, p := range pools {
		if (gpus > 0) != (p.GPUs > 0) || (p.Spot && !j.Spot) || (j.Require != "" && gpus > 0 && !p.PlacementGroup) {
			continue
		}
		perNode := int(p.MilliCPU / milliCPU)
		if gpus > 0 {
			perNode = min(perNode, p.GPUs/int(gpus))
		}
		if perNode < 1 {
			continue
		}
		nodes := (count + perNode - 1) / perNode
		if nodes > p.Max {
			continue
		}
		cs = append(cs, place{p, count, nodes, float64(nodes) * p.Price * (p.Boot + j.Run).Hours()})
	}
	if len(cs) == 0 {
		return place{}, false
	}
	return slices.MinFunc(cs, func(a, b place) int {
		if a.cost != b.cost {
			return cmp.Compare(a.cost, b.cost)
		}
		return cmp.Compare(a.pool.Name, b.pool.Name)
	}), true
}

// multiple renders x as a multiple of the oracle's ref ("-" when the
// oracle's is zero).
func multiple(x, ref float64) string {
	if ref <= 0 || math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.2fx", x/ref)
}
