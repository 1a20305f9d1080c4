{{/* Labels Helm adds to every object; the kustomize manifests have the app.kubernetes.io ones only. */}}
{{- define "muster.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: muster
{{- end }}

{{- define "muster.image" -}}
{{- if .digest -}}
{{ .repository }}@{{ .digest }}
{{- else -}}
{{ .repository }}:{{ .tag }}
{{- end -}}
{{- end }}

{{- define "muster.scheduler.namespace" -}}
{{ .Release.Namespace }}
{{- end }}

{{- define "muster.autoscaler.namespace" -}}
{{ .Values.autoscaler.namespace | default .Release.Namespace }}
{{- end }}

{{/* Fails the render with a message naming the value, as a user reads it. */}}
{{- define "muster.validate" -}}
{{- $s := .Values.scheduler -}}
{{- if and $s.enabled (gt (int $s.replicas) 1) (not $s.leaderElection.enabled) -}}
{{- fail (printf "scheduler.replicas is %d: more than one replica needs scheduler.leaderElection.enabled" (int $s.replicas)) -}}
{{- end -}}
{{- $a := .Values.autoscaler -}}
{{- if $a.enabled -}}
{{- $m := $a.identity.method -}}
{{- if not (has $m (list "workload-identity" "managed-identity" "client-secret")) -}}
{{- fail (printf "autoscaler.identity.method is %q, not one of workload-identity, managed-identity, client-secret" $m) -}}
{{- end -}}
{{- if and (eq $m "client-secret") (not $a.identity.clientSecret.existingSecret) -}}
{{- fail "autoscaler.identity.clientSecret.existingSecret is empty: the client-secret method reads the secret from that Secret" -}}
{{- end -}}
{{- if and (ne $m "managed-identity") (not $a.identity.clientId) -}}
{{- fail (printf "autoscaler.identity.clientId is empty: %s needs the identity's client ID" $m) -}}
{{- end -}}
{{- if hasKey $a.cloudConfig "auth" -}}
{{- fail "autoscaler.cloudConfig.auth is set: auth comes from autoscaler.identity" -}}
{{- end -}}
{{- range $i, $p := $a.cloudConfig.pools -}}
{{- if not $p.name -}}
{{- fail (printf "autoscaler.cloudConfig.pools[%d].name is empty" $i) -}}
{{- end -}}
{{- if gt (int $p.min) (int $p.max) -}}
{{- fail (printf "autoscaler.cloudConfig.pools[%d] (%s): min %d is above max %d" $i $p.name (int $p.min) (int $p.max)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end }}
