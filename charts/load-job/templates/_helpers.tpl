{{- define "load-job.labels" -}}
app.kubernetes.io/name: loadgen
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
reactive-bench.example/build: {{ .Values.build }}
app.kubernetes.io/component: load-generator
app.kubernetes.io/part-of: reactive-bench
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end }}

{{/* Where the load pods run: the values' affinity, else (avoidBuildNodes) a preference for nodes without a pod of
the build under test, so that on a cluster of several nodes the generator does not take the CPU it measures. */}}
{{- define "load-job.affinity" -}}
{{- if .Values.affinity }}
{{- toYaml .Values.affinity }}
{{- else if .Values.avoidBuildNodes }}
podAntiAffinity:
  preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      podAffinityTerm:
        topologyKey: kubernetes.io/hostname
        labelSelector:
          matchLabels:
            app.kubernetes.io/part-of: reactive-bench
            reactive-bench.example/build: {{ .Values.build }}
          matchExpressions:
            - {key: app.kubernetes.io/component, operator: In, values: [api, backend, latency-proxy]}
{{- end }}
{{- end }}
