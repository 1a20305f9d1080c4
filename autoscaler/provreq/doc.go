// Package provreq is Muster's ProvisioningRequest consumer for the
// cluster-autoscaler core: it serves requests of class
// best-effort-atomic-scale-up.autoscaling.x-k8s.io (autoscaling.x-k8s.io/v1)
// the way upstream's provisioningrequest packages do, which this build cannot
// link (see the apis/v1 package).
//
// Each loop:
//   - Client.Refresh (a loop-start observer) lists the requests once and
//     marks BookingExpired / Failed(Expired) on old ones;
//   - PodsFilter drops the real pods that consume a request from ordinary
//     scale-up;
//   - Booking injects, into the cluster snapshot, fake pods for every
//     Provisioned request, less one of the same shape for each of its
//     consumers already bound (members running are not booked twice), so
//     neither ordinary pods nor scale-down take the capacity until the gang
//     binds or the booking TTL passes;
//   - Injector picks every request that needs capacity, marks it Accepted
//     and adds its fake pods (built from its PodTemplate) to the pending
//     list, a higher-priority gang's first, then older requests first;
//   - Orchestrator serves each request in that order, then the ordinary
//     pods, in the same loop (upstream's WrapperOrchestrator serves one
//     request or the ordinary pods per loop): for a request it calls the
//     core's scale-up orchestrator with allOrNothing=true and similar-pool
//     balancing off, so one pool gets all its new nodes, keeps the existing
//     room it takes from those after it, and sets its Provisioned / Failed
//     condition; a request that cannot be served holds up no other.
//
// Other provisioning classes (check-capacity, vendor classes) are ignored.
package provreq
