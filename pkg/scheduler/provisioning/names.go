// Names of requests, their generations, holds and PodTemplates.

package provisioning

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/muster-project/muster/pkg/contract"
	"github.com/muster-project/muster/pkg/gang"
)

// RequestLabel on a PodTemplate names the request it belongs to (a hash of
// the name when the name is longer than a label value may be).
const RequestLabel = "muster.dev/provisioning-request"

func requestLabelValue(name string) string {
	if len(name) <= 63 {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return "sha256-" + hex.EncodeToString(sum[:])[:40]
}

func generationName(base string, gen int) string {
	if gen == 0 {
		return base
	}
	return fmt.Sprintf("%s-r%d", base, gen)
}

// HoldName is what an unplaced member's consume annotation names when its
// gang gets no request: elastic members once the quorum runs, members of a
// gang confined to a level new nodes cannot join, or pinned to nodes. No
// ProvisioningRequest has that name, so no autoscaler provisions for it, and
// every autoscaler that honours the annotation (upstream's and Muster's)
// leaves the pod out of its ordinary one-by-one scale-up, which would add
// nodes the scheduler cannot use for the gang.
func HoldName(k gang.Key) string {
	return nameBase(k) + "-held"
}

// InRoomName is what the unplaced GPU members of a gang that was short
// consume once they fit in room that exists (contract.InRoomSuffix): no
// autoscaler buys nodes for them one by one, so room taken before they
// bind is asked for again by the gang's next request, atomically, not
// bought member by member; Muster's autoscaler counts them into the room
// they fit.
func InRoomName(k gang.Key) string {
	return nameBase(k) + contract.InRoomSuffix
}

// nameBase starts the names of a gang's requests, short enough for a suffix.
// A CRD-free gang's name is a label value (upper case, '_' allowed), which
// an object name may not be: it is lower-cased, other characters become
// '-', and a hash of the name keeps "Train_Job" and "train-job" apart.
func nameBase(k gang.Key) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r + ('a' - 'A')
		}
		return '-'
	}, k.Name)
	base := "muster-" + strings.Trim(name, "-")
	if len(base) > 200 {
		base = base[:200]
	}
	base = strings.TrimRight(base, "-")
	if name != k.Name {
		sum := sha256.Sum256([]byte(k.Name))
		base += "-" + hex.EncodeToString(sum[:])[:6]
	}
	return base
}

// requestName is stable for an unchanged shortfall, so a verdict repeated
// after every failed attempt keeps the same request.
func requestName(x Want) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d/%s/%s/", x.Verdict.Short.Members, x.Verdict.Short.Level, x.Verdict.Short.Domain)
	for _, set := range x.Sets {
		fmt.Fprintf(h, "%d/", set.Count)
		spec, _ := json.Marshal(templateSpec(x, set.Member))
		h.Write(spec)
	}
	ann, _ := json.Marshal(x.TemplateAnnotations)
	h.Write(ann)
	sum := hex.EncodeToString(h.Sum(nil))[:10]
	return nameBase(x.Key) + "-" + sum
}

// templateName names the PodTemplate of a request's i-th PodSet.
func templateName(request string, i int) string {
	if i == 0 {
		return request
	}
	return fmt.Sprintf("%s-%d", request, i)
}
