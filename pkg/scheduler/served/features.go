// The scheduler features that need served APIs, and AdaptFeatures turning off the unserved ones.

package served

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"
	authorizationclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
)

// Requirement is a kube-scheduler feature and the API resources the
// scheduler watches while it is on. An informer on a resource the server
// does not serve, or that the scheduler may not list, never syncs, and the
// scheduler waits for every informer before it takes its lease: it would
// never schedule.
type Requirement struct {
	Feature   featuregate.Feature
	Resources []schema.GroupVersionResource
}

var (
	resourceV1        = schema.GroupVersion{Group: "resource.k8s.io", Version: "v1"}
	schedulingV1beta1 = schema.GroupVersion{Group: "scheduling.k8s.io", Version: "v1beta1"}
	schedulingV1a3    = schema.GroupVersion{Group: "scheduling.k8s.io", Version: "v1alpha3"}
)

// SchedulerRequirements are the features of the 1.37 kube-scheduler that
// watch an API a 1.34–1.36 API server may not serve or its
// system:kube-scheduler role may not grant (read from
// pkg/scheduler/scheduler.go, eventhandlers.go and the DRA slice tracker).
// DRADeviceTaintRules is on by default in 1.37 and watches
// resource.k8s.io/v1 DeviceTaintRules, which only 1.37 serves.
var SchedulerRequirements = []Requirement{
	{Feature: features.DRADeviceTaintRules, Resources: []schema.GroupVersionResource{resourceV1.WithResource("devicetaintrules")}},
	{Feature: features.DynamicResourceAllocation, Resources: []schema.GroupVersionResource{
		resourceV1.WithResource("resourceclaims"), resourceV1.WithResource("resourceslices"), resourceV1.WithResource("deviceclasses")}},
	{Feature: features.GenericWorkload, Resources: []schema.GroupVersionResource{schedulingV1beta1.WithResource("podgroups")}},
	{Feature: features.CompositePodGroup, Resources: []schema.GroupVersionResource{schedulingV1a3.WithResource("compositepodgroups")}},
}

// Decision is what AdaptFeatures found for one enabled feature.
type Decision struct {
	Feature featuregate.Feature
	// Off says the feature was turned off; Reason says why (empty when the
	// feature stays on).
	Off    bool
	Reason string
	// Locked is set when the feature should be off but is locked to its
	// default in this build: the scheduler will not sync that informer.
	Locked bool
}

// AdaptFeatures turns off, in gate, every enabled feature of reqs whose
// resources the server does not serve or this client may not list and
// watch, and logs each once with the reason. It must run before the
// scheduler is built (the scheduler reads its gates once, in scheduler.New).
// It returns an error only when ctx ends before the server answered.
func AdaptFeatures(ctx context.Context, dc discovery.DiscoveryInterface, reviews authorizationclient.SelfSubjectAccessReviewInterface, gate featuregate.MutableFeatureGate, reqs []Requirement) ([]Decision, error) {
	logger := klog.FromContext(ctx)
	// Several features watch resources of one group version: ask discovery
	// once for each.
	served := map[string]sets.Set[string]{}
	var out []Decision
	for _, req := range reqs {
		if !gate.Enabled(req.Feature) {
			continue
		}
		reason, err := missing(ctx, dc, reviews, served, req.Resources)
		if err != nil {
			return out, err
		}
		d := Decision{Feature: req.Feature, Reason: reason}
		if reason != "" {
			if err := gate.SetFromMap(map[string]bool{string(req.Feature): false}); err != nil {
				d.Locked = true
				logger.Error(err, "Feature needs an API this cluster does not give muster-scheduler, and cannot be turned off in this build: the scheduler will not become ready", "feature", req.Feature, "reason", reason)
			} else {
				d.Off = true
				logger.Info("Turned off a scheduler feature: the cluster does not give muster-scheduler its API", "feature", req.Feature, "reason", reason)
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// missing says which of resources is not served or not permitted ("" when
// all are there); served holds the group versions discovery has answered.
func missing(ctx context.Context, dc discovery.DiscoveryInterface, reviews authorizationclient.SelfSubjectAccessReviewInterface, served map[string]sets.Set[string], resources []schema.GroupVersionResource) (string, error) {
	var notServed, refused []string
	for _, gvr := range resources {
		gv := gvr.GroupVersion().String()
		if _, asked := served[gv]; !asked {
			names, err := Resources(ctx, dc, gv)
			if err != nil {
				return "", err
			}
			served[gv] = names
		}
		if !served[gv].Has(gvr.Resource) {
			notServed = append(notServed, resourceName(gvr))
			continue
		}
		if reviews == nil {
			continue
		}
		verb, err := CanListAndWatch(ctx, reviews, gvr)
		if err != nil {
			return "", err
		}
		if verb != "" {
			refused = append(refused, verb+" "+resourceName(gvr))
		}
	}
	var parts []string
	if len(notServed) > 0 {
		parts = append(parts, "the API server does not serve "+strings.Join(notServed, ", "))
	}
	if len(refused) > 0 {
		parts = append(parts, fmt.Sprintf("muster-scheduler's role does not allow %s", strings.Join(refused, ", ")))
	}
	return strings.Join(parts, "; "), nil
}
