// The storage revision, and whether given resources were written since a revision.

package controlplane

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
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
	// Any read answers with the current revision. One key (the prefix
	// itself, which holds no object) is looked up, not counted over: a
	// count visits every key under the prefix, whose number grows over a
	// long replay (etcd's counting, 11 s of CPU over two days, went to 1).
	resp, err := e.etcd.Get(ctx, e.storageKey(""), clientv3.WithCountOnly())
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

// StoredNodesAndPods reads every Node and Pod from the API server's
// storage, both at one revision: what a consistent list of each returns,
// without the wait for the API server's watch cache. A consistent list from
// the watch cache waits until the cache has reached etcd's latest revision,
// and when that revision is a write to another resource (an Event, a
// Lease, the autoscaler's status) the cache learns it has got there only
// from a progress notification, which the API server asks etcd for every
// 100 ms while a list waits: a stepped replay listed both at every half
// step, and waited about 30 ms a list.
func (e *Env) StoredNodesAndPods(ctx context.Context) (nodes []v1.Node, pods []v1.Pod, err error) {
	return e.NewStoredReader().NodesAndPods(ctx)
}

// StoredReader reads every Node and Pod from the storage as
// StoredNodesAndPods does, decoding only the objects written since its
// last read: a stepped replay reads both at every half step, and over days
// of a trace the pods waiting for a gang that never fits pile up (hundreds
// decoded each time, the replay's largest cost of its own). Not safe for
// concurrent use.
type StoredReader struct {
	env   *Env
	rev   int64 // the revision of the last read; 0 before it
	pods  storedObjects[v1.Pod, *v1.Pod]
	nodes storedObjects[v1.Node, *v1.Node]
}

// storedObjects are one resource's objects as last read, by key.
type storedObjects[T any, PT interface {
	*T
	metav1.Object
}] map[string]storedObject[T]

type storedObject[T any] struct {
	modRevision int64
	obj         T
}

// NewStoredReader is a StoredReader that has read nothing yet.
func (e *Env) NewStoredReader() *StoredReader {
	return &StoredReader{env: e, pods: storedObjects[v1.Pod, *v1.Pod]{}, nodes: storedObjects[v1.Node, *v1.Node]{}}
}

// NodesAndPods reads every Node and Pod, both at the storage's current
// revision. The objects share their maps and slices with the reader's
// later reads: callers must not change them.
func (r *StoredReader) NodesAndPods(ctx context.Context) (nodes []v1.Node, pods []v1.Pod, err error) {
	podKeys, err := r.env.etcd.Get(ctx, r.env.storageKey(StoredPods), clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return nil, nil, fmt.Errorf("reading the stored pods: %w", err)
	}
	rev := podKeys.Header.Revision
	nodeKeys, err := r.env.etcd.Get(ctx, r.env.storageKey(StoredNodes), clientv3.WithPrefix(), clientv3.WithKeysOnly(), clientv3.WithRev(rev))
	if err != nil {
		return nil, nil, fmt.Errorf("reading the stored nodes: %w", err)
	}
	if pods, err = r.pods.read(ctx, r, StoredPods, podKeys.Kvs, rev); err != nil {
		return nil, nil, err
	}
	if nodes, err = r.nodes.read(ctx, r, StoredNodes, nodeKeys.Kvs, rev); err != nil {
		return nil, nil, err
	}
	r.rev = rev
	return nodes, pods, nil
}

// read returns the objects of keys, the resource's keys at revision rev,
// having read and decoded those written since the reader's last read and
// forgotten those deleted.
func (objs storedObjects[T, PT]) read(ctx context.Context, r *StoredReader, resource string, keys []*mvccpb.KeyValue, rev int64) ([]T, error) {
	current := func(kv *mvccpb.KeyValue) bool {
		o, ok := objs[string(kv.Key)]
		return ok && o.modRevision == kv.ModRevision
	}
	if slices.ContainsFunc(keys, func(kv *mvccpb.KeyValue) bool { return !current(kv) }) {
		written, err := r.env.etcd.Get(ctx, r.env.storageKey(resource), clientv3.WithPrefix(), clientv3.WithRev(rev), clientv3.WithMinModRev(r.rev+1))
		if err != nil {
			return nil, fmt.Errorf("reading the stored %s written since revision %d: %w", resource, r.rev, err)
		}
		for _, kv := range written.Kvs {
			var obj T
			if err := decodeStored(kv, PT(&obj)); err != nil {
				return nil, fmt.Errorf("decoding stored %s %s: %w", resource, kv.Key, err)
			}
			objs[string(kv.Key)] = storedObject[T]{modRevision: kv.ModRevision, obj: obj}
		}
	}
	out := make([]T, len(keys))
	for i, kv := range keys {
		if !current(kv) {
			return nil, fmt.Errorf("stored %s %s at revision %d was not read", resource, kv.Key, kv.ModRevision)
		}
		out[i] = objs[string(kv.Key)].obj
	}
	if len(objs) != len(keys) {
		// objs holds every key, and more: those deleted since.
		live := make(map[string]bool, len(keys))
		for _, kv := range keys {
			live[string(kv.Key)] = true
		}
		for k := range objs {
			if !live[k] {
				delete(objs, k)
			}
		}
	}
	return out, nil
}

// storedCodec decodes objects as the API server stores them (protobuf, no
// encryption), into their v1 types.
var storedCodec = serializer.NewCodecFactory(scheme.Scheme).UniversalDeserializer()

// decodeStored decodes one stored object into into, with the
// resourceVersion the API server would report: the stored object has none,
// and the API server sets it to its key's last modification.
func decodeStored(kv *mvccpb.KeyValue, into metav1.Object) error {
	obj, ok := into.(runtime.Object)
	if !ok {
		return fmt.Errorf("%T is not an API object", into)
	}
	if _, _, err := storedCodec.Decode(kv.Value, nil, obj); err != nil {
		return err
	}
	into.SetResourceVersion(strconv.FormatInt(kv.ModRevision, 10))
	return nil
}
