// Fault injection (throttles, 5xx, delays, partial provisioning, preemption) and request counts.

package armlocal

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Op names an ARM operation, for fault injection and request counting.
type Op string

// Operations the server answers.
const (
	OpAny                     Op = "*"
	OpScaleSetGet             Op = "VirtualMachineScaleSets.Get"
	OpScaleSetList            Op = "VirtualMachineScaleSets.List"
	OpScaleSetUpdate          Op = "VirtualMachineScaleSets.Update"
	OpScaleSetDeleteInstances Op = "VirtualMachineScaleSets.DeleteInstances"
	OpScaleSetVMList          Op = "VirtualMachineScaleSetVMs.List"
	OpResourceSKUsList        Op = "ResourceSKUs.List"
	OpUsageList               Op = "Usage.List"
	OpAgentPoolGet            Op = "AgentPools.Get"
	OpAgentPoolList           Op = "AgentPools.List"
	OpAgentPoolCreateOrUpdate Op = "AgentPools.CreateOrUpdate"
	OpAgentPoolDeleteMachines Op = "AgentPools.DeleteMachines"
	OpMachinesList            Op = "Machines.List"
	OpMachinesGet             Op = "Machines.Get"
	OpOperationStatus         Op = "Operations.Get"
	OpRetailPrices            Op = "RetailPrices.List"
	OpToken                   Op = "Token"
)

type faultKind int

const (
	faultThrottle faultKind = iota
	faultStatus
	faultDelay
)

type fault struct {
	op         Op
	kind       faultKind
	remaining  int
	status     int
	retryAfter time.Duration
	delay      time.Duration
	// until, when set, makes the fault answer every matching request up to
	// that time instead of a number of them: a throttling window, the way
	// ARM's request buckets refill with time.
	until time.Time
}

// InjectThrottle makes the next n requests for op (OpAny: any ARM operation)
// answer 429 TooManyRequests with a Retry-After header.
func (s *Server) InjectThrottle(op Op, n int, retryAfter time.Duration) {
	s.addFault(fault{op: op, kind: faultThrottle, remaining: n, status: http.StatusTooManyRequests, retryAfter: retryAfter})
}

// InjectThrottleFor makes every request for op (OpAny: any ARM operation)
// answer 429 TooManyRequests with a Retry-After header for the next d.
func (s *Server) InjectThrottleFor(op Op, d, retryAfter time.Duration) {
	s.addFault(fault{op: op, kind: faultThrottle, until: s.now().Add(d), status: http.StatusTooManyRequests, retryAfter: retryAfter})
}

// InjectServerErrorFor makes every request for op answer status (a 5xx) for
// the next d.
func (s *Server) InjectServerErrorFor(op Op, d time.Duration, status int) {
	s.addFault(fault{op: op, kind: faultStatus, until: s.now().Add(d), status: status})
}

// InjectServerError makes the next n requests for op answer status (a 5xx).
func (s *Server) InjectServerError(op Op, n int, status int) {
	s.addFault(fault{op: op, kind: faultStatus, remaining: n, status: status})
}

// InjectDelay holds the next n requests for op for d before answering (or
// until the client gives up), to exercise client timeouts.
func (s *Server) InjectDelay(op Op, n int, d time.Duration) {
	s.addFault(fault{op: op, kind: faultDelay, remaining: n, delay: d})
}

// InjectPartialProvisioning makes the next scale-up of the scale set or agent
// pool named pool provision only succeed of the instances it adds; the others
// fail with code (AllocationFailed when empty) once their provisioning delay
// has passed, and the operation ends Failed.
func (s *Server) InjectPartialProvisioning(pool string, succeed int, code string) {
	if code == "" {
		code = "AllocationFailed"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial[pool] = partialFault{succeed: succeed, code: code}
}

// InjectPreemption makes a capacity write to the scale set named pool, while an earlier one is still creating instances, preempt the
// earlier as Azure does: its operation ends Failed with OperationPreempted
// while its instances go on being created. It lasts until ClearFaults.
func (s *Server) InjectPreemption(pool string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.preempt[pool] = true
}

// preemptLocked ends the operations still under way on p, when preemption
// is injected for it.
func (s *Server) preemptLocked(p *pool, now time.Time) {
	if !s.preempt[p.name] {
		return
	}
	for _, op := range s.ops {
		if op.pool != p || op.preempted {
			continue
		}
		if st, _, _ := op.status(now); st == "InProgress" {
			op.preempted = true
		}
	}
}

// ClearFaults removes every pending injected fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
	s.partial = map[string]partialFault{}
	s.preempt = map[string]bool{}
}

// Requests returns how many requests for op (OpAny: all ARM operations) the
// server has received, faulted or not.
func (s *Server) Requests(op Op) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if op == OpAny {
		n := 0
		for o, c := range s.hits {
			if o != OpToken {
				n += c
			}
		}
		return n
	}
	return s.hits[op]
}

type partialFault struct {
	succeed int
	code    string
}

func (s *Server) addFault(f fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// takeFault consumes the first pending fault matching op.
func (s *Server) takeFault(op Op) *fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for i := 0; i < len(s.faults); i++ {
		f := s.faults[i]
		if !f.until.IsZero() && !now.Before(f.until) {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
			i--
			continue
		}
		if f.op != OpAny && f.op != op {
			continue
		}
		if op == OpToken || op == OpRetailPrices {
			continue
		}
		if !f.until.IsZero() {
			c := *f
			return &c
		}
		f.remaining--
		if f.remaining <= 0 {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
		}
		c := *f
		return &c
	}
	return nil
}

// applyFault answers the request if a fault applies; it reports whether it
// did.
func (s *Server) applyFault(w http.ResponseWriter, r *http.Request, op Op) bool {
	f := s.takeFault(op)
	if f == nil {
		return false
	}
	switch f.kind {
	case faultThrottle:
		secs := int((f.retryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		// ARM also reports the remaining budget; clients must not rely on it.
		w.Header().Set("x-ms-ratelimit-remaining-subscription-reads", "0")
		writeError(w, http.StatusTooManyRequests, "TooManyRequests",
			fmt.Sprintf("The request is being throttled for operation %s; retry after %d seconds.", op, secs))
		return true
	case faultStatus:
		writeError(w, f.status, "InternalServerError", fmt.Sprintf("Injected server error for operation %s.", op))
		return true
	case faultDelay:
		select {
		case <-time.After(f.delay):
		case <-r.Context().Done():
			return true
		case <-s.closing:
			return true
		}
		return false
	}
	return false
}
