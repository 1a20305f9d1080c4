package config

import (
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
		{name: "typed args", obj: &GangArgs{BackoffSeconds: ptr.To[int64](0)},
			want: GangArgs{ScheduleTimeoutSeconds: ptr.To[int64](300), BackoffSeconds: ptr.To[int64](0), MaxGangMembers: ptr.To[int32](10000), StatusSyncMillis: ptr.To[int64](500)}},
		{name: "misspelt field", obj: &runtime.Unknown{Raw: []byte(`{"backofSeconds":3}`)}, wantErr: `unknown field "backofSeconds"`},
		{name: "zero timeout", obj: &GangArgs{ScheduleTimeoutSeconds: ptr.To[int64](0)}, wantErr: "pluginConfig.MusterGang.args.scheduleTimeoutSeconds: Invalid value: 0: must be greater than 0"},
		{name: "negative backoff", obj: &GangArgs{BackoffSeconds: ptr.To[int64](-1)}, wantErr: "pluginConfig.MusterGang.args.backoffSeconds"},
		{name: "zero max gang", obj: &GangArgs{MaxGangMembers: ptr.To[int32](0)}, wantErr: "pluginConfig.MusterGang.args.maxGangMembers"},
		{name: "status sync too fast", obj: &GangArgs{StatusSyncMillis: ptr.To[int64](1)}, wantErr: "pluginConfig.MusterGang.args.statusSyncMillis"},
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
		})
	}
}
