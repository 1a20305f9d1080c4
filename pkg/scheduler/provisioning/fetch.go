// Reading live requests: from the writer's informer, read, checked and dropped.

package provisioning

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/gang"
)

// newRequestInformer watches the requests Muster manages. A list of them
// each Sync, every second, decoded every request whether or not it had
// changed: with a backlog of gangs the autoscaler cannot serve, the largest
// part of the writer's cost (muster simulate --trace-for 24h --cpuprofile)
// and a list the API server served each second.
func newRequestInformer(dyn dynamic.Interface) cache.SharedIndexInformer {
	return dynamicinformer.NewFilteredDynamicInformer(dyn, autoscalingv1.Resource, metav1.NamespaceAll, 0, cache.Indexers{},
		func(o *metav1.ListOptions) { o.LabelSelector = managedSelector }).Informer()
}

// fetchLive takes every gang's live request, for the Sync that begins
// (fetched), from the informer. What others wrote comes a moment late, as
// if the Sync had begun a moment earlier. A request this writer created
// whose creation the informer has not shown yet (created) is read with a
// GET instead, and so is every request until the informer has synced, or
// when the writer has none.
func (w *Writer) fetchLive() {
	w.fetched = nil
	if w.informer == nil || !w.informer.HasSynced() {
		return
	}
	w.mu.Lock()
	names := make([]types.NamespacedName, 0, len(w.live))
	for k, name := range w.live {
		names = append(names, types.NamespacedName{Namespace: k.Namespace, Name: name})
	}
	w.mu.Unlock()
	w.fetched = make(map[types.NamespacedName]fetchedRequest, len(names))
	store := w.informer.GetStore()
	for _, key := range names {
		var u *unstructured.Unstructured
		if o, ok, err := store.GetByKey(key.Namespace + "/" + key.Name); err == nil && ok {
			u, _ = o.(*unstructured.Unstructured)
		}
		if uid, ok := w.created[key]; ok {
			if u == nil || u.GetUID() != uid {
				continue // not seen yet: read from the API
			}
			delete(w.created, key)
		}
		if u != nil {
			w.fetched[key] = fetchedRequest{u: u}
		} else {
			w.fetched[key] = fetchedRequest{err: apierrors.NewNotFound(autoscalingv1.Resource.GroupResource(), key.Name)}
		}
	}
}

// RequestsSeen is the resource version of the last change to a request
// the writer's informer has seen, and whether Syncs read requests from it
// (false: they read each from the API): muster simulate waits for its
// informer to have seen a request change before it kicks a Sync.
func (w *Writer) RequestsSeen() (resourceVersion string, informed bool) {
	if w.informer == nil || !w.informer.HasSynced() {
		return "", false
	}
	return w.informer.LastSyncResourceVersion(), true
}

// fetchedAs records in the running Sync's reads what it wrote: the request
// it created (nil: read it from the API), or a not-found once deleted.
func (w *Writer) fetchedAs(ns, name string, u *unstructured.Unstructured, deleted bool) {
	key := types.NamespacedName{Namespace: ns, Name: name}
	switch {
	case deleted:
		delete(w.created, key)
	case u != nil:
		w.created[key] = u.GetUID()
	}
	if w.fetched == nil {
		return
	}
	switch {
	case deleted:
		w.fetched[key] = fetchedRequest{err: apierrors.NewNotFound(autoscalingv1.Resource.GroupResource(), name)}
	case u == nil:
		delete(w.fetched, key)
	default:
		w.fetched[key] = fetchedRequest{u: u}
	}
}

// read fetches a request and its conditions by type: as the running Sync
// read it when it began, else from the API.
func (w *Writer) read(ctx context.Context, ns, name string) (*autoscalingv1.ProvisioningRequest, map[string]metav1.Condition, error) {
	f, ok := w.fetched[types.NamespacedName{Namespace: ns, Name: name}]
	if !ok {
		f.u, f.err = w.requests(ns).Get(ctx, name, metav1.GetOptions{})
	}
	if f.err != nil {
		if !apierrors.IsNotFound(f.err) {
			w.failed = true
		}
		return nil, nil, f.err
	}
	u := f.u
	var pr autoscalingv1.ProvisioningRequest
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &pr); err != nil {
		w.failed = true
		return nil, nil, err
	}
	conds := map[string]metav1.Condition{}
	for _, pc := range pr.Status.Conditions {
		conds[pc.Type] = pc
	}
	return &pr, conds, nil
}

// drop deletes a request and its templates.
func (w *Writer) drop(ctx context.Context, k gang.Key, name, why string) {
	if name == "" {
		return
	}
	w.dropped(ctx, k, name, why, w.deleteRequest(ctx, k.Namespace, name, w.podSetsOf(k.Namespace, name), w.templatesWritten))
}

// deleted is what deleteRequest's calls answered.
type deleted struct {
	request, templates, template error
}

// deleteRequest deletes request ns/name and its PodTemplates, and touches
// no state of the writer: a replacement deletes the request it replaces
// while it creates the next (request). sets is how many PodSets the
// request has (0: unknown): one PodSet's template is named as the request,
// and only then is the label-selected DeleteCollection, a list and a
// delete in the API server, left out. Its list is served from the watch
// cache when it need not be newer than templatesWritten (the writer's
// last template: every template of the request is older).
func (w *Writer) deleteRequest(ctx context.Context, ns, name string, sets int, templatesWritten string) deleted {
	var d deleted
	d.request = w.requests(ns).Delete(ctx, name, metav1.DeleteOptions{})
	if d.request != nil && !apierrors.IsNotFound(d.request) {
		return d
	}
	if sets != 1 {
		templates := metav1.ListOptions{LabelSelector: RequestLabel + "=" + requestLabelValue(name)}
		if templatesWritten != "" {
			templates.ResourceVersion, templates.ResourceVersionMatch = templatesWritten, metav1.ResourceVersionMatchNotOlderThan
		}
		d.templates = w.client.CoreV1().PodTemplates(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, templates)
	}
	if err := w.client.CoreV1().PodTemplates(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		d.template = err
	}
	return d
}

// dropped records the deletion of gang k's request name (deleteRequest's
// answers d) in the writer's state.
func (w *Writer) dropped(ctx context.Context, k gang.Key, name, why string, d deleted) {
	logger := klog.FromContext(ctx)
	if d.request == nil || apierrors.IsNotFound(d.request) {
		w.fetchedAs(k.Namespace, name, nil, true)
	}
	switch {
	case apierrors.IsNotFound(d.request):
	case d.request != nil:
		w.failed = true
		logger.Error(d.request, "Could not delete ProvisioningRequest", "request", klog.KRef(k.Namespace, name))
		return
	default:
		requestsWritten.WithLabelValues("withdrawn").Inc()
	}
	if d.templates != nil {
		w.failed = true
		logger.Error(d.templates, "Could not delete PodTemplates", "request", klog.KRef(k.Namespace, name))
	}
	if d.template != nil {
		w.failed = true
		logger.Error(d.template, "Could not delete PodTemplate", "podTemplate", klog.KRef(k.Namespace, name))
	}
	logger.V(2).Info("Withdrew capacity request", "gang", k, "request", name, "why", why)
	w.mu.Lock()
	if w.live[k] == name {
		delete(w.live, k)
		delete(w.booked, k)
	}
	w.mu.Unlock()
}

// podSetsOf is how many PodSets request ns/name has as the running Sync
// read it, 0 when it did not.
func (w *Writer) podSetsOf(ns, name string) int {
	f, ok := w.fetched[types.NamespacedName{Namespace: ns, Name: name}]
	if !ok || f.u == nil {
		return 0
	}
	sets, found, err := unstructured.NestedSlice(f.u.Object, "spec", "podSets")
	if !found || err != nil {
		return 0
	}
	return len(sets)
}
