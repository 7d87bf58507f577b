{{/* Labels of every platform resource. */}}
{{- define "platform.labels" -}}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: reactive-bench
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end }}

{{/* A platform part's node affinity: its nodeSelector as a required term (neither operator's pod template takes a
nodeSelector), and the node affinity it was given; both at once is refused rather than one silently dropped.
Called with the part's values (kafka, postgres) and the key its node affinity is given under. */}}
{{- define "platform.nodeAffinity" -}}
{{- $given := index .values .key | default dict -}}
{{- $given = ternary ($given.nodeAffinity | default dict) $given (eq .key "affinity") -}}
{{- if and .values.nodeSelector $given -}}
{{- fail (printf "%s: give nodeSelector or a node affinity, not both (a nodeSelector is a required node affinity)" .part) -}}
{{- end -}}
{{- if .values.nodeSelector -}}
requiredDuringSchedulingIgnoredDuringExecution:
  nodeSelectorTerms:
    - matchExpressions:
        {{- range $key, $value := .values.nodeSelector }}
        - {key: {{ $key | quote }}, operator: In, values: [{{ $value | quote }}]}
        {{- end }}
{{- else if $given -}}
{{ toYaml $given }}
{{- end -}}
{{- end }}

{{/* Strimzi's pod template of a Kafka pod: its affinity (the node affinity above, and any other kind given) and
tolerations, or nothing where none is given. */}}
{{- define "platform.kafkaPod" -}}
{{- $node := include "platform.nodeAffinity" (dict "values" .Values.kafka "key" "affinity" "part" "kafka") -}}
{{- $affinity := omit (.Values.kafka.affinity | default dict) "nodeAffinity" -}}
{{- if or $node $affinity .Values.kafka.tolerations }}
template:
  pod:
    {{- if or $node $affinity }}
    affinity:
      {{- with $node }}
      nodeAffinity:
        {{- . | nindent 8 }}
      {{- end }}
      {{- with $affinity }}
      {{- toYaml . | nindent 6 }}
      {{- end }}
    {{- end }}
    {{- with .Values.kafka.tolerations }}
    tolerations:
      {{- toYaml . | nindent 6 }}
    {{- end }}
{{- end }}
{{- end }}
