// A gang's topology request read from annotations: its level and GPU class (products, memory).

package topology

import (
	"fmt"
	"slices"
	"strings"

	"github.com/muster-project/muster/pkg/contract"
	"github.com/muster-project/muster/pkg/gang"
)

// Anywhere is the level index meaning "no topology constraint": the whole
// cluster is one domain.
const Anywhere = -1

// Class is the GPU a member accepts (the zero Class accepts any GPU), as
// the autoscaler reads it too.
type Class = contract.GPUClass

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
	class, ferr := contract.ParseGPUClass(annotations)
	if ferr != nil {
		return Request{}, &gang.FieldError{Object: object, Field: ferr.Field, Detail: ferr.Detail}
	}
	r.Class = class
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

// ParseMemoryMiB reads the GPU Feature Discovery memory label (MiB); 0 when
// absent or malformed, which only a class without a memory floor accepts.
func ParseMemoryMiB(v string) int64 { return contract.ParseMemoryMiB(v) }

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
