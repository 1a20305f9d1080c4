// TransientError and the backoff wrapper that holds a throttled pool back only until Azure answers.

package agentpool

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"k8s.io/autoscaler/cluster-autoscaler/cloudprovider"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"
	"k8s.io/autoscaler/cluster-autoscaler/utils/backoff"
)

// TransientError is a scale-up Azure did not take because it throttled the
// client or failed with 5xx past the retries: nothing says the pool lacks
// capacity, so the pool is tried again once Azure takes calls.
type TransientError struct {
	Pool  string
	Until time.Time
	Err   error
}

func (e *TransientError) Error() string {
	return fmt.Sprintf("pool %s: Azure did not take the scale-up (throttled or unavailable); trying again from %s: %v", e.Pool, e.Until.Format(time.RFC3339), e.Err)
}

func (e *TransientError) Unwrap() error { return e.Err }

// isTransient reports a 429, the throttle gate refusing a call, or a 5xx.
func isTransient(err error) bool {
	if isThrottled(err) {
		return true
	}
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode >= http.StatusInternalServerError
}

// ErrorCodeTransient is the error code a pool held back by a transient
// failure shows in the core's backoff status.
const ErrorCodeTransient = "AzureTransientError"

// Backoff wraps the core's node-group backoff. The core backs a node group
// off after any failed IncreaseSize, exponentially (5 to 30 minutes by
// default), as if the pool lacked capacity. A scale-up refused by throttling
// or a 5xx holds the pool back only until Azure takes calls again, and does
// not count toward the exponential backoff; every other failure goes to
// inner.
func (p *Provider) Backoff(inner backoff.Backoff) backoff.Backoff {
	return &transientBackoff{inner: inner, p: p, held: map[string]*TransientError{}}
}

type transientBackoff struct {
	inner backoff.Backoff
	p     *Provider
	// held is used from the core's loop only, like the exponential
	// backoff's own state.
	held map[string]*TransientError
}

func (b *transientBackoff) Backoff(ng cloudprovider.NodeGroup, ni *framework.NodeInfo, info cloudprovider.InstanceErrorInfo, now time.Time) time.Time {
	if te := b.p.takeTransient(ng.Id()); te != nil {
		b.held[ng.Id()] = te
		return te.Until
	}
	return b.inner.Backoff(ng, ni, info, now)
}

func (b *transientBackoff) BackoffStatus(ng cloudprovider.NodeGroup, ni *framework.NodeInfo, now time.Time) backoff.Status {
	if te := b.held[ng.Id()]; te != nil {
		if now.Before(te.Until) {
			return backoff.Status{IsBackedOff: true, ErrorInfo: cloudprovider.InstanceErrorInfo{
				ErrorClass: cloudprovider.OtherErrorClass, ErrorCode: ErrorCodeTransient, ErrorMessage: te.Error()}}
		}
		delete(b.held, ng.Id())
	}
	return b.inner.BackoffStatus(ng, ni, now)
}

func (b *transientBackoff) RemoveBackoff(ng cloudprovider.NodeGroup, ni *framework.NodeInfo) {
	delete(b.held, ng.Id())
	b.inner.RemoveBackoff(ng, ni)
}

func (b *transientBackoff) RemoveStaleBackoffData(now time.Time) {
	for id, te := range b.held {
		if !now.Before(te.Until) {
			delete(b.held, id)
		}
	}
	b.inner.RemoveStaleBackoffData(now)
}

// takeTransient returns and forgets the pool's last transient scale-up
// failure: the core backs a pool off right after its IncreaseSize failed.
func (p *Provider) takeTransient(id string) *TransientError {
	for _, g := range p.m.list() {
		if g.id != id {
			continue
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		te := g.transient
		g.transient = nil
		return te
	}
	return nil
}
