// Creating a request: its PodTemplates, owners and podSets.

package provisioning

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
)

// templateSpec is a member's pod spec as the autoscaler should simulate it:
// the same requests, node selection and tolerations, no node, plus, for GPU
// members, the gang's GPU class and the required domain's label when the
// gang is confined to one (members without GPUs are not).
//
// What tells one member from another (hostname, subdomain, containers'
// command, arguments and environment such as RANK) is left out: it does not
// change where a member fits, and a request named from it would change each
// time a different member stands for its shape, so a big gang would get a
// new request every time one of its members binds.
func templateSpec(x Want, member *v1.Pod) v1.PodSpec {
	spec := *member.Spec.DeepCopy()
	spec.NodeName = ""
	spec.SchedulingGates = nil
	spec.Hostname, spec.Subdomain = "", ""
	for _, cs := range [][]v1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			cs[i].Command, cs[i].Args, cs[i].Env, cs[i].EnvFrom = nil, nil, nil, nil
		}
	}
	var reqs []v1.NodeSelectorRequirement
	if gpuMember(x, member) {
		reqs = append(reqs, x.Require...)
	}
	if x.AffinityLabel != "" && gpuMember(x, member) {
		reqs = append(reqs, v1.NodeSelectorRequirement{Key: x.AffinityLabel, Operator: v1.NodeSelectorOpIn, Values: []string{x.AffinityValue}})
	}
	if capacity.TolerateSpot(member) {
		// The request is for the quorum, which never runs on spot: the
		// autoscaler must not simulate it onto a spot pool's template.
		reqs = append(reqs, v1.NodeSelectorRequirement{Key: capacity.SpotLabel, Operator: v1.NodeSelectorOpNotIn, Values: []string{capacity.SpotValue}})
	}
	if len(reqs) > 0 {
		if spec.Affinity == nil {
			spec.Affinity = &v1.Affinity{}
		}
		if spec.Affinity.NodeAffinity == nil {
			spec.Affinity.NodeAffinity = &v1.NodeAffinity{}
		}
		na := spec.Affinity.NodeAffinity
		if na.RequiredDuringSchedulingIgnoredDuringExecution == nil {
			na.RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{}}}
		}
		terms := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		for i := range terms {
			terms[i].MatchExpressions = append(terms[i].MatchExpressions, reqs...)
		}
	}
	return spec
}

// gpuMember says member belongs to one of the want's GPU sets.
func gpuMember(x Want, member *v1.Pod) bool {
	for _, set := range x.Sets {
		if set.Member == member {
			return set.GPUs > 0
		}
	}
	return false
}

// podGroupResources are the PodGroups that own a gang's request, by the
// gang's source.
var podGroupResources = map[gang.Source]schema.GroupVersionResource{
	gang.SourcePodGroup: schemaGVR("scheduling.x-k8s.io", "v1alpha1", "podgroups"),
	gang.SourceWorkload: schemaGVR("scheduling.k8s.io", "v1beta1", "podgroups"),
}

// crdFreeOwners is how many of a CRD-free gang's members own its request.
const crdFreeOwners = 8

// owners are the objects whose deletion removes the request: the PodGroup,
// or for a CRD-free gang its oldest members (up to crdFreeOwners). The
// garbage collector deletes an object only when all its owners are gone, so
// an operator replacing one member does not take the request with it.
func (w *Writer) owners(ctx context.Context, x Want) ([]metav1.OwnerReference, error) {
	if gvr, ok := podGroupResources[x.Source]; ok {
		pg, err := w.dyn.Resource(gvr).Namespace(x.Key.Namespace).Get(ctx, x.Key.Name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading PodGroup %s (%s): %w", x.Key, gvr.GroupVersion(), err)
		}
		return []metav1.OwnerReference{{APIVersion: gvr.GroupVersion().String(), Kind: "PodGroup", Name: pg.GetName(), UID: pg.GetUID()}}, nil
	}
	var live []*v1.Pod
	for _, p := range w.members(x.Key) {
		if p.DeletionTimestamp == nil {
			live = append(live, p)
		}
	}
	if len(live) == 0 {
		return nil, fmt.Errorf("gang %s has no members", x.Key)
	}
	sort.Slice(live, func(i, j int) bool {
		a, b := live[i], live[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Name < b.Name
	})
	out := make([]metav1.OwnerReference, 0, min(len(live), crdFreeOwners))
	for _, p := range live[:min(len(live), crdFreeOwners)] {
		out = append(out, metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID})
	}
	return out, nil
}

func (w *Writer) create(ctx context.Context, x Want, name string) error {
	labels := map[string]string{ManagedByLabel: ManagedBy, GangLabel: x.Key.Name}
	owners, err := w.owners(ctx, x)
	if err != nil {
		return err
	}
	podSets := make([]autoscalingv1.PodSet, 0, len(x.Sets))
	for i, set := range x.Sets {
		tmplName := templateName(name, i)
		tmplLabels := map[string]string{}
		for k, v := range set.Member.Labels {
			tmplLabels[k] = v
		}
		var ann map[string]string
		if set.GPUs > 0 {
			ann = x.TemplateAnnotations
		}
		objLabels := map[string]string{RequestLabel: requestLabelValue(name)}
		for k, v := range labels {
			objLabels[k] = v
		}
		tmpl := &v1.PodTemplate{
			ObjectMeta: metav1.ObjectMeta{Name: tmplName, Namespace: x.Key.Namespace, Labels: objLabels, OwnerReferences: owners},
			Template:   v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: tmplLabels, Annotations: ann}, Spec: templateSpec(x, set.Member)},
		}
		made, err := w.client.CoreV1().PodTemplates(x.Key.Namespace).Create(ctx, tmpl, metav1.CreateOptions{})
		switch {
		case err == nil:
			w.templatesWritten = made.ResourceVersion
		case apierrors.IsAlreadyExists(err):
			// Created by a leader before: a drop's list must not be
			// older than this writer's view can vouch for.
			w.templatesWritten = ""
		default:
			return fmt.Errorf("creating PodTemplate %s/%s: %w", x.Key.Namespace, tmplName, err)
		}
		podSets = append(podSets, autoscalingv1.PodSet{PodTemplateRef: autoscalingv1.Reference{Name: tmplName}, Count: int32(set.Count)})
	}
	pr := &autoscalingv1.ProvisioningRequest{
		TypeMeta: metav1.TypeMeta{APIVersion: autoscalingv1.GroupVersion.String(), Kind: "ProvisioningRequest"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: x.Key.Namespace, Labels: labels, OwnerReferences: owners,
			Annotations: map[string]string{MinAnnotation: strconv.FormatInt(x.Min, 10), CreatedAnnotation: w.now().UTC().Format(time.RFC3339Nano)}},
		Spec: autoscalingv1.ProvisioningRequestSpec{
			ProvisioningClassName: autoscalingv1.ClassBestEffortAtomicScaleUp,
			PodSets:               podSets,
		},
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pr)
	if err != nil {
		return err
	}
	created, err := w.requests(x.Key.Namespace).Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		w.fetchedAs(x.Key.Namespace, name, nil, false)
	case err != nil:
		return fmt.Errorf("creating ProvisioningRequest %s/%s: %w", x.Key.Namespace, name, err)
	default:
		w.fetchedAs(x.Key.Namespace, name, created, false)
		requestsWritten.WithLabelValues("created").Inc()
		for _, ps := range podSets {
			membersRequested.Add(float64(ps.Count))
		}
	}
	return nil
}

func schemaGVR(group, version, resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: group, Version: version, Resource: resource}
}
