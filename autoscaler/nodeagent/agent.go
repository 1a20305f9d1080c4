// Package nodeagent plays the kubelets of a simulated cloud: every instance
// that finished provisioning gets a Ready Node in the API server, built from
// the template the cloud provider gives its pool (the node the autoscaler
// expected when it scaled up), and every Node whose instance is gone is
// deleted together with the pods bound to it, as the cloud node lifecycle
// controller and the pod garbage collector would. It runs no pods.
//
// The agent only touches Nodes it registered: their provider ID starts with
// the cloud's prefix and they carry the RegisteredByAnnotation.
package nodeagent

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	apiv1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/autoscaler/cluster-autoscaler/cloudprovider"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/muster-project/muster/autoscaler/cloudprovider/agentpool"
)

// RegisteredByAnnotation marks the Nodes the agent registered; its value is
// the agent's Name.
const RegisteredByAnnotation = "muster.dev/registered-by"

// Instance is one cloud instance as the agent sees it.
type Instance struct {
	// ProviderID as the cloud reports it (azure:///subscriptions/...).
	ProviderID   string
	ComputerName string
	// Zone is the instance's availability zone ("1"), empty when not zonal.
	Zone string
	// Running is true once the instance has provisioned (its kubelet would
	// register); Gone is true while it is being deleted (its kubelet is
	// stopped).
	Running bool
	Gone    bool
}

// Cloud lists the instances of the pools the agent watches.
type Cloud interface {
	Instances() ([]Instance, error)
}

// Config configures an Agent.
type Config struct {
	// Name is the value of RegisteredByAnnotation (default "armlocal").
	Name   string
	Client kubernetes.Interface
	Cloud  Cloud
	// Provider gives each instance's pool (NodeGroupForNode) and its
	// template node (TemplateNodeInfo).
	Provider cloudprovider.CloudProvider
	// ProviderIDPrefix: only Nodes whose provider ID starts with it
	// (case-insensitively) are ever changed or deleted.
	ProviderIDPrefix string
	// Interval between passes of Run (default 500ms).
	Interval time.Duration
}

// Agent registers and removes Nodes; see the package comment.
type Agent struct {
	cfg Config

	// pass serialises Sync: two passes at once would both register the
	// same new instance (one failing with AlreadyExists).
	pass sync.Mutex

	mu     sync.Mutex
	warned map[string]bool // instance provider IDs / node names already logged as skipped
	// podsLeft names nodes removed whose pods are not all deleted yet: the
	// next pass deletes them.
	podsLeft map[string]bool
	// clean is the cloud (instancesKey) as the last pass that found
	// nothing to do and failed nowhere saw it; "" after any other pass.
	// Only passes run under pass read or write it.
	clean string
	// seen is the resourceVersion of the agent's last answer about Nodes
	// (a list, or a Node it wrote): a pass on request (Sync) lists Nodes
	// not older than it, and sees its own writes without a consistent
	// list, which waits for the API server's watch cache to catch up with
	// etcd (up to 100 ms, for the cache's next progress notification; a
	// stepped simulator asks for a pass twice a step). Full passes list
	// consistently. "" (at first, after an error): consistent. Only passes
	// use it.
	seen string
}

// New checks cfg and returns an agent.
func New(cfg Config) (*Agent, error) {
	if cfg.Client == nil || cfg.Cloud == nil || cfg.Provider == nil {
		return nil, fmt.Errorf("nodeagent: Client, Cloud and Provider are required")
	}
	if cfg.ProviderIDPrefix == "" {
		return nil, fmt.Errorf("nodeagent: ProviderIDPrefix is required")
	}
	if cfg.Name == "" {
		cfg.Name = "armlocal"
	}
	if cfg.Interval <= 0 {
		cfg.Interval = 500 * time.Millisecond
	}
	return &Agent{cfg: cfg, warned: map[string]bool{}, podsLeft: map[string]bool{}}, nil
}

// Run makes a full pass (SyncAll) every interval until ctx ends, logging
// failed passes.
func (a *Agent) Run(ctx context.Context) {
	t := time.NewTicker(a.cfg.Interval)
	defer t.Stop()
	for {
		if _, err := a.SyncAll(ctx); err != nil && ctx.Err() == nil {
			klog.ErrorS(err, "Node agent pass failed; retrying")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Result says what one pass did.
type Result struct {
	Registered []string // node names
	Deleted    []string // node names
}

// Sync makes one pass: register Nodes for running instances that have none,
// finish registrations a failed pass left half done, delete the agent's
// Nodes whose instance is gone. It goes on after a failure on one node and
// returns the first error. Calls are serialised: one made during another
// pass (Run's, say) waits for it, then makes its own, which sees the cloud
// as it is when that pass starts.
//
// A pass that finds the cloud's instances as the last pass with nothing to
// do left them has nothing to do either, and lists no Nodes: kubelets
// register and only the agent removes, so no Node changed that it acts on.
// A simulator asks for a pass twice a trace step, and the list, a
// consistent read, cost more than anything else in it. Run's periodic
// passes list every time (SyncAll), so a Node deleted by hand while its
// instance runs is registered again, as a kubelet would.
func (a *Agent) Sync(ctx context.Context) (Result, error) { return a.sync(ctx, false) }

// SyncAll is Sync that lists the Nodes whatever the cloud looks like.
func (a *Agent) SyncAll(ctx context.Context) (Result, error) { return a.sync(ctx, true) }

func (a *Agent) sync(ctx context.Context, all bool) (res Result, err error) {
	a.pass.Lock()
	defer a.pass.Unlock()
	insts, err := a.cfg.Cloud.Instances()
	if err != nil {
		a.clean = ""
		return res, fmt.Errorf("listing instances: %w", err)
	}
	cloud := instancesKey(insts)
	if !all && a.clean == cloud {
		return res, nil
	}
	a.clean = ""
	defer func() {
		if err == nil && len(res.Registered)+len(res.Deleted) == 0 && !a.removingPods() {
			a.clean = cloud
		}
	}()
	nodes, err := a.listNodes(ctx, all)
	if err != nil {
		return res, fmt.Errorf("listing nodes: %w", err)
	}
	byPID := map[string]*apiv1.Node{}
	byName := map[string]*apiv1.Node{}
	for i := range nodes.Items {
		n := &nodes.Items[i]
		byName[n.Name] = n
		if n.Spec.ProviderID != "" {
			byPID[strings.ToLower(n.Spec.ProviderID)] = n
		}
	}
	var firstErr error
	keep := func(err error) {
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	live := map[string]bool{}
	for _, inst := range insts {
		pid := strings.ToLower(ProviderID(inst.ProviderID))
		if inst.Gone {
			continue
		}
		live[pid] = true
		if !inst.Running {
			continue
		}
		if n, ok := byPID[pid]; ok {
			if a.owns(n) {
				keep(a.finish(ctx, n))
			}
			continue
		}
		if n, ok := byName[inst.ComputerName]; ok {
			a.warnOnce("name:"+n.Name, "A node with the instance's name exists for another provider ID; not registering", "node", n.Name, "nodeProviderID", n.Spec.ProviderID, "instance", inst.ProviderID)
			continue
		}
		ok, err := a.register(ctx, inst)
		keep(err)
		if ok {
			res.Registered = append(res.Registered, inst.ComputerName)
		}
	}
	a.mu.Lock()
	left := make([]string, 0, len(a.podsLeft))
	for name := range a.podsLeft {
		left = append(left, name)
	}
	a.mu.Unlock()
	for _, name := range left {
		if _, back := byName[name]; !back {
			keep(a.removePods(ctx, name))
		}
	}
	for _, n := range nodes.Items {
		if !a.owns(&n) || live[strings.ToLower(n.Spec.ProviderID)] {
			continue
		}
		if err := a.remove(ctx, n.Name); err != nil {
			keep(err)
			continue
		}
		res.Deleted = append(res.Deleted, n.Name)
	}
	sort.Strings(res.Registered)
	sort.Strings(res.Deleted)
	return res, firstErr
}

// instancesKey names the cloud's instances and their states, in the order
// of their provider IDs.
func instancesKey(insts []Instance) string {
	keys := make([]string, 0, len(insts))
	for _, i := range insts {
		keys = append(keys, fmt.Sprintf("%s|%s|%s|%t|%t", strings.ToLower(i.ProviderID), i.ComputerName, i.Zone, i.Running, i.Gone))
	}
	sort.Strings(keys)
	return strings.Join(keys, "\n")
}

// listNodes lists the Nodes: consistently for a full pass (consistent),
// which must see what others changed (a Node deleted by hand), else not
// older than the agent's last answer about them (seen). A failed list
// forgets seen, so the next is consistent.
func (a *Agent) listNodes(ctx context.Context, consistent bool) (*apiv1.NodeList, error) {
	opts := metav1.ListOptions{}
	if a.seen != "" && !consistent {
		opts.ResourceVersion, opts.ResourceVersionMatch = a.seen, metav1.ResourceVersionMatchNotOlderThan
	}
	nodes, err := a.cfg.Client.CoreV1().Nodes().List(ctx, opts)
	if err != nil {
		a.seen = ""
		return nil, err
	}
	a.seen = nodes.ResourceVersion
	return nodes, nil
}

// removingPods says whether a removed node's pods are still to be deleted.
func (a *Agent) removingPods() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.podsLeft) > 0
}

// owns: the agent only touches Nodes it registered for the cloud.
func (a *Agent) owns(n *apiv1.Node) bool {
	return n.Annotations[RegisteredByAnnotation] == a.cfg.Name &&
		strings.HasPrefix(strings.ToLower(n.Spec.ProviderID), strings.ToLower(a.cfg.ProviderIDPrefix))
}

func (a *Agent) warnOnce(key, msg string, kv ...any) {
	a.mu.Lock()
	seen := a.warned[key]
	a.warned[key] = true
	a.mu.Unlock()
	if !seen {
		klog.InfoS(msg, kv...)
	}
}

// NodeFor builds the Node an instance's kubelet (with GPU Feature Discovery)
// would register: the pool's template node from the provider (capacity,
// allocatable, labels, taints) named after the instance, with its
// hostname, zone and provider ID. It returns nil, nil for instances of no
// pool the provider manages.
func NodeFor(p cloudprovider.CloudProvider, inst Instance) (*apiv1.Node, error) {
	pid := ProviderID(inst.ProviderID)
	probe := &apiv1.Node{ObjectMeta: metav1.ObjectMeta{Name: inst.ComputerName}, Spec: apiv1.NodeSpec{ProviderID: pid}}
	g, err := p.NodeGroupForNode(probe)
	if err != nil {
		return nil, fmt.Errorf("pool of %s: %w", inst.ComputerName, err)
	}
	if g == nil {
		return nil, nil
	}
	ni, err := g.TemplateNodeInfo()
	if err != nil {
		return nil, fmt.Errorf("template of pool %s for %s: %w", g.Id(), inst.ComputerName, err)
	}
	tmpl := ni.Node()
	labels := map[string]string{}
	for k, v := range tmpl.Labels {
		labels[k] = v
	}
	labels[agentpool.HostnameLabel] = inst.ComputerName
	if inst.Zone != "" {
		labels[agentpool.ZoneLabel] = strings.ToLower(labels[agentpool.RegionLabel]) + "-" + inst.Zone
	}
	now := metav1.Now()
	conds := make([]apiv1.NodeCondition, 0, len(tmpl.Status.Conditions))
	for _, c := range tmpl.Status.Conditions {
		c.LastHeartbeatTime, c.LastTransitionTime = now, now
		conds = append(conds, c)
	}
	return &apiv1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: inst.ComputerName, Labels: labels},
		Spec:       apiv1.NodeSpec{ProviderID: pid, Taints: append([]apiv1.Taint(nil), tmpl.Spec.Taints...)},
		Status: apiv1.NodeStatus{
			Capacity:    tmpl.Status.Capacity.DeepCopy(),
			Allocatable: tmpl.Status.Allocatable.DeepCopy(),
			Conditions:  conds,
			Addresses:   []apiv1.NodeAddress{{Type: apiv1.NodeHostName, Address: inst.ComputerName}},
			NodeInfo:    apiv1.NodeSystemInfo{OperatingSystem: labels[agentpool.OSLabel], Architecture: labels[agentpool.ArchLabel]},
		},
	}, nil
}

// ProviderID is a provider ID as kubelet's Azure provider writes it: the
// resource group segment lower-cased (the provider matches instances to
// Nodes on this form).
func ProviderID(id string) string {
	parts := strings.Split(id, "/")
	for i := 0; i+1 < len(parts); i++ {
		if strings.EqualFold(parts[i], "resourceGroups") {
			parts[i+1] = strings.ToLower(parts[i+1])
		}
	}
	return strings.Join(parts, "/")
}

// register creates the Node, then completes it (finish). It reports false
// without an error for instances of pools the provider does not manage.
func (a *Agent) register(ctx context.Context, inst Instance) (bool, error) {
	node, err := NodeFor(a.cfg.Provider, inst)
	if err != nil {
		return false, err
	}
	if node == nil {
		a.warnOnce("pid:"+strings.ToLower(inst.ProviderID), "Instance of no pool the provider manages; not registering it", "instance", inst.ProviderID)
		return false, nil
	}
	node.Annotations = map[string]string{RegisteredByAnnotation: a.cfg.Name}
	created, err := a.cfg.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		return false, fmt.Errorf("registering node %s: %w", node.Name, err)
	}
	a.seen = created.ResourceVersion
	if err := a.finish(ctx, created); err != nil {
		return true, err
	}
	klog.InfoS("Registered node", "node", node.Name, "providerID", node.Spec.ProviderID, "pool", node.Labels[agentpool.AgentPoolLabel])
	return true, nil
}

// finish lifts the not-ready taint the API server adds at registration and
// reports the node Ready, as the kubelet and the node lifecycle controller
// would. Nodes already done are left as they are.
func (a *Agent) finish(ctx context.Context, n *apiv1.Node) error {
	nodes := a.cfg.Client.CoreV1().Nodes()
	if hasTaint(n, apiv1.TaintNodeNotReady) {
		var keep []apiv1.Taint
		for _, t := range n.Spec.Taints {
			if t.Key != apiv1.TaintNodeNotReady {
				keep = append(keep, t)
			}
		}
		upd := n.DeepCopy()
		upd.Spec.Taints = keep
		got, err := nodes.Update(ctx, upd, metav1.UpdateOptions{})
		if err != nil {
			return fmt.Errorf("lifting the not-ready taint of node %s: %w", n.Name, err)
		}
		n, a.seen = got, got.ResourceVersion
	}
	if readyStatus(n) == "" || len(n.Status.Capacity) == 0 {
		// The status was dropped at creation or a pass failed before it
		// was written: it comes from the pool's template again (the labels
		// are on the node already).
		fresh, err := NodeFor(a.cfg.Provider, Instance{ProviderID: n.Spec.ProviderID, ComputerName: n.Name})
		if err != nil {
			return err
		}
		if fresh == nil {
			return fmt.Errorf("node %s: its pool is no longer managed by the provider", n.Name)
		}
		upd := n.DeepCopy()
		upd.Status = fresh.Status
		got, err := nodes.UpdateStatus(ctx, upd, metav1.UpdateOptions{})
		if err != nil {
			return fmt.Errorf("reporting node %s Ready: %w", n.Name, err)
		}
		a.seen = got.ResourceVersion
	}
	return nil
}

func hasTaint(n *apiv1.Node, key string) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == key {
			return true
		}
	}
	return false
}

func readyStatus(n *apiv1.Node) apiv1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == apiv1.NodeReady {
			return c.Status
		}
	}
	return ""
}

// remove deletes the node, then force-deletes the pods bound to it: a VM
// that is gone takes its kubelet with it, so no pod may be bound there
// meanwhile (deleting the pods first let a scheduler bind a replacement to
// the node in between, leaving it bound to a node that no longer exists;
// clusters have the pod garbage collector for those, the agent does not).
// Pods it could not delete are retried on the next pass.
func (a *Agent) remove(ctx context.Context, name string) error {
	a.mu.Lock()
	a.podsLeft[name] = true
	a.mu.Unlock()
	err := a.cfg.Client.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting node %s: %w", name, err)
	}
	return a.removePods(ctx, name)
}

// removePods force-deletes the pods bound to a removed node.
func (a *Agent) removePods(ctx context.Context, name string) error {
	pods, err := a.cfg.Client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("spec.nodeName", name).String(),
	})
	if err != nil {
		return fmt.Errorf("listing pods of node %s: %w", name, err)
	}
	zero := int64(0)
	for _, p := range pods.Items {
		err := a.cfg.Client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting pod %s/%s of node %s: %w", p.Namespace, p.Name, name, err)
		}
	}
	a.mu.Lock()
	delete(a.podsLeft, name)
	a.mu.Unlock()
	klog.InfoS("Deleted node of a deleted instance", "node", name, "pods", len(pods.Items))
	return nil
}
