// PodsForRequest builds a request's in-memory pods from its PodTemplate; ConsumedRequest; limits.

package provreq

import (
	"errors"
	"fmt"

	apiv1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	apiscorev1 "k8s.io/kubernetes/pkg/apis/core/v1"

	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// ErrInvalid marks errors of a request that retrying cannot fix: a bad
// spec, or a PodTemplate that does not exist.
var ErrInvalid = errors.New("invalid ProvisioningRequest")

// permanent reports whether err, from PodsForRequest, fails the request for
// good (other errors, such as a failed API read, are retried).
func permanent(err error) bool {
	return errors.Is(err, ErrInvalid) || apierrors.IsNotFound(err)
}

// MaxPodsPerRequest caps the pods one request may ask for (the count of
// all its podSets): the consumer builds each in memory. Muster's CRD caps
// each podSet's count at the same figure.
const MaxPodsPerRequest = 10000

// TemplateGetter returns the PodTemplate namespace/name.
type TemplateGetter func(namespace, name string) (*apiv1.PodTemplate, error)

// PodsForRequest builds the in-memory pods a request asks capacity for:
// Count copies of each podSet's PodTemplate, named <request>-<set>-<i>,
// owned (controller) by the request, annotated as consuming it, defaulted as
// the API server would (so that, e.g., limits-only GPU containers get
// requests). As upstream's provisioningrequest/pods.PodsForProvisioningRequest.
// A request over MaxPodsPerRequest is invalid.
func PodsForRequest(pr *v1.ProvisioningRequest, templates TemplateGetter) ([]*apiv1.Pod, error) {
	if len(pr.Spec.PodSets) == 0 {
		return nil, fmt.Errorf("%w %s/%s: spec.podSets is empty", ErrInvalid, pr.Namespace, pr.Name)
	}
	total := 0
	for i, ps := range pr.Spec.PodSets {
		total += max(int(ps.Count), 0)
		if total > MaxPodsPerRequest {
			return nil, fmt.Errorf("%w %s/%s: spec.podSets[%d].count brings the request to %d pods, more than the %d one request may ask for", ErrInvalid, pr.Namespace, pr.Name, i, total, MaxPodsPerRequest)
		}
	}
	controller := true
	owner := metav1.OwnerReference{APIVersion: v1.GroupVersion.String(), Kind: v1.Kind, Name: pr.Name, UID: pr.UID, Controller: &controller}
	var pods []*apiv1.Pod
	for i, ps := range pr.Spec.PodSets {
		if ps.PodTemplateRef.Name == "" {
			return nil, fmt.Errorf("%w %s/%s: spec.podSets[%d].podTemplateRef.name is empty", ErrInvalid, pr.Namespace, pr.Name, i)
		}
		if ps.Count < 1 {
			return nil, fmt.Errorf("%w %s/%s: spec.podSets[%d].count is %d, want at least 1", ErrInvalid, pr.Namespace, pr.Name, i, ps.Count)
		}
		tmpl, err := templates(pr.Namespace, ps.PodTemplateRef.Name)
		if err != nil {
			return nil, fmt.Errorf("ProvisioningRequest %s/%s: spec.podSets[%d].podTemplateRef: PodTemplate %s/%s: %w", pr.Namespace, pr.Name, i, pr.Namespace, ps.PodTemplateRef.Name, err)
		}
		for j := 0; j < int(ps.Count); j++ {
			p := &apiv1.Pod{
				ObjectMeta: metav1.ObjectMeta{
					Name:              fmt.Sprintf("%s-%d-%d", pr.Name, i, j),
					Namespace:         pr.Namespace,
					Labels:            copyMap(tmpl.Template.Labels),
					Annotations:       copyMap(tmpl.Template.Annotations),
					OwnerReferences:   []metav1.OwnerReference{owner},
					CreationTimestamp: pr.CreationTimestamp,
				},
				Spec: *tmpl.Template.Spec.DeepCopy(),
			}
			if p.Annotations == nil {
				p.Annotations = map[string]string{}
			}
			p.Annotations[v1.ProvisioningRequestPodAnnotationKey] = pr.Name
			p.Annotations[v1.ProvisioningClassPodAnnotationKey] = pr.Spec.ProvisioningClassName
			p.UID = types.UID(p.Namespace + "/" + p.Name)
			p.Spec.NodeName = ""
			apiscorev1.SetDefaults_Pod(p)
			pods = append(pods, p)
		}
	}
	return pods, nil
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// ConsumedRequest returns the name of the request a pod consumes (the
// current annotation, or the older cluster-autoscaler.kubernetes.io one).
func ConsumedRequest(p *apiv1.Pod) (string, bool) {
	if p == nil {
		return "", false
	}
	if n, ok := p.Annotations[v1.ProvisioningRequestPodAnnotationKey]; ok {
		return n, true
	}
	n, ok := p.Annotations[v1.DeprecatedProvisioningRequestPodAnnotationKey]
	return n, ok
}
