// Tests of the client's watch of ProvisioningRequests: read from the watch in creation order, a loop's own status writes read until the watch brings them or newer, AwaitRequests, and list errors before the watch syncs.

package provreq

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	ktesting "k8s.io/client-go/testing"

	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

func versioned(t *testing.T, name, version string, created int64) *unstructured.Unstructured {
	t.Helper()
	pr := request("ml", name, v1.ProvisioningClassBestEffortAtomicScaleUp, v1.PodSet{PodTemplateRef: v1.Reference{Name: "gang-a"}, Count: 2})
	pr.CreationTimestamp = metav1.NewTime(time.Unix(created, 0))
	pr.ResourceVersion = version
	pr.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "muster-scheduler", Operation: metav1.ManagedFieldsOperationUpdate}}
	u, err := toUnstructured(pr)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// refreshed refreshes c and returns its requests as name@resourceVersion.
func refreshed(t *testing.T, c *Client) string {
	t.Helper()
	if err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, pr := range c.Requests() {
		out = append(out, pr.Name+"@"+pr.ResourceVersion)
	}
	return strings.Join(out, ",")
}

// eventually retries check, which says why it is not yet true, until it is
// or 10 s passed: a wait for the watch to deliver, not a verdict on time.
func eventually(t *testing.T, check func() string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for why := check(); why != ""; why = check() {
		if time.Now().After(deadline) {
			t.Fatal(why)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestWatchedRequests(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{v1.Resource: "ProvisioningRequestList"},
		versioned(t, "late", "5", 2000), versioned(t, "early", "6", 1000))
	c := NewClient(dyn, nil, nil)
	if !c.AwaitRequests(ctx, 6, 10*time.Millisecond) {
		t.Fatal("AwaitRequests without a watch waited")
	}
	if err := c.WatchRequests(ctx); err != nil {
		t.Fatal(err)
	}
	if !c.AwaitRequests(ctx, 6, 10*time.Second) {
		t.Fatal("the watch did not deliver the listed requests")
	}
	if got := refreshed(t, c); got != "early@6,late@5" {
		t.Fatalf("requests %s, want early@6,late@5 (oldest first)", got)
	}
	if pr, _ := c.Request("ml", "late"); len(pr.ManagedFields) != 0 {
		t.Errorf("managed fields kept: %+v", pr.ManagedFields)
	}

	res := dyn.Resource(v1.Resource).Namespace("ml")
	if _, err := res.Create(ctx, versioned(t, "newest", "8", 3000), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !c.AwaitRequests(ctx, 8, 10*time.Second) {
		t.Fatal("the watch did not deliver a created request")
	}
	if got := refreshed(t, c); got != "early@6,late@5,newest@8" {
		t.Fatalf("after a create: %s", got)
	}

	// The loop writes late's status; the API server answers version 9,
	// which the watch has not delivered (the fake stores nothing).
	dyn.PrependReactor("update", "provisioningrequests", func(a ktesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "status" {
			return false, nil, nil
		}
		u := a.(ktesting.UpdateAction).GetObject().(*unstructured.Unstructured).DeepCopy()
		u.SetResourceVersion("9")
		return true, u, nil
	})
	pr, _ := c.Request("ml", "late")
	setCondition(pr, v1.Accepted, metav1.ConditionTrue, "Accepted", "taken", metav1.Now())
	if err := c.UpdateStatus(pr); err != nil {
		t.Fatal(err)
	}
	if got := refreshed(t, c); got != "early@6,late@9,newest@8" {
		t.Fatalf("the next loop reads %s, want its own write late@9 while the watch still has late@5", got)
	}
	if pr, _ := c.Request("ml", "late"); !isTrue(pr, v1.Accepted) {
		t.Fatalf("late's written status lost: %+v", pr.Status.Conditions)
	}

	// Someone writes late again (version 10): the watch's newer version
	// wins over the written one.
	dyn.ReactionChain = dyn.ReactionChain[1:]
	newer := versioned(t, "late", "10", 2000)
	newer.SetLabels(map[string]string{"team": "ml"})
	if _, err := res.Update(ctx, newer, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !c.AwaitRequests(ctx, 10, 10*time.Second) {
		t.Fatal("the watch did not deliver an update")
	}
	if got := refreshed(t, c); got != "early@6,late@10,newest@8" {
		t.Fatalf("after a newer version: %s", got)
	}
	if pr, _ := c.Request("ml", "late"); pr.Labels["team"] != "ml" {
		t.Fatalf("late: labels %v, want the watch's newer version", pr.Labels)
	}
	if n := len(c.written); n != 0 {
		t.Errorf("%d written statuses kept after the watch caught up", n)
	}

	if err := res.Delete(ctx, "early", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() string {
		if got := refreshed(t, c); got != "late@10,newest@8" {
			return "after a delete: " + got
		}
		return ""
	})
	if c.AwaitRequests(ctx, 99, 20*time.Millisecond) {
		t.Error("AwaitRequests says a version nobody wrote was seen")
	}
}

// TestWatchedRequestsListErrors: with a watch, as with a list, an API
// server that does not serve the resource, or RBAC that forbids it, means
// no requests; other errors are an error naming the resource and the cause.
func TestWatchedRequestsListErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		wantErr string
	}{
		{name: "CRD not installed", err: apierrors.NewNotFound(v1.Resource.GroupResource(), "")},
		{name: "forbidden", err: apierrors.NewForbidden(v1.Resource.GroupResource(), "", fmt.Errorf("RBAC"))},
		{name: "server error", err: apierrors.NewInternalError(fmt.Errorf("boom")), wantErr: "boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{v1.Resource: "ProvisioningRequestList"})
			dyn.PrependReactor("list", "provisioningrequests", func(ktesting.Action) (bool, runtime.Object, error) {
				return true, nil, tc.err
			})
			c := NewClient(dyn, nil, nil)
			if err := c.WatchRequests(t.Context()); err != nil {
				t.Fatal(err)
			}
			eventually(t, func() string {
				err := c.Refresh()
				switch {
				case tc.wantErr == "" && err != nil:
					return err.Error()
				case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "provisioningrequests")):
					return fmt.Sprintf("Refresh: %v, want an error naming provisioningrequests and %q", err, tc.wantErr)
				}
				return ""
			})
			if n := len(c.Requests()); n != 0 {
				t.Fatalf("%d requests", n)
			}
		})
	}
}
