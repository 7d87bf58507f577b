{{/*
Names and labels, in one place. Every service of a release is named <release>-<service>.
Call the per-service helpers with (dict "root" $ "name" "web-api").
*/}}

{{- define "reactive-bench.chart" -}}
{{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "reactive-bench.serviceName" -}}
{{ printf "%s-%s" .root.Release.Name .name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "reactive-bench.selectorLabels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end }}

{{/* The services' image tag: make deploy-vN's (the build's own: its version and a digest of its images' files), else the chart's appVersion. */}}
{{- define "reactive-bench.imageTag" -}}
{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{- define "reactive-bench.labels" -}}
{{ include "reactive-bench.selectorLabels" . }}
{{- /* the version that runs: its image's tag (the services': make deploy-vN's; Jaeger's and the latency proxy's their
own); the build (v1, v2, v3) is a label of its own */}}
{{- $tags := dict "jaeger" .root.Values.tracing.image.tag "latency-proxy" .root.Values.latencyProxy.image.tag }}
app.kubernetes.io/version: {{ get $tags .name | default (include "reactive-bench.imageTag" .root) | quote }}
reactive-bench.example/build: {{ .root.Values.build }}
{{- /* the three services are the api and its backends (the ServiceMonitor scrapes those); anything else is itself */}}
app.kubernetes.io/component: {{ get (dict "web-api" "api" "articles" "backend" "authors" "backend") .name | default .name }}
app.kubernetes.io/part-of: reactive-bench
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ include "reactive-bench.chart" .root }}
{{- end }}

{{/* The whole CPUs of a CPU quantity, rounded up ("1" -> 1, "1500m" -> 2, 0.5 -> 1): what the JVM counts as its
processors under that CPU limit. */}}
{{- define "reactive-bench.wholeCpus" -}}
{{- $cpu := toString . -}}
{{- if hasSuffix "m" $cpu -}}
{{ div (add (trimSuffix "m" $cpu | atoi) 999) 1000 }}
{{- else -}}
{{ ceil (float64 $cpu) | int }}
{{- end -}}
{{- end }}

{{/* The ConfigMap of PostgreSQL's CA certificate: postgres.caConfigMap, else the platform chart's <cluster>-ca. */}}
{{- define "reactive-bench.postgresCa" -}}
{{ .Values.postgres.caConfigMap | default (printf "%s-ca" .Values.postgres.cluster) }}
{{- end }}

{{/* The operator-generated credentials of a database user (Zalando: <user>.<cluster>.credentials…). */}}
{{- define "reactive-bench.databaseSecret" -}}
{{ printf "%s.%s.credentials.postgresql.acid.zalan.do" (replace "_" "-" .name) .root.Values.postgres.cluster }}
{{- end }}

{{/* The latency proxy's hops, as Toxiproxy's config file lists them: web-api to authors, each data service to
PostgreSQL. */}}
{{- define "reactive-bench.latencyProxies" -}}
{{- $proxy := .Values.latencyProxy -}}
[
  {"name": "authors-{{ .Values.build }}", "listen": "0.0.0.0:{{ $proxy.ports.authors }}",
   "upstream": "{{ include "reactive-bench.serviceName" (dict "root" $ "name" "authors") }}:8080", "enabled": true},
  {"name": "postgres-articles-{{ .Values.build }}", "listen": "0.0.0.0:{{ $proxy.ports.postgresArticles }}",
   "upstream": "{{ .Values.postgres.cluster }}:{{ .Values.postgres.port }}", "enabled": true},
  {"name": "postgres-authors-{{ .Values.build }}", "listen": "0.0.0.0:{{ $proxy.ports.postgresAuthors }}",
   "upstream": "{{ .Values.postgres.cluster }}:{{ .Values.postgres.port }}", "enabled": true}
]
{{- end }}

{{/* Where a pod runs on a cluster of several nodes, and the secrets its images are pulled with: the release's
placement values, as a pod spec has them (every pod of the release alike). */}}
{{- define "reactive-bench.placement" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
