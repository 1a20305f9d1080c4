// Reading live requests: listed once a sync, read, checked and dropped.

package provisioning

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/gang"
)

// fetchLive reads every gang's live request at once, for the Sync that
// begins (fetched): one list of the requests Muster manages, served from
// the API server's watch cache. A GET per request read each from etcd and
// decoded it through the CRD's schema, on every Sync: with gangs waiting,
// a quarter of a day-long replay's CPU (muster simulate --trace-for 24h
// --cpuprofile). The list is no older than what this writer last listed
// or created (listedAs): a consistent list would wait, each Sync, for the
// cache to learn from etcd that it was current. What others wrote since
// may come a moment late, as if the Sync had begun a moment earlier; a
// Sync begun after the cache has it (after any informer saw it) sees it.
// If the list fails, read GETs each request instead.
func (w *Writer) fetchLive(ctx context.Context) {
	w.mu.Lock()
	names := make([]types.NamespacedName, 0, len(w.live))
	for k, name := range w.live {
		names = append(names, types.NamespacedName{Namespace: k.Namespace, Name: name})
	}
	w.mu.Unlock()
	w.fetched = make(map[types.NamespacedName]fetchedRequest, len(names))
	if len(names) == 0 {
		return
	}
	opts := metav1.ListOptions{LabelSelector: managedSelector}
	if w.listedAs != "" {
		opts.ResourceVersion, opts.ResourceVersionMatch = w.listedAs, metav1.ResourceVersionMatchNotOlderThan
	}
	list, err := w.dyn.Resource(autoscalingv1.Resource).List(ctx, opts)
	if err != nil {
		w.listedAs = ""
		klog.FromContext(ctx).V(2).Info("Could not list ProvisioningRequests; reading them one by one", "err", err)
		return
	}
	w.listedAs = list.GetResourceVersion()
	listed := make(map[types.NamespacedName]*unstructured.Unstructured, len(list.Items))
	for i := range list.Items {
		u := &list.Items[i]
		listed[types.NamespacedName{Namespace: u.GetNamespace(), Name: u.GetName()}] = u
	}
	for _, key := range names {
		if u, ok := listed[key]; ok {
			w.fetched[key] = fetchedRequest{u: u}
		} else {
			w.fetched[key] = fetchedRequest{err: apierrors.NewNotFound(autoscalingv1.Resource.GroupResource(), key.Name)}
		}
	}
}

// fetchedAs records in the running Sync's reads what it wrote: the request
// it created (nil: read it from the API), or a not-found once deleted.
func (w *Writer) fetchedAs(ns, name string, u *unstructured.Unstructured, deleted bool) {
	if u != nil {
		// Created after the last list: the next lists no older than it.
		w.listedAs = u.GetResourceVersion()
	}
	if w.fetched == nil {
		return
	}
	key := types.NamespacedName{Namespace: ns, Name: name}
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
		return nil, nil, f.err
	}
	u := f.u
	var pr autoscalingv1.ProvisioningRequest
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &pr); err != nil {
		return nil, nil, err
	}
	conds := map[string]metav1.Condition{}
	for _, pc := range pr.Status.Conditions {
		conds[pc.Type] = pc
	}
	return &pr, conds, nil
}

// drop deletes a request and its template.
func (w *Writer) drop(ctx context.Context, k gang.Key, name, why string) {
	if name == "" {
		return
	}
	err := w.requests(k.Namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if err == nil || apierrors.IsNotFound(err) {
		w.fetchedAs(k.Namespace, name, nil, true)
	}
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		klog.FromContext(ctx).Error(err, "Could not delete ProvisioningRequest", "request", klog.KRef(k.Namespace, name))
		return
	default:
		requestsWritten.WithLabelValues("withdrawn").Inc()
	}
	if err := w.client.CoreV1().PodTemplates(k.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: RequestLabel + "=" + requestLabelValue(name)}); err != nil {
		klog.FromContext(ctx).Error(err, "Could not delete PodTemplates", "request", klog.KRef(k.Namespace, name))
	}
	if err := w.client.CoreV1().PodTemplates(k.Namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		klog.FromContext(ctx).Error(err, "Could not delete PodTemplate", "podTemplate", klog.KRef(k.Namespace, name))
	}
	klog.FromContext(ctx).V(2).Info("Withdrew capacity request", "gang", k, "request", name, "why", why)
	w.mu.Lock()
	if w.live[k] == name {
		delete(w.live, k)
		delete(w.booked, k)
	}
	w.mu.Unlock()
}
