// Tests of decoding GangArgs and TopologyArgs: defaults, JSON, YAML and typed args, misspelt fields and invalid values refused naming the field, preemption rules.

package config

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

func TestDecodeGangArgs(t *testing.T) {
	tests := []struct {
		name    string
		obj     runtime.Object
		want    GangArgs
		wantErr string
	}{
		{name: "no args: defaults", obj: nil, want: GangArgs{ScheduleTimeoutSeconds: ptr.To[int64](300), BackoffSeconds: ptr.To[int64](10), MaxGangMembers: ptr.To[int32](10000), StatusSyncMillis: ptr.To[int64](500)}},
		{name: "JSON args keep what they set", obj: &runtime.Unknown{Raw: []byte(`{"backoffSeconds":3,"maxGangMembers":64}`)},
			want: GangArgs{ScheduleTimeoutSeconds: ptr.To[int64](300), BackoffSeconds: ptr.To[int64](3), MaxGangMembers: ptr.To[int32](64), StatusSyncMillis: ptr.To[int64](500)}},
		{name: "YAML args", obj: &runtime.Unknown{ContentType: runtime.ContentTypeYAML, Raw: []byte("scheduleTimeoutSeconds: 60\n")},
			want: GangArgs{ScheduleTimeoutSeconds: ptr.To[int64](60), BackoffSeconds: ptr.To[int64](10), MaxGangMembers: ptr.To[int32](10000), StatusSyncMillis: ptr.To[int64](500)}},
		{name: "typed args", obj: &GangArgs{BackoffSeconds: ptr.To[int64](1)},
			want: GangArgs{ScheduleTimeoutSeconds: ptr.To[int64](300), BackoffSeconds: ptr.To[int64](1), MaxGangMembers: ptr.To[int32](10000), StatusSyncMillis: ptr.To[int64](500)}},
		{name: "misspelt field", obj: &runtime.Unknown{Raw: []byte(`{"backofSeconds":3}`)}, wantErr: `unknown field "backofSeconds"`},
		{name: "zero timeout", obj: &GangArgs{ScheduleTimeoutSeconds: ptr.To[int64](0)}, wantErr: "pluginConfig.MusterGang.args.scheduleTimeoutSeconds: Invalid value: 0: must be greater than 0"},
		{name: "negative backoff", obj: &GangArgs{BackoffSeconds: ptr.To[int64](-1)}, wantErr: "pluginConfig.MusterGang.args.backoffSeconds"},
		{name: "zero backoff", obj: &runtime.Unknown{Raw: []byte(`{"backoffSeconds":0}`)}, wantErr: "pluginConfig.MusterGang.args.backoffSeconds: Invalid value: 0: must be at least 1"},
		{name: "timeout that overflows", obj: &runtime.Unknown{Raw: []byte(`{"scheduleTimeoutSeconds":9223372036854775807}`)},
			wantErr: "pluginConfig.MusterGang.args.scheduleTimeoutSeconds: Invalid value: 9223372036854775807: must be at most 31536000 (one year)"},
		{name: "wait that overflows", obj: &runtime.Unknown{Raw: []byte(`{"preemption":[{"minPriority":0,"policy":"Never","maxWaitForNodesSeconds":99999999999999}]}`)},
			wantErr: "pluginConfig.MusterGang.args.preemption[0].maxWaitForNodesSeconds: Invalid value: 99999999999999: must be at most"},
		{name: "starvation bound that overflows", obj: &GangArgs{StarvationBoundSeconds: ptr.To[int64](1 << 62)}, wantErr: "pluginConfig.MusterGang.args.starvationBoundSeconds: Invalid value"},
		{name: "zero max gang", obj: &GangArgs{MaxGangMembers: ptr.To[int32](0)}, wantErr: "pluginConfig.MusterGang.args.maxGangMembers"},
		{name: "unknown stranded policy", obj: &runtime.Unknown{Raw: []byte(`{"strandedMembers":"Delete"}`)},
			wantErr: `pluginConfig.MusterGang.args.strandedMembers: Unsupported value: "Delete": supported values: "Evict", "Keep"`},
		{name: "zero pod write QPS", obj: &runtime.Unknown{Raw: []byte(`{"podWriteQPS":0}`)}, wantErr: "pluginConfig.MusterGang.args.podWriteQPS: Invalid value: 0: must be from 1 to 10000"},
		{name: "status sync too fast", obj: &GangArgs{StatusSyncMillis: ptr.To[int64](1)}, wantErr: "pluginConfig.MusterGang.args.statusSyncMillis"},
		{name: "unknown preemption policy", obj: &runtime.Unknown{Raw: []byte(`{"preemption":[{"minPriority":0,"policy":"Always"}]}`)},
			wantErr: `pluginConfig.MusterGang.args.preemption[0].policy: Unsupported value: "Always": supported values: "Never", "LowerPriority"`},
		{name: "two rules for one priority", obj: &runtime.Unknown{Raw: []byte(`{"preemption":[{"minPriority":5,"policy":"Never"},{"minPriority":5,"policy":"LowerPriority"}]}`)},
			wantErr: "pluginConfig.MusterGang.args.preemption[1].minPriority: Duplicate value: 5"},
		{name: "negative starvation bound", obj: &GangArgs{StarvationBoundSeconds: ptr.To[int64](-1)}, wantErr: "pluginConfig.MusterGang.args.starvationBoundSeconds"},
		{name: "negative wait", obj: &runtime.Unknown{Raw: []byte(`{"preemption":[{"minPriority":0,"policy":"Never","maxWaitForNodesSeconds":-1}]}`)},
			wantErr: "pluginConfig.MusterGang.args.preemption[0].maxWaitForNodesSeconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeGangArgs(tt.obj, "MusterGang")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if *got.ScheduleTimeoutSeconds != *tt.want.ScheduleTimeoutSeconds || *got.BackoffSeconds != *tt.want.BackoffSeconds ||
				*got.MaxGangMembers != *tt.want.MaxGangMembers || *got.StatusSyncMillis != *tt.want.StatusSyncMillis {
				t.Errorf("args = %+v, want %+v", got, tt.want)
			}
			if got.PodWriteQPS == nil || got.StarvationBoundSeconds == nil || got.StrandedMembers == "" || got.SpotExtras == nil {
				t.Errorf("podWriteQPS or starvationBoundSeconds not defaulted: %+v", got)
			}
			if len(got.Preemption) == 0 || got.Preemption[0].MaxWaitForNodesSeconds == nil {
				t.Errorf("preemption rules not defaulted: %+v", got.Preemption)
			}
		})
	}
}

func TestPreemptionRulesFromYAML(t *testing.T) {
	got, err := DecodeGangArgs(&runtime.Unknown{ContentType: runtime.ContentTypeYAML, Raw: []byte(
		"preemption:\n- {minPriority: 1000, policy: LowerPriority, maxWaitForNodesSeconds: 0}\n- {minPriority: 0, policy: Never}\n")}, "MusterGang")
	if err != nil {
		t.Fatal(err)
	}
	want := "[{1000 LowerPriority 0} {0 Never 600}]"
	var have []string
	for _, r := range got.Preemption {
		have = append(have, fmt.Sprintf("{%d %s %d}", r.MinPriority, r.Policy, *r.MaxWaitForNodesSeconds))
	}
	if fmt.Sprint(have) != want {
		t.Errorf("rules %v, want %s", have, want)
	}
}

func TestDecodeTopologyArgs(t *testing.T) {
	two := []TopologyLevel{{Name: "node", Label: "kubernetes.io/hostname"}, {Name: "rack", Label: "example.com/rack"}}
	tests := []struct {
		name       string
		obj        runtime.Object
		wantLevels []TopologyLevel
		wantGPU    string
		wantWindow int32
		wantErr    string
	}{
		{name: "no args: defaults", wantLevels: DefaultTopologyLevels(), wantGPU: "nvidia.com/gpu", wantWindow: 64},
		{name: "YAML levels", obj: &runtime.Unknown{ContentType: runtime.ContentTypeYAML, Raw: []byte("levels:\n- {name: node, label: kubernetes.io/hostname}\n- {name: rack, label: example.com/rack}\nshapeWindow: 8\n")},
			wantLevels: two, wantGPU: "nvidia.com/gpu", wantWindow: 8},
		{name: "other GPU resource", obj: &TopologyArgs{GPUResourceName: "amd.com/gpu"}, wantLevels: DefaultTopologyLevels(), wantGPU: "amd.com/gpu", wantWindow: 64},
		{name: "misspelt field", obj: &runtime.Unknown{Raw: []byte(`{"level":[]}`)}, wantErr: `unknown field "level"`},
		{name: "duplicate level name", obj: &TopologyArgs{Levels: []TopologyLevel{{Name: "rack", Label: "a.io/x"}, {Name: "rack", Label: "a.io/y"}}},
			wantErr: "pluginConfig.MusterTopology.args.levels[1].name: Duplicate value: \"rack\""},
		{name: "duplicate label", obj: &TopologyArgs{Levels: []TopologyLevel{{Name: "a", Label: "a.io/x"}, {Name: "b", Label: "a.io/x"}}},
			wantErr: "pluginConfig.MusterTopology.args.levels[1].label: Duplicate value"},
		{name: "bad label", obj: &TopologyArgs{Levels: []TopologyLevel{{Name: "a", Label: "not a label"}}}, wantErr: "pluginConfig.MusterTopology.args.levels[0].label: Invalid value"},
		{name: "bad name", obj: &TopologyArgs{Levels: []TopologyLevel{{Name: "Rack!", Label: "a.io/x"}}}, wantErr: "pluginConfig.MusterTopology.args.levels[0].name: Invalid value"},
		{name: "zero window", obj: &TopologyArgs{ShapeWindow: ptr.To[int32](0)}, wantErr: "pluginConfig.MusterTopology.args.shapeWindow"},
		{name: "unknown provisionable level", obj: &TopologyArgs{ProvisionableLevels: []string{"zone", "row"}}, wantErr: "pluginConfig.MusterTopology.args.provisionableLevels[1]: Not found: \"row\""},
		{name: "hint sync too fast", obj: &TopologyArgs{HintSyncMillis: ptr.To[int64](5)}, wantErr: "pluginConfig.MusterTopology.args.hintSyncMillis"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeTopologyArgs(tt.obj, "MusterTopology")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got.Levels) != fmt.Sprint(tt.wantLevels) || got.GPUResourceName != tt.wantGPU || *got.ShapeWindow != tt.wantWindow {
				t.Errorf("args = %+v, want levels %v gpu %s window %d", got, tt.wantLevels, tt.wantGPU, tt.wantWindow)
			}
		})
	}
}
