// Tests of IsRoomReason: the Filter reasons that mean a node lacks room, and those that do not.

package capacity

import "testing"

func TestIsRoomReason(t *testing.T) {
	for reason, want := range map[string]bool{
		"Insufficient nvidia.com/gpu": true,
		"Insufficient cpu":            true,
		"Too many pods":               true,
		ReasonHeld:                    true,
		ReasonGPUCount:                true,
		ReasonClaimed:                 true,
		ReasonBooked:                  true,
		"node(s) didn't match Pod's node affinity/selector":        false,
		"node(s) had untolerated taint {gpu: true}":                false,
		"node(s) had GPUs not of the gang's class":                 false,
		"node(s) were outside the gang's required topology domain": false,
		"": false,
	} {
		if got := IsRoomReason(reason); got != want {
			t.Errorf("IsRoomReason(%q) = %t, want %t", reason, got, want)
		}
	}
}
