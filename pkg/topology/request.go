// A gang's topology request read from annotations: its level and GPU class (products, memory).

package topology

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/muster-project/muster/pkg/gang"
)

// Anywhere is the level index meaning "no topology constraint": the whole
// cluster is one domain.
const Anywhere = -1

// Class is the GPU a member accepts. The zero Class accepts any GPU.
type Class struct {
	// Products are product names or path.Match patterns; empty accepts any.
	Products []string
	// MinMemoryMiB is the least memory per GPU; 0 accepts any.
	MinMemoryMiB int64
}

// Matches reports whether a node's GPU product and memory (MiB, 0 when the
// node does not publish it) satisfy the class. A node without a product label
// matches only a class that names no product.
func (c Class) Matches(product string, memoryMiB int64) bool {
	if c.MinMemoryMiB > 0 && memoryMiB < c.MinMemoryMiB {
		return false
	}
	if len(c.Products) == 0 {
		return true
	}
	for _, p := range c.Products {
		if ok, _ := path.Match(p, product); ok {
			return true
		}
	}
	return false
}

// String describes the class in the words of a rejection reason.
func (c Class) String() string {
	var parts []string
	if len(c.Products) > 0 {
		parts = append(parts, strings.Join(c.Products, "|"))
	}
	if c.MinMemoryMiB > 0 {
		parts = append(parts, fmt.Sprintf(">=%dMiB", c.MinMemoryMiB))
	}
	if len(parts) == 0 {
		return "any GPU"
	}
	return strings.Join(parts, " ")
}

// IsZero reports whether the class accepts any GPU.
func (c Class) IsZero() bool { return len(c.Products) == 0 && c.MinMemoryMiB == 0 }

// Request is what a gang asks of the topology, read from annotations.
type Request struct {
	Class Class
	// Preferred is the narrowest level tried first; Required the widest level
	// allowed (Anywhere: none). Preferred <= Required unless Required is Anywhere.
	Preferred, Required int
}

// ParseRequest reads a gang's annotations against the configured levels.
// object names the annotated object ("PodGroup ns/name" or "Pod ns/name") for
// errors. Without annotations a gang prefers the narrowest level and may go
// anywhere.
func ParseRequest(annotations map[string]string, levels []Level, object string) (Request, error) {
	r := Request{Preferred: 0, Required: Anywhere}
	field := func(a string) string { return "metadata.annotations[" + a + "]" }
	if v, ok := annotations[GPUProductAnnotation]; ok {
		for _, p := range strings.Split(v, ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			if _, err := path.Match(p, ""); err != nil {
				return Request{}, &gang.FieldError{Object: object, Field: field(GPUProductAnnotation), Detail: fmt.Sprintf("%q is not a valid pattern: %v", p, err)}
			}
			r.Class.Products = append(r.Class.Products, p)
		}
		if len(r.Class.Products) == 0 {
			return Request{}, &gang.FieldError{Object: object, Field: field(GPUProductAnnotation), Detail: "must name at least one GPU product or pattern"}
		}
	}
	if v, ok := annotations[GPUMemoryAnnotation]; ok {
		q, err := resource.ParseQuantity(strings.TrimSpace(v))
		if err != nil || q.Sign() <= 0 {
			return Request{}, &gang.FieldError{Object: object, Field: field(GPUMemoryAnnotation), Detail: fmt.Sprintf("must be a positive quantity such as 40Gi, got %q", v)}
		}
		if q.Cmp(maxGPUMemory) > 0 {
			return Request{}, &gang.FieldError{Object: object, Field: field(GPUMemoryAnnotation), Detail: fmt.Sprintf("must be at most %s per GPU, got %q", maxGPUMemory.String(), v)}
		}
		r.Class.MinMemoryMiB = (q.Value() + (1<<20 - 1)) >> 20
	}
	if v, ok := annotations[RequiredLevelAnnotation]; ok {
		i, err := levelIndex(levels, v)
		if err != nil {
			return Request{}, &gang.FieldError{Object: object, Field: field(RequiredLevelAnnotation), Detail: err.Error()}
		}
		r.Required = i
	}
	if v, ok := annotations[PreferredLevelAnnotation]; ok {
		i, err := levelIndex(levels, v)
		if err != nil {
			return Request{}, &gang.FieldError{Object: object, Field: field(PreferredLevelAnnotation), Detail: err.Error()}
		}
		r.Preferred = i
	}
	if r.Required != Anywhere && r.Preferred > r.Required {
		return Request{}, &gang.FieldError{Object: object, Field: field(PreferredLevelAnnotation),
			Detail: fmt.Sprintf("level %q is wider than the required level %q", levels[r.Preferred].Name, levels[r.Required].Name)}
	}
	return r, nil
}

func levelIndex(levels []Level, name string) (int, error) {
	name = strings.TrimSpace(name)
	names := make([]string, len(levels))
	for i, l := range levels {
		if l.Name == name {
			return i, nil
		}
		names[i] = l.Name
	}
	return 0, fmt.Errorf("unknown topology level %q; the scheduler's levels are %s", name, strings.Join(names, ", "))
}

// LevelName names a level index for messages.
func LevelName(levels []Level, i int) string {
	if i == Anywhere || i >= len(levels) {
		return "cluster"
	}
	return levels[i].Name
}

// maxGPUMemory bounds a gang's GPU memory floor: far above any GPU, and far
// below where bytes overflow an int64.
var maxGPUMemory = resource.MustParse("1Pi")

// ParseMemoryMiB reads the GPU Feature Discovery memory label (MiB); 0 when
// absent or malformed, which only a class without a memory floor accepts.
func ParseMemoryMiB(v string) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// GangRequest is ParseRequest for a gang's spec: besides its annotations, an
// upstream PodGroup's topology constraint (spec.TopologyKey, a node label)
// requires the level with that label. A label that is none of the
// scheduler's levels is bad input, not a constraint silently dropped.
func GangRequest(spec gang.Spec, levels []Level, object string) (Request, error) {
	r, err := ParseRequest(spec.Annotations, levels, object)
	if err != nil || spec.TopologyKey == "" {
		return r, err
	}
	const field = "spec.schedulingConstraints.topology[0].key"
	i := slices.IndexFunc(levels, func(l Level) bool { return l.Label == spec.TopologyKey })
	switch {
	case i < 0:
		labels := make([]string, len(levels))
		for j, l := range levels {
			labels[j] = l.Name + "=" + l.Label
		}
		return Request{}, &gang.FieldError{Object: object, Field: field,
			Detail: fmt.Sprintf("node label %q is none of the scheduler's topology levels (%s); use one of their labels or add a level for it to MusterTopology's args", spec.TopologyKey, strings.Join(labels, ", "))}
	case r.Required != Anywhere && r.Required != i:
		return Request{}, &gang.FieldError{Object: object, Field: "metadata.annotations[" + RequiredLevelAnnotation + "]",
			Detail: fmt.Sprintf("level %q disagrees with %s %q (level %q); drop the annotation", levels[r.Required].Name, field, spec.TopologyKey, levels[i].Name)}
	case r.Preferred > i:
		return Request{}, &gang.FieldError{Object: object, Field: "metadata.annotations[" + PreferredLevelAnnotation + "]",
			Detail: fmt.Sprintf("level %q is wider than the required level %q (%s)", levels[r.Preferred].Name, levels[i].Name, field)}
	}
	r.Required = i
	return r, nil
}
