// Package bench measures muster-scheduler's throughput against the upstream
// default scheduler on the in-process control plane of test/controlplane. The Go
// benchmark (BenchmarkThroughput) and the muster-bench command share it.
package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/muster-project/muster/pkg/controlplane"
)

const (
	// NodePrefix names the benchmark's nodes: bench-node-0..n-1.
	NodePrefix = "bench-node"
	// GPUsPerNode is every benchmark node's GPU count; each pod asks for one.
	GPUsPerNode = 8
	// DefaultProfile is the upstream default scheduler's profile name.
	DefaultProfile = "default-scheduler"
)

// Scenario is one way of scheduling the pods.
type Scenario struct {
	Name string
	// GangSize is the size (min = max) of the CRD-free gangs the pods form
	// under muster-scheduler; 0 means plain pods under the default profile.
	GangSize int
	// Mixed: gangs of MixedSizes in turn, each of an MPI job's shape, a
	// launcher without GPUs (and one CPU) and workers of one GPU.
	Mixed bool
	// Upstream: the gangs are upstream's scheduling.k8s.io/v1beta1
	// PodGroups (gang policy, minCount GangSize) under the default
	// profile, which schedules them with its GangScheduling plugin; the
	// control plane must serve the Workload API (controlplane.Options).
	Upstream bool
	// Priorities: every other gang runs at PriorityClass HighPriority, so
	// gangs of two priorities are queued and planned together.
	Priorities bool
}

// HighPriority is the PriorityClass (value 1000) of the Priorities
// scenarios' high-priority gangs; Run creates it.
const HighPriority = "bench-high"

// WarmUpPriority is the PriorityClass (value 1000000) of the warm-up pod of
// a PreCreate run, so that the scheduler takes it before the waiting pods.
const WarmUpPriority = "bench-warm-up"

// MixedSizes are the sizes the Mixed scenario's gangs take in turn.
var MixedSizes = []int{1, 2, 4, 8, 16, 32, 64}

var (
	// Plain is the baseline: ungrouped pods under the upstream default profile.
	Plain = Scenario{Name: "plain"}
	// Gang8 is the pods in CRD-free gangs of 8 under muster-scheduler.
	Gang8 = Scenario{Name: "gang8", GangSize: 8}
	// Gang64 is the pods in CRD-free gangs of 64 under muster-scheduler.
	Gang64 = Scenario{Name: "gang64", GangSize: 64}
	// Gang512 is the pods in CRD-free gangs of 512 under muster-scheduler.
	Gang512 = Scenario{Name: "gang512", GangSize: 512}
	// Mixed is the pods in gangs of 1 to 64, launcher plus workers.
	Mixed = Scenario{Name: "mixed", Mixed: true}
	// Upstream8, Upstream64, Upstream512 and UpstreamMixed are the same
	// gangs as upstream PodGroups under upstream's GangScheduling.
	Upstream8     = Scenario{Name: "upstream8", GangSize: 8, Upstream: true}
	Upstream64    = Scenario{Name: "upstream64", GangSize: 64, Upstream: true}
	Upstream512   = Scenario{Name: "upstream512", GangSize: 512, Upstream: true}
	UpstreamMixed = Scenario{Name: "upstream-mixed", Mixed: true, Upstream: true}
	// Scale is muster-bench --scale's load: gangs of 50 (a launcher and 49
	// one-GPU workers) at two priorities.
	Scale = Scenario{Name: "scale", GangSize: 50, Mixed: true, Priorities: true}
)

// Scenarios returns the standard scenarios in report order; with upstream,
// also upstream's gang scheduling of each gang scenario's gangs.
func Scenarios(upstream bool) []Scenario {
	s := []Scenario{Plain, Gang8, Gang64, Gang512, Mixed}
	if upstream {
		s = append(s, Upstream8, Upstream64, Upstream512, UpstreamMixed)
	}
	return s
}

// UpstreamOf is the upstream scenario with sc's gangs, if there is one.
func UpstreamOf(sc Scenario) (Scenario, bool) {
	for _, u := range []Scenario{Upstream8, Upstream64, Upstream512, UpstreamMixed} {
		if !sc.Upstream && u.GangSize == sc.GangSize && u.Mixed == sc.Mixed {
			return u, true
		}
	}
	return Scenario{}, false
}

// gangOf is gang g of n members in scenario sc: under Muster, pods
// labelled as a CRD-free gang; upstream, a v1beta1 PodGroup with a gang
// policy and pods that name it in spec.schedulingGroup. A Mixed gang has an
// MPI job's shape: a launcher without GPUs (one CPU) and n-1 one-GPU
// workers (a gang of one is a lone worker).
func gangOf(ns string, sc Scenario, g, n int) (*schedulingv1beta1.PodGroup, []*v1.Pod) {
	name := fmt.Sprintf("g-%d", g)
	if sc.Mixed {
		name = fmt.Sprintf("m-%d", g)
	}
	var pg *schedulingv1beta1.PodGroup
	var ms []controlplane.Member
	if sc.Upstream {
		name = "u-" + name
		pg = controlplane.WorkloadPodGroup(ns, name, int32(n))
		for i := 0; i < n; i++ {
			ms = append(ms, controlplane.Member{Namespace: ns, Name: fmt.Sprintf("%s-%d", name, i), Scheduler: DefaultProfile, GPUs: 1, SchedulingGroup: name})
		}
	} else {
		ms = controlplane.LabelMembers(ns, name, n, 1, n, n)
	}
	pods := make([]*v1.Pod, 0, n)
	for i, m := range ms {
		if sc.Mixed && i == 0 && n > 1 {
			m.Name, m.GPUs = name+"-launcher", 0
			p := m.Pod()
			p.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = resource.MustParse("1")
			pods = append(pods, p)
			continue
		}
		pods = append(pods, m.Pod())
	}
	return pg, pods
}

// Config sizes a run; zero fields take the defaults.
type Config struct {
	Nodes            int           // default 1000
	Pods             int           // default 2000; rounded down to whole gangs
	Creators         int           // concurrent pod creators, default 16
	StatusSyncMillis int64         // MusterGang statusSyncMillis, default 1000
	Timeout          time.Duration // for all pods to bind, default 5m
	// StartScheduler, when set, starts the scheduler of scenario sc from
	// its KubeSchedulerConfiguration instead of env.StartScheduler or
	// env.StartKubeScheduler (in process), e.g. as a muster-scheduler or
	// kube-scheduler process; stop ends it.
	StartScheduler func(ctx context.Context, config string, sc Scenario) (stop func(), err error)
	// Creating and Bound, when set, are called just before the first pod
	// is created (with PreCreate: just after the scheduler is started) and
	// once every pod is bound (not on a timeout).
	Creating, Bound func()
	// PreCreate creates every pod (and PodGroup) before the scheduler
	// starts, as scheduler_perf measures: the scheduler finds them all
	// waiting, and its throughput is measured apart from their creation
	// (Result.SchedPodsPerSec). Its start-up ends when it has bound a
	// warm-up pod made at the top priority (WarmUpPriority) once it runs,
	// which it takes before every waiting pod.
	PreCreate bool
}

func (c Config) withDefaults() Config {
	if c.Nodes <= 0 {
		c.Nodes = 1000
	}
	if c.Pods <= 0 {
		c.Pods = 2000
	}
	if c.Creators <= 0 {
		c.Creators = 16
	}
	if c.StatusSyncMillis <= 0 {
		c.StatusSyncMillis = 1000
	}
	if c.Timeout <= 0 {
		c.Timeout = 5 * time.Minute
	}
	return c
}

// Result holds one scenario run's figures.
type Result struct {
	Scenario  string
	Namespace string
	Pods      int // pods created
	Gangs     int // gangs created (0 for plain)
	Bound     int // pods seen bound
	// Elapsed runs from the first pod creation call to the last bind seen;
	// Creating, to the last creation call's return.
	Elapsed, Creating time.Duration
	PodsPerSec        float64
	// Scheduling runs from the first bind seen (with PreCreate: from the
	// warm-up pod's bind, or the first bind if earlier) to the last:
	// scheduling alone, the scheduler's start-up and (with PreCreate) the
	// pods' creation left out. SchedPodsPerSec is the binds in it (after
	// its start) per second. Startup (PreCreate only) runs from the
	// scheduler's start to the start of Scheduling.
	Scheduling, Startup time.Duration
	SchedPodsPerSec     float64
	// Latencies are, for gangs, one per gang that reached its min: the time
	// of its min-th bind minus the time its last member's create call
	// returned (with PreCreate: minus the warm-up pod's bind, as every
	// member was waiting before the scheduler ran); for plain pods, one per
	// bound pod: bind minus create return (PreCreate: minus the warm-up
	// pod's bind).
	Latencies []time.Duration
	P50, P99  time.Duration
	// MemberLatencies are, for gangs, one per bound member: its bind minus
	// its own create call's return (without PreCreate), what a member
	// waits from its creation, the rest of its gang's creation included.
	MemberLatencies []time.Duration
	MemberP99       time.Duration
	// Breakdown is where the pods' time went, from the scheduler's
	// metrics; only with the scheduler in this process (no
	// Config.StartScheduler).
	Breakdown Breakdown
	// Writes counts the API writes made while the pods were created and
	// scheduled ("VERB resource[/subresource]"), by every client: the
	// pods' creation, binds, status and events, the schedulers' leases.
	Writes map[string]float64
}

// WritesPerPod is the run's API writes per pod, the pods' own creation
// left out.
func (r Result) WritesPerPod() float64 {
	if r.Pods == 0 {
		return 0
	}
	total := 0.0
	for k, v := range r.Writes {
		if k != "POST pods" {
			total += v
		}
	}
	return total / float64(r.Pods)
}

// EnsureNodes makes sure nodes bench-node-0..n-1 exist (GPUsPerNode GPUs
// each), creating the missing ones with a few goroutines.
func EnsureNodes(ctx context.Context, c kubernetes.Interface, n int) error {
	list, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	have := make(map[string]bool, len(list.Items))
	for _, node := range list.Items {
		have[node.Name] = true
	}
	names := make(chan string)
	errc := make(chan error, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				if err := controlplane.CreateNode(ctx, c, controlplane.GPUNode(name, GPUsPerNode)); err != nil && !apierrors.IsAlreadyExists(err) {
					select {
					case errc <- fmt.Errorf("creating node %s: %w", name, err):
					default:
					}
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%s-%d", NodePrefix, i)
		if have[name] {
			continue
		}
		select {
		case names <- name:
		case err := <-errc:
			close(names)
			wg.Wait()
			return err
		}
	}
	close(names)
	wg.Wait()
	select {
	case err := <-errc:
		return err
	default:
		return nil
	}
}

// podSet is the pods of a run and what the benchmark saw happen to them.
type podSet struct {
	pods  []*v1.Pod
	gang  []int // pod index -> gang index (-1 for plain)
	gangs [][]int
	index map[string]int

	mu        sync.Mutex
	created   []time.Time
	bound     []time.Time
	nBound    int
	gangBound []int
	gangMin   []time.Time // when each gang's min-th bind was seen
	allBound  chan struct{}
	// podGroups are the upstream scenario's PodGroups, made before the pods.
	podGroups []*schedulingv1beta1.PodGroup
}

func buildPods(ns string, sc Scenario, n int) *podSet {
	s := &podSet{index: map[string]int{}, allBound: make(chan struct{})}
	add := func(p *v1.Pod, g int) {
		s.index[p.Name] = len(s.pods)
		s.pods = append(s.pods, p)
		s.gang = append(s.gang, g)
	}
	addGang := func(pods []*v1.Pod) {
		g := len(s.gangs)
		idx := make([]int, 0, len(pods))
		for _, p := range pods {
			idx = append(idx, len(s.pods))
			add(p, g)
		}
		s.gangs = append(s.gangs, idx)
	}
	addGroup := func(g, size int) {
		pg, pods := gangOf(ns, sc, g, size)
		if sc.Priorities && g%2 == 1 {
			for _, p := range pods {
				p.Spec.PriorityClassName = HighPriority
			}
			if pg != nil {
				// Upstream fails every member whose priority is not
				// its group's.
				pg.Spec.PriorityClassName = HighPriority
			}
		}
		if pg != nil {
			s.podGroups = append(s.podGroups, pg)
		}
		addGang(pods)
	}
	switch {
	case sc.Mixed && sc.GangSize <= 0:
		for g, left := 0, n; ; g++ {
			size := MixedSizes[g%len(MixedSizes)]
			if size > left {
				break
			}
			left -= size
			addGroup(g, size)
		}
	case sc.GangSize <= 0:
		for i := 0; i < n; i++ {
			add(controlplane.Member{Namespace: ns, Name: fmt.Sprintf("p-%d", i), Scheduler: DefaultProfile, GPUs: 1}.Pod(), -1)
		}
	default:
		for g := 0; g < n/sc.GangSize; g++ {
			addGroup(g, sc.GangSize)
		}
	}
	s.created = make([]time.Time, len(s.pods))
	s.bound = make([]time.Time, len(s.pods))
	s.gangBound = make([]int, len(s.gangs))
	s.gangMin = make([]time.Time, len(s.gangs))
	return s
}

// observe records the first time a pod is seen with a node.
func (s *podSet) observe(obj any) {
	now := time.Now()
	p, ok := obj.(*v1.Pod)
	if !ok || p.Spec.NodeName == "" {
		return
	}
	i, ok := s.index[p.Name]
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.bound[i].IsZero() {
		return
	}
	s.bound[i] = now
	if g := s.gang[i]; g >= 0 {
		s.gangBound[g]++
		if s.gangBound[g] == len(s.gangs[g]) { // min = gang size
			s.gangMin[g] = now
		}
	}
	s.nBound++
	if s.nBound == len(s.pods) {
		close(s.allBound)
	}
}

// Run runs scenario sc once on env: it makes sure the nodes exist, starts the
// scenario's scheduler in a fresh namespace, creates the pods concurrently,
// waits for every bind, then stops the scheduler and deletes the pods, so
// runs can follow each other in one process. It returns the figures it got
// with any error (a timeout leaves a partial Result).
func Run(ctx context.Context, env *controlplane.Env, cfg Config, sc Scenario) (res Result, err error) {
	cfg = cfg.withDefaults()
	res.Scenario = sc.Name
	if err := EnsureNodes(ctx, env.Client, cfg.Nodes); err != nil {
		return res, err
	}
	if !sc.Upstream && env.WorkloadAPI() {
		// Muster runs as muster-scheduler ships, with GenericWorkload off,
		// though the control plane serves upstream's scenarios too.
		restore, err := env.WorkloadGatesOff()
		if err != nil {
			return res, err
		}
		defer func() {
			if rerr := restore(); rerr != nil && err == nil {
				err = rerr
			}
		}()
	}
	nsObj, err := env.Client.CoreV1().Namespaces().Create(ctx,
		&v1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-" + sc.Name + "-"}}, metav1.CreateOptions{})
	if err != nil {
		return res, err
	}
	ns := nsObj.Name
	res.Namespace = ns
	set := buildPods(ns, sc, cfg.Pods)
	res.Pods, res.Gangs = len(set.pods), len(set.gangs)
	defer func() {
		if cerr := deletePods(context.WithoutCancel(ctx), env.Client, ns); cerr != nil && err == nil {
			err = fmt.Errorf("deleting the pods of namespace %s: %w", ns, cerr)
		}
	}()

	// Watch the namespace's pods before any exist.
	factory := informers.NewSharedInformerFactoryWithOptions(env.Client, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    set.observe,
		UpdateFunc: func(_, obj any) { set.observe(obj) },
	}); err != nil {
		return res, err
	}
	stop := make(chan struct{})
	defer factory.Shutdown()
	defer close(stop)
	factory.Start(stop)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return res, errors.New("pod informer did not sync")
	}

	// Start the scenario's scheduler and wait until it binds a warm-up pod,
	// so its start-up is not part of the measurement.
	kc, err := env.Kubeconfig()
	if err != nil {
		return res, err
	}
	profile, config := DefaultProfile, controlplane.DefaultConfig(kc)
	if (sc.GangSize > 0 || sc.Mixed) && !sc.Upstream {
		profile, config = controlplane.MusterProfile, controlplane.MusterConfig(kc, controlplane.GangArgs{StatusSyncMillis: cfg.StatusSyncMillis})
	}
	// Each scheduler runs as it ships: upstream's gang scheduling with
	// kube-scheduler's feature gates (GenericWorkload on), Muster with
	// muster-scheduler's.
	startScheduler := func(ctx context.Context, config string) (func(), error) {
		if cfg.StartScheduler != nil {
			return cfg.StartScheduler(ctx, config, sc)
		}
		start := env.StartScheduler
		if sc.Upstream {
			start = env.StartKubeScheduler
		}
		s, err := start(ctx, config)
		if err != nil {
			return nil, err
		}
		return s.Stop, nil
	}
	stopSched := func() {}
	defer func() { stopSched() }()

	var schedStart time.Time
	launch := func() error {
		schedStart = time.Now()
		stop, err := startScheduler(ctx, config)
		if err != nil {
			return err
		}
		var stopOnce sync.Once
		stopSched = func() { stopOnce.Do(stop) }
		return nil
	}
	if sc.Priorities {
		if err := controlplane.CreatePriorityClass(ctx, env.Client, HighPriority, 1000); err != nil && !apierrors.IsAlreadyExists(err) {
			return res, err
		}
	}
	if cfg.PreCreate {
		if err := controlplane.CreatePriorityClass(ctx, env.Client, WarmUpPriority, 1000000); err != nil && !apierrors.IsAlreadyExists(err) {
			return res, err
		}
	}
	if !cfg.PreCreate {
		if err := launch(); err != nil {
			return res, err
		}
		if err := warmUp(ctx, env.Client, ns, profile, "", 2*time.Minute); err != nil {
			return res, err
		}
	}
	// Upstream's PodGroups exist before their pods, as a workload
	// controller makes them; not part of the measurement.
	for _, pg := range set.podGroups {
		if _, err := env.Client.SchedulingV1beta1().PodGroups(ns).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
			return res, fmt.Errorf("creating PodGroup %s/%s (does the control plane serve scheduling.k8s.io/v1beta1?): %w", ns, pg.Name, err)
		}
	}

	// Create every pod with cfg.Creators goroutines, in order, so a gang's
	// members arrive together.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	before, err := env.APIWrites(ctx)
	if err != nil {
		return res, err
	}
	// The scheduler's metrics from here (after the warm-up pod; with
	// PreCreate, the warm-up pod is counted).
	var metricsBefore map[string]histogram
	if cfg.StartScheduler == nil {
		if metricsBefore, err = schedulerHistograms(); err != nil {
			return res, err
		}
	}
	next := make(chan int)
	var createErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	if cfg.Creating != nil && !cfg.PreCreate {
		cfg.Creating()
	}
	start := time.Now()
	for range cfg.Creators {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if _, err := env.Client.CoreV1().Pods(ns).Create(ctx, set.pods[i], metav1.CreateOptions{}); err != nil {
					errOnce.Do(func() { createErr = fmt.Errorf("creating pod %s/%s: %w", ns, set.pods[i].Name, err); cancel() })
					continue
				}
				t := time.Now()
				set.mu.Lock()
				set.created[i] = t
				set.mu.Unlock()
			}
		}()
	}
feed:
	for i := range set.pods {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if createErr != nil {
		return res, createErr
	}
	var ready time.Time // PreCreate: the warm-up pod's bind
	if cfg.PreCreate {
		if err := launch(); err != nil {
			return res, err
		}
		if cfg.Creating != nil {
			cfg.Creating()
		}
		// The scheduler may take long to come to it (a long cycle in
		// progress, a slow start with every pod waiting): the run's
		// timeout bounds it.
		if err := warmUp(ctx, env.Client, ns, profile, WarmUpPriority, cfg.Timeout); err != nil {
			return res, err
		}
		ready = time.Now()
	}

	var waitErr error
	select {
	case <-set.allBound:
		if cfg.Bound != nil {
			cfg.Bound()
		}
	case <-time.After(cfg.Timeout):
		waitErr = fmt.Errorf("%s: timed out after %v waiting for binds", sc.Name, cfg.Timeout)
	case <-ctx.Done():
		waitErr = ctx.Err()
	}
	var metricsAfter map[string]histogram
	if waitErr == nil {
		// Let the scheduler post its events before it is stopped, so
		// stopping it does not cancel requests in flight (and log about it).
		settleEvents(ctx, env.Client, ns)
		if metricsBefore != nil {
			if metricsAfter, err = schedulerHistograms(); err != nil {
				return res, err
			}
		}
		after, err := env.APIWrites(ctx)
		if err != nil {
			return res, err
		}
		res.Writes = map[string]float64{}
		for k, v := range after {
			if d := v - before[k]; d > 0 {
				res.Writes[k] = d
			}
		}
	}
	stopSched()

	set.mu.Lock()
	defer set.mu.Unlock()
	res.Bound = set.nBound
	var first, last time.Time
	for _, t := range set.bound {
		if t.After(last) {
			last = t
		}
		if !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	for _, t := range set.created {
		res.Creating = max(res.Creating, t.Sub(start))
	}
	if res.Bound > 0 {
		res.Elapsed = last.Sub(start)
		res.PodsPerSec = float64(res.Bound) / res.Elapsed.Seconds()
		res.Scheduling = last.Sub(first)
		binds := res.Bound - 1
		if cfg.PreCreate {
			// Scheduling had begun by the warm-up pod's bind, or by
			// the first bind of the run's pods if that came first
			// (binds are asynchronous: the scheduler goes on while
			// the warm-up pod's is in flight).
			if first.Before(ready) {
				ready = first
			}
			res.Startup = ready.Sub(schedStart)
			res.Scheduling, binds = last.Sub(ready), 0
			for _, t := range set.bound {
				if t.After(ready) {
					binds++
				}
			}
		}
		if binds > 0 && res.Scheduling > 0 {
			res.SchedPodsPerSec = float64(binds) / res.Scheduling.Seconds()
		}
	}
	// from is when pod i's wait is counted from: its create call's return,
	// or with PreCreate the warm-up pod's bind (every pod waited for the
	// scheduler).
	from := func(i int) time.Time {
		if cfg.PreCreate {
			return ready
		}
		return set.created[i]
	}
	if len(set.gangs) > 0 {
		for g, members := range set.gangs {
			for _, i := range members {
				if !set.bound[i].IsZero() && !cfg.PreCreate {
					res.MemberLatencies = append(res.MemberLatencies, set.bound[i].Sub(set.created[i]))
				}
			}
			if set.gangMin[g].IsZero() {
				continue
			}
			var lastCreated time.Time
			for _, i := range members {
				if t := from(i); t.After(lastCreated) {
					lastCreated = t
				}
			}
			res.Latencies = append(res.Latencies, set.gangMin[g].Sub(lastCreated))
		}
	} else {
		for i, t := range set.bound {
			if !t.IsZero() {
				res.Latencies = append(res.Latencies, t.Sub(from(i)))
			}
		}
	}
	res.P50, res.P99 = Percentile(res.Latencies, 0.50), Percentile(res.Latencies, 0.99)
	res.MemberP99 = Percentile(res.MemberLatencies, 0.99)
	if metricsAfter != nil {
		var total time.Duration
		n := 0
		for i, t := range set.bound {
			if !t.IsZero() && !set.created[i].IsZero() {
				total += t.Sub(set.created[i])
				n++
			}
		}
		if n > 0 {
			res.Breakdown = breakdownOf(metricsBefore, metricsAfter, profile, res, total/time.Duration(n))
		}
	}
	if waitErr == nil && res.Bound != res.Pods {
		waitErr = fmt.Errorf("%s: %d of %d pods bound", sc.Name, res.Bound, res.Pods)
	}
	if waitErr != nil {
		waitErr = fmt.Errorf("%w (%d of %d pods bound, %d of %d gangs at min)", waitErr, res.Bound, res.Pods, len(res.Latencies), res.Gangs)
	}
	return res, waitErr
}

// GangsAtMin is how many gangs reached their min (plain runs: 0).
func (r Result) GangsAtMin() int {
	if r.Gangs == 0 {
		return 0
	}
	return len(r.Latencies)
}

// warmUp creates one ungrouped pod for profile (at priorityClass, if set)
// and waits for at most timeout until it is bound, then deletes it.
func warmUp(ctx context.Context, c kubernetes.Interface, ns, profile, priorityClass string, timeout time.Duration) error {
	p := controlplane.Member{Namespace: ns, Name: "warm-up", Scheduler: profile}.Pod()
	p.Spec.PriorityClassName = priorityClass
	if _, err := c.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating warm-up pod: %w", err)
	}
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		got, err := c.CoreV1().Pods(ns).Get(ctx, p.Name, metav1.GetOptions{})
		return err == nil && got.Spec.NodeName != "", nil
	})
	if err != nil {
		return fmt.Errorf("scheduler %s did not bind the warm-up pod: %w", profile, err)
	}
	return c.CoreV1().Pods(ns).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
}

// settleEvents waits, for at most 15s, until the number of events in ns
// stops growing.
func settleEvents(ctx context.Context, c kubernetes.Interface, ns string) {
	last, still := -1, 0
	_ = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 15*time.Second, true, func(ctx context.Context) (bool, error) {
		list, err := c.EventsV1().Events(ns).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			return false, nil
		}
		if n := len(list.Items); n != last {
			last, still = n, 0
			return false, nil
		}
		still++
		return still >= 4, nil
	})
}

// deletePods deletes every pod in ns at once and waits until they are gone.
// (Namespaces are left in place: the test control plane runs no namespace
// controller to finalize them.)
func deletePods(ctx context.Context, c kubernetes.Interface, ns string) error {
	if err := c.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}, metav1.ListOptions{}); err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil && len(list.Items) == 0, nil
	})
}

// Percentile returns the nearest-rank q-quantile (0 < q <= 1) of ds, 0 if empty.
func Percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	k := int(math.Ceil(q*float64(len(s)))) - 1
	k = max(0, min(k, len(s)-1))
	return s[k]
}

// Ms is d in milliseconds.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
