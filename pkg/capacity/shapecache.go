// Shapes: a cache of members' shapes by pod UID and resourceVersion.

package capacity

import (
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Shapes remembers members' shapes by pod UID and resourceVersion. Reading
// a shape (requests, affinity, and a key rendered from them) costs more
// than the rest of a plan, and a plan reads every waiting member each time
// it is made; a pod's shape changes only with a new resourceVersion.
type Shapes struct {
	gpu v1.ResourceName
	// live, when set, says a pod is still waiting in the informer's store:
	// a shape read from a stale copy, after the pod's delete or placement
	// was handled (Forget), is not kept, or it would never be dropped.
	live func(*v1.Pod) bool
	mu   sync.Mutex
	m    map[types.UID]cachedShape
}

type cachedShape struct {
	version string
	shape   *Shape
}

// NewShapes returns an empty cache; gpu names the GPU resource.
func NewShapes(gpu v1.ResourceName) *Shapes {
	return &Shapes{gpu: gpu, m: map[types.UID]cachedShape{}}
}

// Of is ShapeOf(pod), from the cache when the pod is unchanged. Pods without
// a UID or resourceVersion (not from the API) are read every time.
func (c *Shapes) Of(pod *v1.Pod) *Shape {
	c.mu.Lock()
	gpu := c.gpu
	e, ok := c.m[pod.UID]
	c.mu.Unlock()
	if pod.UID == "" || pod.ResourceVersion == "" {
		return ShapeOf(pod, gpu)
	}
	if ok && e.version == pod.ResourceVersion {
		return e.shape
	}
	s := ShapeOf(pod, gpu)
	c.mu.Lock()
	if c.gpu == gpu {
		c.m[pod.UID] = cachedShape{version: pod.ResourceVersion, shape: s}
	}
	c.mu.Unlock()
	// Stored first, then checked: the informer updates its store before it
	// runs the handlers that Forget, so either the check sees the pod gone
	// or placed, or the handler's Forget comes after the store above.
	if c.live != nil && !c.live(pod) {
		c.Forget(pod.UID)
	}
	return s
}

// KeepOnlyLive has the cache keep a shape only while live says its pod is
// still waiting (see Shapes.live); set it before the cache is read.
func (c *Shapes) KeepOnlyLive(live func(*v1.Pod) bool) { c.live = live }

// SetGPU has the cache count gpu as the GPU resource from now on; shapes
// counted under another are dropped.
func (c *Shapes) SetGPU(gpu v1.ResourceName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gpu == c.gpu {
		return
	}
	c.gpu = gpu
	clear(c.m)
}

// GPU is the resource the cache counts as GPUs.
func (c *Shapes) GPU() v1.ResourceName {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gpu
}

// DemandOf is DemandShape(pod) under the cache's GPU resource: what a bound
// member holds, read every time (nothing is cached for pods only freed).
func (c *Shapes) DemandOf(pod *v1.Pod) *Shape {
	c.mu.Lock()
	gpu := c.gpu
	c.mu.Unlock()
	return DemandShape(pod, gpu)
}

// Forget drops a pod's shape (the pod is gone, or placed).
func (c *Shapes) Forget(uid types.UID) {
	c.mu.Lock()
	delete(c.m, uid)
	c.mu.Unlock()
}

// Len is how many shapes are remembered.
func (c *Shapes) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
