// Tests of a request's pods from its PodTemplate, consumers filtered, conditions, the injector's availability and backoff, expiry, unbound pods, the client's list errors, reads and status writes.

package provreq

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	apiv1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	ktesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

const gpu = apiv1.ResourceName("nvidia.com/gpu")

func template(ns, name string) *apiv1.PodTemplate {
	return &apiv1.PodTemplate{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Template: apiv1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"muster.dev/gang": "g"}, Annotations: map[string]string{"muster.dev/gpu-product": "NVIDIA-H100*"}},
			Spec: apiv1.PodSpec{
				Containers: []apiv1.Container{{Name: "train", Image: "trainer", Resources: apiv1.ResourceRequirements{
					Requests: apiv1.ResourceList{apiv1.ResourceCPU: resource.MustParse("8")},
					Limits:   apiv1.ResourceList{gpu: resource.MustParse("8")},
				}}},
				Tolerations: []apiv1.Toleration{{Key: "nvidia.com/gpu", Operator: apiv1.TolerationOpExists}},
			},
		},
	}
}

func request(ns, name, class string, sets ...v1.PodSet) *v1.ProvisioningRequest {
	return &v1.ProvisioningRequest{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1.GroupVersion.String(), Kind: v1.Kind},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name), Generation: 1, CreationTimestamp: metav1.NewTime(time.Unix(1000, 0))},
		Spec:       v1.ProvisioningRequestSpec{ProvisioningClassName: class, PodSets: sets},
	}
}

func getter(tmpls ...*apiv1.PodTemplate) TemplateGetter {
	return func(ns, name string) (*apiv1.PodTemplate, error) {
		for _, t := range tmpls {
			if t.Namespace == ns && t.Name == name {
				return t, nil
			}
		}
		return nil, fmt.Errorf("not found")
	}
}

func TestPodsForRequest(t *testing.T) {
	tm := template("ml", "gang-a")
	for _, tc := range []struct {
		name    string
		pr      *v1.ProvisioningRequest
		want    []string
		wantErr string
	}{
		{name: "one set", pr: request("ml", "gang-a", v1.ProvisioningClassBestEffortAtomicScaleUp, v1.PodSet{PodTemplateRef: v1.Reference{Name: "gang-a"}, Count: 3}),
			want: []string{"gang-a-0-0", "gang-a-0-1", "gang-a-0-2"}},
		{name: "two sets", pr: request("ml", "r", v1.ProvisioningClassBestEffortAtomicScaleUp, v1.PodSet{PodTemplateRef: v1.Reference{Name: "gang-a"}, Count: 1}, v1.PodSet{PodTemplateRef: v1.Reference{Name: "gang-a"}, Count: 2}),
			want: []string{"r-0-0", "r-1-0", "r-1-1"}},
		{name: "no sets", pr: request("ml", "r", v1.ProvisioningClassBestEffortAtomicScaleUp), wantErr: "spec.podSets is empty"},
		{name: "missing template", pr: request("ml", "r", v1.ProvisioningClassBestEffortAtomicScaleUp, v1.PodSet{PodTemplateRef: v1.Reference{Name: "nope"}, Count: 1}),
			wantErr: "spec.podSets[0].podTemplateRef: PodTemplate ml/nope"},
		{name: "other namespace", pr: request("other", "r", v1.ProvisioningClassBestEffortAtomicScaleUp, v1.PodSet{PodTemplateRef: v1.Reference{Name: "gang-a"}, Count: 1}),
			wantErr: "PodTemplate other/gang-a"},
		{name: "zero count", pr: request("ml", "r", v1.ProvisioningClassBestEffortAtomicScaleUp, v1.PodSet{PodTemplateRef: v1.Reference{Name: "gang-a"}, Count: 0}),
			wantErr: "spec.podSets[0].count is 0"},
		{name: "one set over the cap", pr: request("ml", "r", v1.ProvisioningClassBestEffortAtomicScaleUp, v1.PodSet{PodTemplateRef: v1.Reference{Name: "gang-a"}, Count: 2000000000}),
			wantErr: "spec.podSets[0].count brings the request to 2000000000 pods, more than the 10000"},
		{name: "sets over the cap together", pr: request("ml", "r", v1.ProvisioningClassBestEffortAtomicScaleUp, v1.PodSet{PodTemplateRef: v1.Reference{Name: "gang-a"}, Count: 6000}, v1.PodSet{PodTemplateRef: v1.Reference{Name: "gang-a"}, Count: 6000}),
			wantErr: "spec.podSets[1].count brings the request to 12000 pods"},
		{name: "empty ref", pr: request("ml", "r", v1.ProvisioningClassBestEffortAtomicScaleUp, v1.PodSet{Count: 1}),
			wantErr: "spec.podSets[0].podTemplateRef.name is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pods, err := PodsForRequest(tc.pr, getter(tm))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range pods {
				names = append(names, p.Name)
				if p.Namespace != tc.pr.Namespace || string(p.UID) != p.Namespace+"/"+p.Name {
					t.Errorf("pod %s: namespace %q uid %q", p.Name, p.Namespace, p.UID)
				}
				if n, ok := ConsumedRequest(p); !ok || n != tc.pr.Name {
					t.Errorf("pod %s consumes %q %v, want %q", p.Name, n, ok, tc.pr.Name)
				}
				if p.Annotations[v1.ProvisioningClassPodAnnotationKey] != v1.ProvisioningClassBestEffortAtomicScaleUp {
					t.Errorf("pod %s: class annotation %q", p.Name, p.Annotations[v1.ProvisioningClassPodAnnotationKey])
				}
				if p.Annotations["muster.dev/gpu-product"] != "NVIDIA-H100*" || p.Labels["muster.dev/gang"] != "g" {
					t.Errorf("pod %s lost the template's labels/annotations: %v %v", p.Name, p.Labels, p.Annotations)
				}
				if len(p.OwnerReferences) != 1 || p.OwnerReferences[0].Kind != v1.Kind || p.OwnerReferences[0].UID != tc.pr.UID || !*p.OwnerReferences[0].Controller {
					t.Errorf("pod %s: owner %+v", p.Name, p.OwnerReferences)
				}
				// Defaulted: limits-only GPU becomes a request.
				if q := p.Spec.Containers[0].Resources.Requests[gpu]; q.Value() != 8 {
					t.Errorf("pod %s: GPU request %v, want 8 (defaulted from limits)", p.Name, q.String())
				}
				if !p.CreationTimestamp.Equal(&tc.pr.CreationTimestamp) {
					t.Errorf("pod %s created %v, want the request's time", p.Name, p.CreationTimestamp)
				}
			}
			if strings.Join(names, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("pods %v, want %v", names, tc.want)
			}
			// The template is not modified.
			if _, ok := tm.Template.Annotations[v1.ProvisioningRequestPodAnnotationKey]; ok {
				t.Fatal("the PodTemplate was modified")
			}
		})
	}
}

func pod(name string, ann map[string]string) *apiv1.Pod {
	return &apiv1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name, Annotations: ann}}
}

func TestFilterConsumersAndEnforcer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pods  []*apiv1.Pod
		keep  []string
		force bool
	}{
		{name: "none", pods: nil, keep: nil},
		{name: "ordinary only", pods: []*apiv1.Pod{pod("a", nil), pod("b", map[string]string{"x": "y"})}, keep: []string{"a", "b"}},
		{name: "consumer", pods: []*apiv1.Pod{pod("a", nil), pod("b", map[string]string{v1.ProvisioningRequestPodAnnotationKey: "r"})}, keep: []string{"a"}, force: true},
		{name: "deprecated annotation", pods: []*apiv1.Pod{pod("c", map[string]string{v1.DeprecatedProvisioningRequestPodAnnotationKey: "r"})}, keep: nil, force: true},
		{name: "class annotation alone does not consume", pods: []*apiv1.Pod{pod("d", map[string]string{v1.ProvisioningClassPodAnnotationKey: v1.ProvisioningClassBestEffortAtomicScaleUp})}, keep: []string{"d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, p := range FilterConsumers(tc.pods) {
				got = append(got, p.Name)
			}
			if strings.Join(got, ",") != strings.Join(tc.keep, ",") {
				t.Fatalf("kept %v, want %v", got, tc.keep)
			}
			if f := (ScaleUpEnforcer{}).ShouldForceScaleUp(tc.pods); f != tc.force {
				t.Fatalf("ShouldForceScaleUp = %v, want %v", f, tc.force)
			}
		})
	}
}

func cond(t string, s metav1.ConditionStatus, reason string, at time.Time) metav1.Condition {
	return metav1.Condition{Type: t, Status: s, Reason: reason, LastTransitionTime: metav1.NewTime(at)}
}

func TestSetCondition(t *testing.T) {
	t0, t1 := time.Unix(100, 0), time.Unix(200, 0)
	pr := request("ml", "r", v1.ProvisioningClassBestEffortAtomicScaleUp)
	setCondition(pr, v1.Accepted, metav1.ConditionTrue, ReasonAccepted, "ok", metav1.NewTime(t0))
	setCondition(pr, v1.Provisioned, metav1.ConditionFalse, ReasonCapacityIsNotFound, "later", metav1.NewTime(t0))
	setCondition(pr, v1.Provisioned, metav1.ConditionFalse, ReasonCapacityIsNotFound, "again", metav1.NewTime(t1))
	if len(pr.Status.Conditions) != 2 {
		t.Fatalf("conditions %+v, want Accepted and Provisioned once each", pr.Status.Conditions)
	}
	p := findCondition(pr, v1.Provisioned)
	if p.Message != "again" || !p.LastTransitionTime.Time.Equal(t1) || p.ObservedGeneration != 1 {
		t.Fatalf("Provisioned %+v: want replaced with the retry's time", p)
	}
	setCondition(pr, v1.Provisioned, metav1.ConditionTrue, ReasonCapacityIsProvisioned, "pool adding 1 node", metav1.NewTime(t1))
	if !isTrue(pr, v1.Provisioned) || !shouldBook(pr) || !terminal(pr) {
		t.Fatal("a Provisioned request is booked and terminal for the injector")
	}
	setCondition(pr, v1.BookingExpired, metav1.ConditionTrue, ReasonBookingExpired, "", metav1.NewTime(t1))
	if shouldBook(pr) {
		t.Fatal("a BookingExpired request is still booked")
	}
}

func TestInjectorAvailability(t *testing.T) {
	now := time.Unix(10_000, 0)
	class := v1.ProvisioningClassBestEffortAtomicScaleUp
	for _, tc := range []struct {
		name    string
		class   string
		conds   []metav1.Condition
		backoff time.Duration // recorded backoff, 0 for none
		want    bool
		next    time.Duration // backoff recorded afterwards, 0 for none
	}{
		{name: "new", class: class, want: true},
		{name: "accepted only (restart mid scale-up)", class: class, conds: []metav1.Condition{cond(v1.Accepted, metav1.ConditionTrue, ReasonAccepted, now)}, want: true},
		{name: "other class", class: v1.ProvisioningClassCheckCapacity, want: false},
		{name: "provisioned", class: class, conds: []metav1.Condition{cond(v1.Provisioned, metav1.ConditionTrue, ReasonCapacityIsProvisioned, now)}, want: false},
		{name: "failed", class: class, conds: []metav1.Condition{cond(v1.Failed, metav1.ConditionTrue, ReasonNoNodeGroupCanHold, now)}, want: false},
		{name: "not found, backoff not over", class: class, conds: []metav1.Condition{cond(v1.Provisioned, metav1.ConditionFalse, ReasonCapacityIsNotFound, now.Add(-30*time.Second))}, want: false},
		{name: "not found, backoff over", class: class, conds: []metav1.Condition{cond(v1.Provisioned, metav1.ConditionFalse, ReasonCapacityIsNotFound, now.Add(-61*time.Second))}, want: true, next: 2 * time.Minute},
		{name: "doubled backoff not over", class: class, backoff: 2 * time.Minute, conds: []metav1.Condition{cond(v1.Provisioned, metav1.ConditionFalse, ReasonCapacityIsNotFound, now.Add(-90*time.Second))}, want: false, next: 2 * time.Minute},
		{name: "backoff capped", class: class, backoff: 8 * time.Minute, conds: []metav1.Condition{cond(v1.Provisioned, metav1.ConditionFalse, ReasonCapacityIsNotFound, now.Add(-9*time.Minute))}, want: true, next: 10 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewInjector(nil, Options{})
			p.now = func() time.Time { return now }
			pr := request("ml", "r", tc.class)
			pr.Status.Conditions = tc.conds
			if tc.backoff > 0 {
				p.backoff[pr.UID] = tc.backoff
			}
			if got := p.available(pr); got != tc.want {
				t.Fatalf("available = %v, want %v", got, tc.want)
			}
			if got := p.backoff[pr.UID]; got != tc.next {
				t.Fatalf("backoff afterwards %v, want %v", got, tc.next)
			}
		})
	}
}

func TestExpiry(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	opts := Options{BookingTTL: 10 * time.Minute, Expiry: time.Hour}.withDefaults()
	provisioned := func(ago time.Duration) []metav1.Condition {
		return []metav1.Condition{cond(v1.Provisioned, metav1.ConditionTrue, ReasonCapacityIsProvisioned, now.Add(-ago))}
	}
	for _, tc := range []struct {
		name    string
		created time.Time
		conds   []metav1.Condition
		added   int           // nodes the scale-up added (0: capacity found)
		up      time.Duration // how long ago they were all seen registered (0: not yet)
		want    string
	}{
		{name: "fresh", created: now.Add(-time.Minute)},
		{name: "nodes added, still booting", created: now.Add(-time.Hour), conds: provisioned(11 * time.Minute), added: 2},
		{name: "nodes added, up a minute ago", created: now.Add(-time.Hour), conds: provisioned(11 * time.Minute), added: 2, up: time.Minute},
		{name: "nodes added, up past the TTL", created: now.Add(-time.Hour), conds: provisioned(30 * time.Minute), added: 2, up: 11 * time.Minute, want: v1.BookingExpired},
		{name: "nodes never all came", created: now.Add(-time.Hour), conds: provisioned(26 * time.Minute), added: 2, want: v1.BookingExpired},
		{name: "nodes not all come yet, within the provision time", created: now.Add(-time.Hour), conds: provisioned(24 * time.Minute), added: 2},
		{name: "booked within TTL", created: now.Add(-2 * time.Hour), conds: []metav1.Condition{cond(v1.Provisioned, metav1.ConditionTrue, ReasonCapacityIsProvisioned, now.Add(-9*time.Minute))}},
		{name: "booking over", created: now.Add(-time.Minute), conds: []metav1.Condition{cond(v1.Provisioned, metav1.ConditionTrue, ReasonCapacityIsProvisioned, now.Add(-11*time.Minute))}, want: v1.BookingExpired},
		{name: "already expired", created: now.Add(-time.Minute), conds: []metav1.Condition{cond(v1.Provisioned, metav1.ConditionTrue, "", now.Add(-11*time.Minute)), cond(v1.BookingExpired, metav1.ConditionTrue, "", now)}},
		{name: "never provisioned", created: now.Add(-61 * time.Minute), conds: []metav1.Condition{cond(v1.Provisioned, metav1.ConditionFalse, ReasonCapacityIsNotFound, now)}, want: v1.Failed},
		{name: "failed stays", created: now.Add(-61 * time.Minute), conds: []metav1.Condition{cond(v1.Failed, metav1.ConditionTrue, "", now)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr := request("ml", "r", v1.ProvisioningClassBestEffortAtomicScaleUp)
			pr.CreationTimestamp = metav1.NewTime(tc.created)
			pr.Status.Conditions = tc.conds
			if tc.added > 0 {
				v1.SetAddedInstances(pr, "gpu", tc.added, nil)
			}
			got, _, _, ok := expiry(pr, now, opts, now.Add(-tc.up), tc.up > 0)
			if ok != (tc.want != "") || got != tc.want {
				t.Fatalf("expiry = %q %v, want %q", got, ok, tc.want)
			}
		})
	}
}

// TestUnbound: each bound consumer stands for one of the request's pods,
// of its own shape where one is left.
func TestUnbound(t *testing.T) {
	shaped := func(name string, rl apiv1.ResourceList) *apiv1.Pod {
		p := pod(name, nil)
		p.Spec.Containers = []apiv1.Container{{Name: "c", Resources: apiv1.ResourceRequirements{Requests: rl}}}
		return p
	}
	launcher := func(name string) *apiv1.Pod {
		return shaped(name, apiv1.ResourceList{apiv1.ResourceCPU: resource.MustParse("2")})
	}
	worker := func(name string) *apiv1.Pod {
		return shaped(name, apiv1.ResourceList{apiv1.ResourceCPU: resource.MustParse("8"), gpu: resource.MustParse("8")})
	}
	pods := []*apiv1.Pod{launcher("l"), worker("w0"), worker("w1")}
	for _, tc := range []struct {
		name  string
		bound []*apiv1.Pod
		want  []string
	}{
		{name: "none bound", want: []string{"l", "w0", "w1"}},
		{name: "the launcher", bound: []*apiv1.Pod{launcher("x")}, want: []string{"w0", "w1"}},
		{name: "a worker", bound: []*apiv1.Pod{worker("x")}, want: []string{"l", "w1"}},
		{name: "the workers, not the launcher", bound: []*apiv1.Pod{worker("x"), worker("y")}, want: []string{"l"}},
		{name: "all", bound: []*apiv1.Pod{worker("x"), launcher("y"), worker("z")}},
		{name: "more than the request", bound: []*apiv1.Pod{worker("x"), worker("y"), worker("z"), launcher("v")}},
		{name: "a worker a webhook gave more CPU", bound: []*apiv1.Pod{shaped("x", apiv1.ResourceList{apiv1.ResourceCPU: resource.MustParse("9"), gpu: resource.MustParse("8")})}, want: []string{"l", "w1"}},
		{name: "workers of a shape the request lacks", bound: []*apiv1.Pod{shaped("x", apiv1.ResourceList{gpu: resource.MustParse("1")}), launcher("y")}, want: []string{"w1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, p := range unbound(pods, tc.bound) {
				got = append(got, p.Name)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("left to book %v, want %v", got, tc.want)
			}
		})
	}
}

// TestInjectorMarksAcceptedAndFailed drives the injector through the
// client against fake APIs: a request whose template is missing fails, one
// whose template cannot be read now is retried later, one whose template
// the lister does not have yet is read through from the API; every request
// that can be served is injected in one loop, a priority-1000 gang's
// first, then the others oldest first.
func TestInjectorMarksAcceptedAndFailed(t *testing.T) {
	mk := func(name, tmpl, class string, created int64) *v1.ProvisioningRequest {
		pr := request("ml", name, class, v1.PodSet{PodTemplateRef: v1.Reference{Name: tmpl}, Count: 2})
		pr.CreationTimestamp = metav1.NewTime(time.Unix(created, 0))
		return pr
	}
	reqs := []*v1.ProvisioningRequest{
		mk("other", "gang-a", v1.ProvisioningClassCheckCapacity, 400),
		mk("bad", "missing", v1.ProvisioningClassBestEffortAtomicScaleUp, 500),
		mk("flaky", "flaky", v1.ProvisioningClassBestEffortAtomicScaleUp, 600),
		mk("late", "late", v1.ProvisioningClassBestEffortAtomicScaleUp, 700),
		mk("good", "gang-a", v1.ProvisioningClassBestEffortAtomicScaleUp, 1000),
		mk("urgent", "urgent", v1.ProvisioningClassBestEffortAtomicScaleUp, 1100),
	}
	dyn := dynamicWith(t, reqs...)
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if err := idx.Add(template("ml", "gang-a")); err != nil {
		t.Fatal(err)
	}
	urgent := template("ml", "urgent")
	urgent.Template.Spec.Priority = ptr.To(int32(1000))
	if err := idx.Add(urgent); err != nil {
		t.Fatal(err)
	}
	kube := kubefake.NewSimpleClientset(template("ml", "late"))
	kube.PrependReactor("get", "podtemplates", func(a ktesting.Action) (bool, runtime.Object, error) {
		if a.(ktesting.GetAction).GetName() == "flaky" {
			return true, nil, apierrors.NewInternalError(fmt.Errorf("etcd is slow"))
		}
		return false, nil, nil
	})
	c := NewClient(dyn, corelisters.NewPodTemplateLister(idx), kube)
	if err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	inj := NewInjector(c, Options{})
	out, err := inj.Process(nil, []*apiv1.Pod{pod("ordinary", nil)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range out {
		names = append(names, p.Name)
	}
	if want := "ordinary,urgent-0-0,urgent-0-1,late-0-0,late-0-1,good-0-0,good-0-1"; strings.Join(names, ",") != want {
		t.Fatalf("pending after injection %v, want %s", names, want)
	}
	get := func(name string) *v1.ProvisioningRequest {
		u, err := dyn.Resource(v1.Resource).Namespace("ml").Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pr, err := fromUnstructured(u)
		if err != nil {
			t.Fatal(err)
		}
		return pr
	}
	for _, name := range []string{"urgent", "late", "good"} {
		if g := get(name); !isTrue(g, v1.Accepted) || findCondition(g, v1.Provisioned) != nil {
			t.Fatalf("%s: conditions %+v, want Accepted only", name, g.Status.Conditions)
		}
	}
	if b := get("bad"); !isTrue(b, v1.Failed) || findCondition(b, v1.Failed).Reason != ReasonFailedToCreatePods ||
		!strings.Contains(findCondition(b, v1.Failed).Message, "PodTemplate ml/missing") {
		t.Fatalf("bad: conditions %+v, want Failed FailedToCreatePods naming the template", b.Status.Conditions)
	}
	for _, name := range []string{"flaky", "other"} {
		if o := get(name); len(o.Status.Conditions) != 0 {
			t.Fatalf("%s was written: %+v", name, o.Status.Conditions)
		}
	}
	// Next loop: they are Accepted but not Provisioned (as after a restart
	// mid scale-up), so they are offered again, without another write.
	if err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	before := len(dyn.Actions())
	out, err = inj.Process(nil, nil)
	if err != nil || len(out) != 6 || out[0].Name != "urgent-0-0" || out[2].Name != "late-0-0" {
		t.Fatalf("second loop: %d pods, err %v; want urgent's, late's and good's 2 pods each, in that order", len(out), err)
	}
	if n := len(dyn.Actions()) - before; n != 0 {
		t.Fatalf("%d API calls to re-offer an Accepted request, want none", n)
	}
}

// TestClientListErrors: an API server that does not serve the resource, or
// RBAC that does not allow listing it, means no requests, not an error every
// loop; other errors are errors.
func TestClientListErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		wantErr bool
	}{
		{name: "CRD not installed", err: apierrors.NewNotFound(v1.Resource.GroupResource(), "")},
		{name: "forbidden", err: apierrors.NewForbidden(v1.Resource.GroupResource(), "", fmt.Errorf("RBAC"))},
		{name: "server error", err: apierrors.NewInternalError(fmt.Errorf("boom")), wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{v1.Resource: "ProvisioningRequestList"})
			dyn.PrependReactor("list", "provisioningrequests", func(ktesting.Action) (bool, runtime.Object, error) {
				return true, nil, tc.err
			})
			c := NewClient(dyn, nil, nil)
			err := c.Refresh()
			if (err != nil) != tc.wantErr {
				t.Fatalf("Refresh: %v, want error %v", err, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "provisioningrequests") {
				t.Fatalf("error %q does not name the resource", err)
			}
			if n := len(c.Requests()); n != 0 {
				t.Fatalf("%d requests", n)
			}
		})
	}
}

// TestPodTemplateReadThrough: before the informer has synced, or when it
// lacks a template, the API is asked; errors other than NotFound do not
// fail a request.
func TestPodTemplateReadThrough(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	cached := template("ml", "cached")
	if err := idx.Add(cached); err != nil {
		t.Fatal(err)
	}
	lister := corelisters.NewPodTemplateLister(idx)
	kube := kubefake.NewSimpleClientset(template("ml", "api-only"))
	for _, tc := range []struct {
		name      string
		synced    bool
		kube      bool
		get       string
		wantErr   bool
		permanent bool
	}{
		{name: "cached", synced: true, kube: true, get: "cached"},
		{name: "not cached yet", synced: true, kube: true, get: "api-only"},
		{name: "cache not synced", synced: false, kube: true, get: "api-only"},
		{name: "missing everywhere", synced: true, kube: true, get: "nope", wantErr: true, permanent: true},
		{name: "cache not synced, no API", synced: false, kube: false, get: "cached", wantErr: true, permanent: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var k *kubefake.Clientset
			if tc.kube {
				k = kube
			}
			c := NewClient(nil, lister, nil).WithTemplatesSynced(func() bool { return tc.synced })
			if k != nil {
				c.kube = k
			}
			got, err := c.PodTemplate("ml", tc.get)
			if (err != nil) != tc.wantErr {
				t.Fatalf("PodTemplate(%s): %v, want error %v", tc.get, err, tc.wantErr)
			}
			if err != nil {
				if permanent(err) != tc.permanent {
					t.Fatalf("permanent(%v) = %v, want %v", err, permanent(err), tc.permanent)
				}
				return
			}
			if got.Name != tc.get {
				t.Fatalf("got %s", got.Name)
			}
		})
	}
}

// TestUpdateStatusConflict: when the request changed since the loop's list,
// the status goes onto the latest version, keeping the other change.
func TestUpdateStatusConflict(t *testing.T) {
	pr := request("ml", "r", v1.ProvisioningClassBestEffortAtomicScaleUp, v1.PodSet{PodTemplateRef: v1.Reference{Name: "gang-a"}, Count: 1})
	u, err := toUnstructured(pr)
	if err != nil {
		t.Fatal(err)
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{v1.Resource: "ProvisioningRequestList"}, u)
	c := NewClient(dyn, nil, nil)
	if err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	// Someone else labels the request after the list.
	latest, err := dyn.Resource(v1.Resource).Namespace("ml").Get(t.Context(), "r", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	latest.SetLabels(map[string]string{"muster.dev/gang": "g"})
	if _, err := dyn.Resource(v1.Resource).Namespace("ml").Update(t.Context(), latest, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	conflicts := 0
	dyn.PrependReactor("update", "provisioningrequests", func(a ktesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "status" && conflicts == 0 {
			conflicts++
			return true, nil, apierrors.NewConflict(v1.Resource.GroupResource(), "r", fmt.Errorf("the object has been modified"))
		}
		return false, nil, nil
	})
	got, _ := c.Request("ml", "r")
	setCondition(got, v1.Provisioned, metav1.ConditionTrue, ReasonCapacityIsProvisioned, "gpu-heavy pool adding 1 node", metav1.Now())
	if err := c.UpdateStatus(got); err != nil {
		t.Fatal(err)
	}
	if conflicts != 1 {
		t.Fatalf("%d conflicts, want the injected one", conflicts)
	}
	final, err := dyn.Resource(v1.Resource).Namespace("ml").Get(t.Context(), "r", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back, err := fromUnstructured(final)
	if err != nil {
		t.Fatal(err)
	}
	if !isTrue(back, v1.Provisioned) || back.Labels["muster.dev/gang"] != "g" {
		t.Fatalf("after the conflict: labels %v conditions %+v; want both the label and Provisioned", back.Labels, back.Status.Conditions)
	}
	if cached, _ := c.Request("ml", "r"); !isTrue(cached, v1.Provisioned) {
		t.Fatal("the client's loop cache does not have the written status")
	}
}

// TestNodesUp: a request's booking starts once every node added for it has
// registered; a request that added none is up at once.
func TestNodesUp(t *testing.T) {
	const a, b = "azure:///subscriptions/s/resourcegroups/rg/providers/microsoft.compute/virtualmachinescalesets/gpu/virtualmachines/1",
		"azure:///subscriptions/s/resourcegroups/rg/providers/microsoft.compute/virtualmachinescalesets/gpu/virtualmachines/2"
	for _, tc := range []struct {
		name       string
		added      int
		ids        []string
		registered map[string]bool
		want       bool
	}{
		{"capacity found, none added", 0, nil, nil, true},
		{"added, none known yet", 2, nil, map[string]bool{a: true}, false},
		{"added, one of two known", 2, []string{a}, map[string]bool{a: true}, false},
		{"both known, one registered", 2, []string{a, b}, map[string]bool{a: true}, false},
		{"both registered", 2, []string{a, b}, map[string]bool{a: true, b: true}, true},
	} {
		pr := request("ml", "r", v1.ProvisioningClassBestEffortAtomicScaleUp)
		if tc.added > 0 {
			v1.SetAddedInstances(pr, "gpu", tc.added, tc.ids)
		}
		if got := nodesUp(pr, tc.registered); got != tc.want {
			t.Errorf("%s: nodesUp = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// dynamicWith is a fake dynamic client holding reqs.
func dynamicWith(t *testing.T, reqs ...*v1.ProvisioningRequest) *dynamicfake.FakeDynamicClient {
	t.Helper()
	var objs []runtime.Object
	for _, pr := range reqs {
		u, err := toUnstructured(pr)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, u)
	}
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{v1.Resource: "ProvisioningRequestList"}, objs...)
}
