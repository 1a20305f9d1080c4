// Test objects: GPU nodes, gang member pods, PodGroups, namespaces, priority classes; bound counts.

package controlplane

import (
	"context"
	"fmt"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	schedv1alpha1 "sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/muster-project/muster/pkg/gang"
)

// GPU is the extended resource name NVIDIA's device plugin publishes.
const GPU v1.ResourceName = "nvidia.com/gpu"

// GPUNode is a node with gpus GPUs, 96 cores and 1 TiB of memory.
func GPUNode(name string, gpus int64, labelKV ...string) *v1.Node {
	rl := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse("96"),
		v1.ResourceMemory: resource.MustParse("1Ti"),
		v1.ResourcePods:   resource.MustParse("110"),
		GPU:               *resource.NewQuantity(gpus, resource.DecimalSI),
	}
	n := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Status: v1.NodeStatus{Capacity: rl, Allocatable: rl,
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}},
	}
	for i := 0; i+1 < len(labelKV); i += 2 {
		n.Labels[labelKV[i]] = labelKV[i+1]
	}
	return n
}

// CreateNodes creates nodes named prefix-0..n-1 with gpus GPUs each.
func CreateNodes(ctx context.Context, c kubernetes.Interface, prefix string, n int, gpus int64) error {
	for i := 0; i < n; i++ {
		if err := CreateNode(ctx, c, GPUNode(fmt.Sprintf("%s-%d", prefix, i), gpus)); err != nil {
			return err
		}
	}
	return nil
}

// CreateNode registers a node and, standing in for the node lifecycle
// controller, lifts the not-ready taint the API server adds on creation.
func CreateNode(ctx context.Context, c kubernetes.Interface, node *v1.Node) error {
	created, err := c.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	var keep []v1.Taint
	for _, t := range created.Spec.Taints {
		if t.Key != v1.TaintNodeNotReady {
			keep = append(keep, t)
		}
	}
	if len(keep) == len(created.Spec.Taints) {
		return nil
	}
	created.Spec.Taints = keep
	_, err = c.CoreV1().Nodes().Update(ctx, created, metav1.UpdateOptions{})
	return err
}

// Member is a gang member pod asking for gpus GPUs and a little CPU.
type Member struct {
	Namespace, Name string
	Scheduler       string
	GPUs            int64
	PriorityClass   string
	Labels          map[string]string
	Annotations     map[string]string
	Gated           bool // carries a scheduling gate
	Tolerations     []v1.Toleration
	// SchedulingGroup names the upstream PodGroup (scheduling.k8s.io/v1beta1)
	// the pod belongs to, in spec.schedulingGroup.
	SchedulingGroup string
}

// Pod builds the pod.
func (m Member) Pod() *v1.Pod {
	req := v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("128Mi")}
	if m.GPUs > 0 {
		req[GPU] = *resource.NewQuantity(m.GPUs, resource.DecimalSI)
	}
	sched := m.Scheduler
	if sched == "" {
		sched = MusterProfile
	}
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: m.Namespace, Name: m.Name, Labels: m.Labels, Annotations: m.Annotations},
		Spec: v1.PodSpec{
			SchedulerName:     sched,
			PriorityClassName: m.PriorityClass,
			Tolerations:       m.Tolerations,
			Containers:        []v1.Container{{Name: "worker", Image: "trainer", Resources: v1.ResourceRequirements{Requests: req, Limits: limitsOf(req)}}},
		},
	}
	if m.Gated {
		p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "test.muster.dev/hold"}}
	}
	if m.SchedulingGroup != "" {
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &m.SchedulingGroup}
	}
	return p
}

func limitsOf(req v1.ResourceList) v1.ResourceList {
	if q, ok := req[GPU]; ok {
		return v1.ResourceList{GPU: q}
	}
	return nil
}

// PodGroupMembers returns n members of the scheduler-plugins PodGroup name.
func PodGroupMembers(ns, name string, n int, gpus int64) []Member {
	out := make([]Member, n)
	for i := range out {
		out[i] = Member{Namespace: ns, Name: fmt.Sprintf("%s-%d", name, i), GPUs: gpus,
			Labels: map[string]string{gang.PodGroupLabel: name}}
	}
	return out
}

// LabelMembers returns n members of a CRD-free gang with the given min and max.
func LabelMembers(ns, name string, n int, gpus int64, min, max int) []Member {
	out := make([]Member, n)
	for i := range out {
		out[i] = Member{Namespace: ns, Name: fmt.Sprintf("%s-%d", name, i), GPUs: gpus,
			Labels:      map[string]string{gang.GroupLabel: name},
			Annotations: map[string]string{gang.MinMemberAnnotation: strconv.Itoa(min), gang.MaxMemberAnnotation: strconv.Itoa(max)}}
	}
	return out
}

// PodGroup builds a scheduler-plugins PodGroup; max 0 leaves the annotation off.
func PodGroup(ns, name string, min, max int32, timeoutSeconds int32) *schedv1alpha1.PodGroup {
	pg := &schedv1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       schedv1alpha1.PodGroupSpec{MinMember: min},
	}
	if max != 0 {
		pg.Annotations = map[string]string{gang.MaxMemberAnnotation: strconv.Itoa(int(max))}
	}
	if timeoutSeconds != 0 {
		pg.Spec.ScheduleTimeoutSeconds = &timeoutSeconds
	}
	return pg
}

// WorkloadPodGroup is an upstream PodGroup (scheduling.k8s.io/v1beta1) with
// a gang policy of minCount.
func WorkloadPodGroup(ns, name string, minCount int32) *schedv1beta1.PodGroup {
	return &schedv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: schedv1beta1.PodGroupSpec{SchedulingPolicy: schedv1beta1.PodGroupSchedulingPolicy{
			Gang: &schedv1beta1.GangSchedulingPolicy{MinCount: minCount}}},
	}
}

// CreatePods creates the members' pods.
func CreatePods(ctx context.Context, c kubernetes.Interface, members ...Member) error {
	for _, m := range members {
		if _, err := c.CoreV1().Pods(m.Namespace).Create(ctx, m.Pod(), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating pod %s/%s: %w", m.Namespace, m.Name, err)
		}
	}
	return nil
}

// CreateNamespace creates a namespace.
func CreateNamespace(ctx context.Context, c kubernetes.Interface, name string) error {
	_, err := c.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	return err
}

// Bound counts the pods in ns matching selector that have a node.
func Bound(ctx context.Context, c kubernetes.Interface, ns, selector string) (int, error) {
	pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			n++
		}
	}
	return n, nil
}

// WaitBound waits until exactly want pods in ns matching selector are bound.
func WaitBound(ctx context.Context, c kubernetes.Interface, ns, selector string, want int, timeout time.Duration) error {
	var got int
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		var err error
		got, err = Bound(ctx, c, ns, selector)
		return err == nil && got == want, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for %d bound pods in %s (%s): %d bound: %w", want, ns, selector, got, err)
	}
	return nil
}

// Selector returns a label selector string for one gang label.
func Selector(key, value string) string {
	return labels.SelectorFromSet(labels.Set{key: value}).String()
}

// CreatePriorityClass creates a PriorityClass with the given value.
func CreatePriorityClass(ctx context.Context, c kubernetes.Interface, name string, value int32) error {
	_, err := c.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}, metav1.CreateOptions{})
	return err
}

// StartInformers starts a factory's informers and waits for their caches.
func StartInformers(ctx context.Context, factory informers.SharedInformerFactory) error {
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("watch: %v did not sync", typ)
		}
	}
	return nil
}
