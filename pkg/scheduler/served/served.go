// Package served answers which APIs the cluster serves to muster-scheduler:
// muster-scheduler is built on the Kubernetes 1.37 libraries and runs against
// older API servers, so what it watches is decided from discovery, not from
// the version it was built with.
package served

import (
	"context"
	"fmt"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	authorizationclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/klog/v2"
)

// retry is how long a failed discovery or access review waits before it is
// asked again: an API server that is starting, overloaded or behind an
// aggregator that is down answers 503 for a while, and that says nothing
// about what it serves.
var retry = wait.Backoff{Duration: 500 * time.Millisecond, Factor: 2, Jitter: 0.1, Cap: 30 * time.Second, Steps: 1 << 30}

// Resources returns the names of the resources the server serves in
// groupVersion: empty, and no error, when it does not serve the group
// version at all (discovery answers NotFound). Any other discovery error is
// logged, naming the group version, and asked again with backoff until it is
// answered or ctx ends: it is never read as "not served", and it returns an
// error only when ctx ends.
func Resources(ctx context.Context, dc discovery.DiscoveryInterface, groupVersion string) (sets.Set[string], error) {
	var names sets.Set[string]
	err := withRetry(ctx, "discovering "+groupVersion, func() error {
		list, err := dc.ServerResourcesForGroupVersion(groupVersion)
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		names = sets.New[string]()
		if err == nil {
			for _, r := range list.APIResources {
				names.Insert(r.Name)
			}
		}
		return nil
	})
	return names, err
}

// Serves says whether the server serves resource gvr (Resources).
func Serves(ctx context.Context, dc discovery.DiscoveryInterface, gvr schema.GroupVersionResource) (bool, error) {
	names, err := Resources(ctx, dc, gvr.GroupVersion().String())
	return names.Has(gvr.Resource), err
}

// CanListAndWatch says whether the client's own identity may list and watch
// gvr in every namespace (what an informer does), asking the API server with
// SelfSubjectAccessReviews, which every authenticated user may create.
// Failures are retried as in Resources; a review the server refuses (4xx)
// counts as granted. It returns the verb refused, if any.
func CanListAndWatch(ctx context.Context, reviews authorizationclient.SelfSubjectAccessReviewInterface, gvr schema.GroupVersionResource) (refused string, err error) {
	for _, verb := range []string{"list", "watch"} {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource, Verb: verb},
		}}
		allowed := true
		what := fmt.Sprintf("reviewing access to %s %s", verb, resourceName(gvr))
		err := withRetry(ctx, what, func() error {
			got, err := reviews.Create(ctx, review, metav1.CreateOptions{})
			if isRefusal(err) {
				// The server will not review (no access reviews for this
				// identity, or the API is off): no opinion, so the
				// informer's own errors will tell.
				klog.FromContext(ctx).Info("Cannot review the scheduler's access; assuming it is granted", "request", what, "err", err)
				return nil
			}
			if err != nil {
				return err
			}
			allowed = got.Status.Allowed
			return nil
		})
		if err != nil {
			return "", err
		}
		if !allowed {
			return verb, nil
		}
	}
	return "", nil
}

// withRetry calls f until it succeeds or ctx ends, logging each failure.
func withRetry(ctx context.Context, what string, f func() error) error {
	logger := klog.FromContext(ctx)
	backoff := retry
	for attempt := 1; ; attempt++ {
		err := f()
		if err == nil {
			return nil
		}
		wait := backoff.Step()
		logger.Error(err, "API server did not answer; asking again", "request", what, "attempt", attempt, "retryIn", wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s: %w (last error: %v)", what, ctx.Err(), err)
		case <-t.C:
		}
	}
}

// isRefusal is an error that asking again will not change: the request
// itself was refused (4xx other than 429), as opposed to the server failing.
func isRefusal(err error) bool {
	if err == nil || apierrors.IsTooManyRequests(err) {
		return false
	}
	if status, ok := err.(apierrors.APIStatus); ok {
		code := status.Status().Code
		return code >= 400 && code < 500
	}
	return false
}

// resourceName is gvr as kubectl names it: resource.version.group.
func resourceName(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return gvr.Resource + "." + gvr.Version
	}
	return gvr.Resource + "." + gvr.Version + "." + gvr.Group
}
