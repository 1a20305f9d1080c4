// Bookings: the nodes the autoscaler added for a gang's request, kept for it until its quorum binds.

package provisioning

import (
	"context"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/gang"
)

// Booking is capacity the autoscaler provisioned for a gang that has not
// bound yet: exactly the nodes it recorded adding for the gang's request
// (autoscalingv1.AddedProviderIDs) are kept for it (see Bookings).
type Booking struct {
	Key gang.Key
	// Nodes are the provider IDs, lower-cased, of the instances added.
	Nodes map[string]bool
	// GPUs is what one member asks for: what a lone pod must leave on a
	// booked node.
	GPUs int64
}

// Holds says whether the node is one of the booking's; providerID is the
// node's spec.providerID, lower-cased.
func (b Booking) Holds(providerID string) bool { return providerID != "" && b.Nodes[providerID] }

func (w *Writer) forget(k gang.Key) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.want, k)
	delete(w.wantAt, k)
	delete(w.verdictAt, k)
	delete(w.live, k)
	delete(w.adoptedMin, k)
	delete(w.booked, k)
	delete(w.replaced, k)
	delete(w.notNow, k)
	delete(w.placed, k)
}

// Bookings lists the gangs whose provisioned capacity is on its way. A nil
// Writer has none.
func (w *Writer) Bookings() []Booking {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.bookingsLocked()
}

// BookedNodes maps the provider ID (lower-cased) of every node booked for
// a gang to that gang. A nil Writer has none.
func (w *Writer) BookedNodes() map[string]gang.Key {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var out map[string]gang.Key
	for k, b := range w.booked {
		for id := range b.Nodes {
			if out == nil {
				out = map[string]gang.Key{}
			}
			out[id] = k
		}
	}
	return out
}

func (w *Writer) bookingsLocked() []Booking {
	if len(w.booked) == 0 {
		return nil
	}
	out := make([]Booking, 0, len(w.booked))
	for _, b := range w.booked {
		out = append(out, b)
	}
	return out
}

// stillBooked says the gang's live request is still Provisioned with its
// capacity booked, reading it afresh; a booking that has ended (expired, or
// the request is gone) is forgotten.
func (w *Writer) stillBooked(ctx context.Context, k gang.Key, live string) bool {
	w.mu.Lock()
	_, booked := w.booked[k]
	w.mu.Unlock()
	if !booked || live == "" {
		return false
	}
	_, conds, err := w.read(ctx, k.Namespace, live)
	still := err == nil && isTrue(conds, autoscalingv1.Provisioned) && !isTrue(conds, autoscalingv1.BookingExpired)
	if !still {
		w.mu.Lock()
		delete(w.booked, k)
		w.mu.Unlock()
	}
	return still
}

// releases says whether b, a later version of booking was, no longer holds
// a node was held.
func (b Booking) releases(was Booking) bool {
	for id := range was.Nodes {
		if !b.Nodes[id] {
			return true
		}
	}
	return b.GPUs < was.GPUs
}

func providerIDSet(ids []string) map[string]bool {
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out
}
