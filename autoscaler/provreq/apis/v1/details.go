// The provisioningClassDetails keys recording a request's scale-up: pool, count, instance IDs.

package v1

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/muster-project/muster/autoscaler/contract"
)

// Keys of status.provisioningClassDetails that Muster's consumer writes
// when it adds nodes for a request: the scheduler keeps exactly those nodes
// for the request's gang (see contract).
const (
	// DetailNodeGroup is the node group the request's nodes were added to.
	DetailNodeGroup = contract.DetailNodeGroup
	// DetailNodesAdded is how many instances the scale-up added.
	DetailNodesAdded = contract.DetailNodesAdded
	// DetailProviderIDPrefix and DetailInstances list the instances added,
	// as provider IDs (spec.providerID of their Nodes).
	DetailProviderIDPrefix = contract.DetailProviderIDPrefix
	DetailInstances        = contract.DetailInstances
)

// DetailPoolsAtFailure and DetailPoolsChanged: the pools a never-fits
// failure was judged on, and whether they changed since (see contract).
const (
	DetailPoolsAtFailure = contract.DetailPoolsAtFailure
	DetailPoolsChanged   = contract.DetailPoolsChanged
)

// SetPoolsAtFailure records the fingerprint of the pools a never-fits
// failure read; the request's pools have not changed since.
func SetPoolsAtFailure(pr *ProvisioningRequest, fingerprint string) {
	d := details(pr)
	d[DetailPoolsAtFailure] = Detail(fingerprint)
	delete(d, DetailPoolsChanged)
}

// PoolsAtFailure is the fingerprint SetPoolsAtFailure recorded, and
// whether the pools were since found changed; ok is false when none was
// recorded.
func PoolsAtFailure(pr *ProvisioningRequest) (fingerprint string, changed, ok bool) {
	d := pr.Status.ProvisioningClassDetails
	fp, ok := d[DetailPoolsAtFailure]
	return string(fp), d[DetailPoolsChanged] == "true", ok && fp != ""
}

// SetPoolsChanged records that the pools are no longer those of the
// never-fits failure.
func SetPoolsChanged(pr *ProvisioningRequest) {
	details(pr)[DetailPoolsChanged] = "true"
}

// AddedInstances reads what Muster's consumer recorded: the node group, how
// many instances it added and those known so far (lower-cased provider IDs).
// ok is false when the request records no scale-up.
func AddedInstances(pr *ProvisioningRequest) (pool string, added int, ids []string, ok bool) {
	d := pr.Status.ProvisioningClassDetails
	pool = string(d[DetailNodeGroup])
	if pool == "" {
		return "", 0, nil, false
	}
	added, err := strconv.Atoi(string(d[DetailNodesAdded]))
	if err != nil || added < 0 {
		added = 0
	}
	prefix := string(d[DetailProviderIDPrefix])
	if s := string(d[DetailInstances]); s != "" {
		for _, suffix := range strings.Split(s, ",") {
			ids = append(ids, strings.ToLower(prefix+suffix))
		}
	}
	return pool, added, ids, true
}

// SetAddedInstances records a scale-up of pool by added instances, of which
// ids are known (provider IDs).
func SetAddedInstances(pr *ProvisioningRequest, pool string, added int, ids []string) {
	d := details(pr)
	d[DetailNodeGroup] = Detail(pool)
	d[DetailNodesAdded] = Detail(fmt.Sprint(added))
	prefix := commonPrefix(ids)
	suffixes := make([]string, len(ids))
	for i, id := range ids {
		suffixes[i] = strings.ToLower(id)[len(prefix):]
	}
	d[DetailProviderIDPrefix] = Detail(prefix)
	d[DetailInstances] = Detail(strings.Join(suffixes, ","))
}

// ClearAddedInstances removes the record of a scale-up: the request's
// capacity was found, not added.
func ClearAddedInstances(pr *ProvisioningRequest) {
	for _, k := range []string{DetailNodeGroup, DetailNodesAdded, DetailProviderIDPrefix, DetailInstances} {
		delete(pr.Status.ProvisioningClassDetails, k)
	}
}

// details is pr's status.provisioningClassDetails, made if it has none.
func details(pr *ProvisioningRequest) map[string]Detail {
	if pr.Status.ProvisioningClassDetails == nil {
		pr.Status.ProvisioningClassDetails = map[string]Detail{}
	}
	return pr.Status.ProvisioningClassDetails
}

// commonPrefix is the lower-cased prefix all ids share, cut after a '/' so
// that each suffix is whole path segments (an Azure instance's number).
func commonPrefix(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	p := strings.ToLower(ids[0])
	for _, id := range ids[1:] {
		id = strings.ToLower(id)
		n := 0
		for n < len(p) && n < len(id) && p[n] == id[n] {
			n++
		}
		p = p[:n]
	}
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i+1]
	}
	return ""
}
