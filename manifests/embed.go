// Package manifests carries the CRDs Muster installs, embedded so that the
// in-process control plane (pkg/controlplane: the tests, the demo) installs
// exactly what `kubectl apply -k` would.
package manifests

import (
	"embed"
	"io/fs"
)

//go:embed crds/*.yaml
var crds embed.FS

// SchedulerAdmission is the ValidatingAdmissionPolicy (and its binding) that
// keeps muster-scheduler's pod patches to the fields Muster owns.
//
//go:embed scheduler/admission.yaml
var SchedulerAdmission []byte

// CRDs returns the CustomResourceDefinitions under manifests/crds, except the
// kustomization file.
func CRDs() ([][]byte, error) {
	names, err := fs.Glob(crds, "crds/*.yaml")
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, n := range names {
		if n == "crds/kustomization.yaml" {
			continue
		}
		b, err := crds.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
