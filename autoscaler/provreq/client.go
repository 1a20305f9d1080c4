// Client: ProvisioningRequests read once per loop (listed, or from a watch), status writes, PodTemplates, creation order.

package provreq

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	apiv1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// Client reads ProvisioningRequests once per autoscaler loop (Refresh) and
// writes their status. PodTemplates come from an informer's lister; the
// requests are listed at each Refresh, or, after WatchRequests, taken from
// a watch of them.
type Client struct {
	dyn       dynamic.Interface
	templates corelisters.PodTemplateLister
	synced    func() bool          // whether the lister's informer has synced; nil: assume so
	kube      kubernetes.Interface // nil: no read-through for templates the lister lacks
	timeout   time.Duration

	mu        sync.Mutex
	requests  []*v1.ProvisioningRequest
	missing   bool // the API does not serve provisioningrequests
	forbidden bool // RBAC does not allow listing them
	// scaleUps are the scale-ups made for requests whose instances are
	// not all known yet (see recordInstances).
	scaleUps map[types.UID]scaleUp
	// roomLost counts, per request (namespace/name), the members its
	// scheduler counts on existing room that GangRoom found no room for
	// in this loop's snapshot (see GangRoom).
	roomLost map[string]int
	// roomKept lists, per request (namespace/name), the members GangRoom
	// placed on existing room in this loop's snapshot.
	roomKept map[string][]keptMember

	// watched, after WatchRequests, holds the requests as their watch
	// delivered them, decoded once per change; Refresh reads it instead
	// of listing. watchErr is the last error its list or watch met,
	// watchSeen the newest resourceVersion among the changes it
	// delivered (AwaitRequests).
	watched   cache.SharedIndexInformer
	watchErr  error
	watchSeen atomic.Int64
	// written keeps, per request, the status this client last wrote
	// until the watch delivers that version or a newer one: a loop reads
	// what the loop before it wrote.
	written map[types.UID]*v1.ProvisioningRequest
}

// keptMember is a member GangRoom placed in the loop's snapshot.
type keptMember struct{ namespace, name, node string }

// WithTemplatesSynced makes PodTemplate read from the API while the
// lister's informer has not synced (e.g. while RBAC forbids watching
// PodTemplates).
func (c *Client) WithTemplatesSynced(synced func() bool) *Client {
	c.synced = synced
	return c
}

// NewClient returns a client using dyn for requests and templates for
// PodTemplates; kube, when set, reads a template the lister does not have
// yet (its watch may lag the request's list).
func NewClient(dyn dynamic.Interface, templates corelisters.PodTemplateLister, kube kubernetes.Interface) *Client {
	return &Client{dyn: dyn, templates: templates, kube: kube, timeout: 30 * time.Second, scaleUps: map[types.UID]scaleUp{}, written: map[types.UID]*v1.ProvisioningRequest{}}
}

// WatchRequests has Refresh take the requests from a watch of them (an
// informer on the client's dynamic client, running until ctx is done)
// instead of a list at every loop: each request is decoded once per
// change, not once per loop. With hundreds of requests alive (gangs that
// never fit keep a failed one each until they retry), decoding the list
// was most of a loop's CPU. Call it before the first Refresh.
func (c *Client) WatchRequests(ctx context.Context) error {
	res := c.dyn.Resource(v1.Resource)
	inf := cache.NewSharedIndexInformer(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return res.List(ctx, opts)
		},
		WatchFuncWithContext: res.Watch,
	}, &unstructured.Unstructured{}, 0, cache.Indexers{})
	if err := inf.SetTransform(decodeWatched); err != nil {
		return err
	}
	if err := inf.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *cache.Reflector, err error) {
		c.mu.Lock()
		c.watchErr = err
		c.mu.Unlock()
		cache.DefaultWatchErrorHandler(ctx, r, err)
	}); err != nil {
		return err
	}
	seen := func(o any) {
		if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
			o = d.Obj
		}
		pr, ok := o.(*v1.ProvisioningRequest)
		if !ok {
			return
		}
		v, err := strconv.ParseInt(pr.ResourceVersion, 10, 64)
		if err != nil {
			return
		}
		for old := c.watchSeen.Load(); v > old && !c.watchSeen.CompareAndSwap(old, v); old = c.watchSeen.Load() {
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: seen, UpdateFunc: func(_, o any) { seen(o) }, DeleteFunc: seen}); err != nil {
		return err
	}
	c.mu.Lock()
	c.watched = inf
	c.mu.Unlock()
	go inf.RunWithContext(ctx)
	return nil
}

// decodeWatched turns a watched request into a typed one, without its
// managed fields (a status update that leaves them out keeps the stored
// ones). One that does not decode stays as it came, and Refresh skips it.
func decodeWatched(o any) (any, error) {
	u, ok := o.(*unstructured.Unstructured)
	if !ok {
		return o, nil
	}
	pr, err := fromUnstructured(u)
	if err != nil {
		klog.ErrorS(err, "Skipping a ProvisioningRequest that does not decode", "provisioningRequest", klog.KRef(u.GetNamespace(), u.GetName()))
		return u, nil
	}
	pr.ManagedFields = nil
	return pr, nil
}

// AwaitRequests waits, at most timeout, until the watch of WatchRequests
// has delivered every request change up to resourceVersion version, and
// says whether it did. Resource versions are compared as integers, as the
// scheduler's assume cache does. Without a watch there is nothing to wait
// for: Refresh lists.
func (c *Client) AwaitRequests(ctx context.Context, version int64, timeout time.Duration) bool {
	c.mu.Lock()
	watched := c.watched != nil
	c.mu.Unlock()
	if !watched {
		return true
	}
	deadline := time.Now().Add(timeout)
	for c.watchSeen.Load() < version {
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(time.Millisecond):
		}
	}
	return true
}

// Refresh reads the requests of all namespaces: from the watch after
// WatchRequests, else by listing them. When the API does not serve them
// (CRD not installed) or RBAC does not allow reading them, there are none;
// that is logged once.
func (c *Client) Refresh() error {
	c.mu.Lock()
	watched := c.watched
	c.mu.Unlock()
	if watched != nil {
		return c.refreshFromWatch(watched)
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	// From the API server's watch cache as it stands (resourceVersion 0),
	// as fresh as the informers the loop reads pods and nodes from: a
	// consistent list waits for the cache to catch up with etcd, which on
	// a resource written seldom means the next progress notification, up
	// to 100 ms a loop.
	list, err := c.dyn.Resource(v1.Resource).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		if c.unserved(err) {
			return nil
		}
		return fmt.Errorf("listing %s: %w", v1.Resource.String(), err)
	}
	out := make([]*v1.ProvisioningRequest, 0, len(list.Items))
	for i := range list.Items {
		pr, err := fromUnstructured(&list.Items[i])
		if err != nil {
			klog.ErrorS(err, "Skipping a ProvisioningRequest that does not decode", "provisioningRequest", klog.KRef(list.Items[i].GetNamespace(), list.Items[i].GetName()))
			continue
		}
		out = append(out, pr)
	}
	c.setRequests(out)
	return nil
}

// refreshFromWatch takes the requests from the watch. Until it has synced
// there are none when the API does not serve them or RBAC forbids them,
// and otherwise an error, so that the requests of the last loop are kept.
func (c *Client) refreshFromWatch(watched cache.SharedIndexInformer) error {
	synced := watched.HasSynced()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !synced {
		if c.watchErr != nil && c.unserved(c.watchErr) {
			return nil
		}
		return fmt.Errorf("the watch of %s has not synced yet (last error: %v)", v1.Resource.String(), c.watchErr)
	}
	items := watched.GetStore().List()
	out := make([]*v1.ProvisioningRequest, 0, len(items))
	live := make(map[types.UID]bool, len(items))
	for _, o := range items {
		pr, ok := o.(*v1.ProvisioningRequest)
		if !ok {
			continue // did not decode (logged by decodeWatched)
		}
		live[pr.UID] = true
		if w := c.written[pr.UID]; w != nil {
			if olderVersion(pr.ResourceVersion, w.ResourceVersion) {
				pr = w
			} else {
				delete(c.written, pr.UID)
			}
		}
		out = append(out, pr)
	}
	for uid := range c.written {
		if !live[uid] {
			delete(c.written, uid)
		}
	}
	c.setRequests(out)
	return nil
}

// olderVersion says whether resourceVersion a is older than b, as integers
// (not comparable: not older).
func olderVersion(a, b string) bool {
	va, errA := strconv.ParseInt(a, 10, 64)
	vb, errB := strconv.ParseInt(b, 10, 64)
	return errA == nil && errB == nil && va < vb
}

// unserved records that reading the requests failed with err because the
// API does not serve them or RBAC forbids it, logging that once: there are
// none then. Other errors are not recorded. c.mu is held.
func (c *Client) unserved(err error) bool {
	switch {
	case apierrors.IsNotFound(err):
		if !c.missing {
			klog.InfoS("ProvisioningRequests are not served by the API server (is the CRD installed?); none will be processed", "resource", v1.Resource.String())
		}
		c.missing = true
	case apierrors.IsForbidden(err):
		if !c.forbidden {
			klog.ErrorS(err, "Not allowed to list ProvisioningRequests; none will be processed until the autoscaler's RBAC allows list and watch on provisioningrequests and update on provisioningrequests/status (autoscaling.x-k8s.io), and list/watch on podtemplates")
		}
		c.forbidden = true
	default:
		return false
	}
	c.requests = nil
	return true
}

// setRequests makes out, sorted oldest first, the loop's requests, and
// forgets the scale-ups of requests no longer there. c.mu is held.
func (c *Client) setRequests(out []*v1.ProvisioningRequest) {
	if c.missing || c.forbidden {
		klog.InfoS("ProvisioningRequests can be listed now", "resource", v1.Resource.String())
	}
	c.missing, c.forbidden = false, false
	// Oldest first, so that requests are served in the order they came.
	sort.SliceStable(out, func(i, j int) bool { return olderRequest(out[i], out[j]) })
	c.requests = out
	live := make(map[types.UID]bool, len(out))
	for _, pr := range out {
		live[pr.UID] = true
	}
	for uid := range c.scaleUps {
		if !live[uid] {
			delete(c.scaleUps, uid)
		}
	}
}

// setRoom records this loop's counted members without room, and those
// placed on existing room, per request.
func (c *Client) setRoom(lost map[string]int, kept map[string][]keptMember) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.roomLost, c.roomKept = lost, kept
}

// roomKeptFor returns the members of namespace/name that GangRoom placed on
// existing room in this loop's snapshot.
func (c *Client) roomKeptFor(key string) []keptMember {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.roomKept[key]
}

// RoomLost returns how many of namespace/name's members counted on
// existing room found none in this loop's snapshot.
func (c *Client) RoomLost(namespace, name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.roomLost[namespace+"/"+name]
}

// Requests returns deep copies of the requests of the last Refresh, oldest
// first.
func (c *Client) Requests() []*v1.ProvisioningRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*v1.ProvisioningRequest, len(c.requests))
	for i, pr := range c.requests {
		out[i] = deepCopy(pr)
	}
	return out
}

// Request returns a copy of namespace/name from the last Refresh.
func (c *Client) Request(namespace, name string) (*v1.ProvisioningRequest, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, pr := range c.requests {
		if pr.Namespace == namespace && pr.Name == name {
			return deepCopy(pr), true
		}
	}
	return nil, false
}

// UpdateStatus writes pr's status (optimistic concurrency on its
// resourceVersion) and keeps the result for the rest of the loop.
func (c *Client) UpdateStatus(pr *v1.ProvisioningRequest) error {
	u, err := toUnstructured(pr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	res := c.dyn.Resource(v1.Resource).Namespace(pr.Namespace)
	var out *unstructured.Unstructured
	// The autoscaler owns the status: on a conflict (someone changed the
	// object since the loop's list), the status is put on the latest version.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var uerr error
		out, uerr = res.UpdateStatus(ctx, u, metav1.UpdateOptions{})
		if !apierrors.IsConflict(uerr) {
			return uerr
		}
		latest, gerr := res.Get(ctx, pr.Name, metav1.GetOptions{})
		if gerr != nil {
			return gerr
		}
		if err := unstructured.SetNestedField(latest.Object, u.Object["status"], "status"); err != nil {
			return err
		}
		u = latest
		return uerr
	})
	if err != nil {
		return fmt.Errorf("updating the status of ProvisioningRequest %s/%s: %w", pr.Namespace, pr.Name, err)
	}
	updated, err := fromUnstructured(out)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, old := range c.requests {
		if old.Namespace == updated.Namespace && old.Name == updated.Name {
			c.requests[i] = updated
		}
	}
	if c.watched != nil {
		c.written[updated.UID] = updated
	}
	return nil
}

// PodTemplate returns namespace/name from the informer's cache, or from the
// API server when the cache does not have it (yet).
func (c *Client) PodTemplate(namespace, name string) (*apiv1.PodTemplate, error) {
	if c.synced == nil || c.synced() {
		t, err := c.templates.PodTemplates(namespace).Get(name)
		if err == nil || !apierrors.IsNotFound(err) || c.kube == nil {
			return t, err
		}
	} else if c.kube == nil {
		return nil, fmt.Errorf("the PodTemplate cache has not synced yet")
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	return c.kube.CoreV1().PodTemplates(namespace).Get(ctx, name, metav1.GetOptions{})
}

func fromUnstructured(u *unstructured.Unstructured) (*v1.ProvisioningRequest, error) {
	var pr v1.ProvisioningRequest
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &pr); err != nil {
		return nil, fmt.Errorf("decoding ProvisioningRequest %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	return &pr, nil
}

func toUnstructured(pr *v1.ProvisioningRequest) (*unstructured.Unstructured, error) {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pr)
	if err != nil {
		return nil, fmt.Errorf("encoding ProvisioningRequest %s/%s: %w", pr.Namespace, pr.Name, err)
	}
	u := &unstructured.Unstructured{Object: obj}
	u.SetAPIVersion(v1.GroupVersion.String())
	u.SetKind(v1.Kind)
	return u, nil
}

func deepCopy(pr *v1.ProvisioningRequest) *v1.ProvisioningRequest {
	out := *pr
	pr.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.PodSets = append([]v1.PodSet(nil), pr.Spec.PodSets...)
	if pr.Spec.Parameters != nil {
		out.Spec.Parameters = make(map[string]v1.Parameter, len(pr.Spec.Parameters))
		for k, v := range pr.Spec.Parameters {
			out.Spec.Parameters[k] = v
		}
	}
	out.Status.Conditions = nil
	for _, c := range pr.Status.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, *c.DeepCopy())
	}
	if pr.Status.ProvisioningClassDetails != nil {
		out.Status.ProvisioningClassDetails = make(map[string]v1.Detail, len(pr.Status.ProvisioningClassDetails))
		for k, v := range pr.Status.ProvisioningClassDetails {
			out.Status.ProvisioningClassDetails[k] = v
		}
	}
	return &out
}

// CreatedAnnotation is Muster's hint writer's stamp of when it created a
// request, RFC 3339 with nanoseconds (hints.CreatedAnnotation in the
// scheduler's module).
const CreatedAnnotation = "muster.dev/created-at"

// olderRequest orders requests by when they were created (createdAt), then
// by namespace and name.
func olderRequest(a, b *v1.ProvisioningRequest) bool {
	if ta, tb := createdAt(a), createdAt(b); !ta.Equal(tb) {
		return ta.Before(tb)
	}
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

// createdAt is when a request was created: Muster's stamp, finer than the
// creationTimestamp's whole seconds (requests created within a second are
// served in the order they came, not by name), else the creationTimestamp.
func createdAt(pr *v1.ProvisioningRequest) time.Time {
	if t, err := time.Parse(time.RFC3339Nano, pr.Annotations[CreatedAnnotation]); err == nil {
		return t
	}
	return pr.CreationTimestamp.Time
}
