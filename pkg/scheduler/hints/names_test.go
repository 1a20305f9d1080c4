package hints

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/hint"
)

// TestNamesAreValid: every gang name a label allows gives request, template
// and hold names that are valid object names, and distinct gangs distinct
// names.
func TestNamesAreValid(t *testing.T) {
	seen := map[string]string{}
	for _, name := range []string{"llm", "Train_Job", "train-job", "TRAIN.JOB", "a.b", "x", "9lives", strings.Repeat("A", 63),
		strings.Repeat("a", 63), "a_-_b", "Z", "z", strings.Repeat("ab.", 20) + "ab"} {
		if errs := validation.IsValidLabelValue(name); len(errs) > 0 {
			t.Fatalf("test input %q is no label value: %v", name, errs)
		}
		k := gang.Key{Namespace: "ml", Name: name}
		x := Want{Key: k, Verdict: hint.Verdict{Hint: true, Short: hint.Shortfall{Members: 3}}}
		req := generationName(requestName(x), 12)
		for _, obj := range []string{req, templateName(req, 31), HoldName(k)} {
			if errs := validation.IsDNS1123Subdomain(obj); len(errs) > 0 {
				t.Errorf("gang %q: name %q is not a valid object name: %v", name, obj, errs)
			}
		}
		if other, dup := seen[nameBase(k)]; dup {
			t.Errorf("gangs %q and %q share the name base %q", other, name, nameBase(k))
		}
		seen[nameBase(k)] = name
	}
}
