// The storage revision, and whether given resources were written since a revision.

package controlplane

import (
	"context"
	"fmt"
	"path"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Stored resources, as the API server keys them in etcd: WrittenSince
// takes them.
const (
	StoredPods                 = "pods"
	StoredNodes                = "minions"
	StoredProvisioningRequests = "autoscaling.x-k8s.io/provisioningrequests"
)

// Revision is the storage's current revision: every write to the API
// server (of any object) moves it.
func (e *Env) Revision(ctx context.Context) (int64, error) {
	resp, err := e.etcd.Get(ctx, e.storageKey(""), clientv3.WithPrefix(), clientv3.WithCountOnly(), clientv3.WithLimit(1))
	if err != nil {
		return 0, fmt.Errorf("reading the storage revision: %w", err)
	}
	return resp.Header.Revision, nil
}

// storageKey is where the API server keeps resource's objects: its
// storage prefix, like every key of it, starts with a slash it does not
// report.
func (e *Env) storageKey(resource string) string {
	return path.Join("/", e.etcdPrefix, resource) + "/"
}

// WrittenSince says whether any object of the given stored resources was
// created, changed or deleted after revision rev: exactly, from the
// storage itself, so no wait for watches to deliver and no quiet period
// is involved. A stepped replay asks it to learn whether a step's
// autoscaler loop and cloud sync left the cluster as the scheduler last
// settled it. It errs (and the caller should take it as written) when
// rev is older than the storage keeps.
func (e *Env) WrittenSince(ctx context.Context, rev int64, resources ...string) (bool, error) {
	for _, r := range resources {
		prefix := e.storageKey(r)
		now, err := e.etcd.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
		if err != nil {
			return true, fmt.Errorf("reading %s: %w", r, err)
		}
		for _, kv := range now.Kvs {
			if kv.ModRevision > rev {
				return true, nil // created or changed since
			}
		}
		// Nothing was created or changed, so the keys now are among
		// those at rev: as many means none was deleted.
		then, err := e.etcd.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly(), clientv3.WithRev(rev))
		if err != nil {
			return true, fmt.Errorf("reading %s at revision %d: %w", r, rev, err)
		}
		if then.Count != int64(len(now.Kvs)) {
			return true, nil
		}
	}
	return false, nil
}
