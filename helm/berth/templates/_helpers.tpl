{{/* Names and labels shared by every template. */}}

{{- define "berth.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every object name. Truncated to 52 characters so the longest suffix
("-batch-admin", "-webhook-tls") still fits the 63-character limit of names used as labels.
*/}}
{{- define "berth.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 52 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "berth.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "berth.selectorLabels" -}}
app.kubernetes.io/name: {{ include "berth.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "berth.labels" -}}
helm.sh/chart: {{ include "berth.chart" . }}
{{ include "berth.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: berth
{{- end }}

{{- define "berth.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "berth.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The user the operator acts as; the Job webhook lets only this identity unsuspend a managed Job. */}}
{{- define "berth.operatorIdentity" -}}
{{- printf "system:serviceaccount:%s:%s" .Release.Namespace (include "berth.serviceAccountName" .) }}
{{- end }}

{{- define "berth.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{- define "berth.validatingWebhookName" -}}
{{- printf "%s-validating" (include "berth.fullname" .) }}
{{- end }}

{{- define "berth.mutatingWebhookName" -}}
{{- printf "%s-mutating" (include "berth.fullname" .) }}
{{- end }}

{{- define "berth.certificateName" -}}
{{- printf "%s-webhook" (include "berth.fullname" .) }}
{{- end }}

{{- define "berth.certificateSecretName" -}}
{{- printf "%s-webhook-tls" (include "berth.fullname" .) }}
{{- end }}

{{/* cert-manager's CA injector copies the Certificate's CA into the caBundle of annotated webhooks. */}}
{{- define "berth.webhookAnnotations" -}}
{{- if .Values.certManager.enabled }}
annotations:
  cert-manager.io/inject-ca-from: {{ printf "%s/%s" .Release.Namespace (include "berth.certificateName" .) }}
{{- end }}
{{- end -}}

{{/*
Namespaces no webhook intercepts: the configured ones and always Berth's own, so that a broken or
absent Berth never blocks the objects it needs to restart. Uses the kubernetes.io/metadata.name
label that the API server sets on every namespace.
*/}}
{{- define "berth.excludedNamespaces" -}}
{{- $excluded := concat (list .Release.Namespace) .Values.webhooks.excludedNamespaces | uniq -}}
- key: kubernetes.io/metadata.name
  operator: NotIn
  values:
  {{- range $excluded }}
  - {{ . | quote }}
  {{- end }}
{{- end }}

{{/* The clientConfig of one webhook entry: the chart's Service, port 443, the given path. */}}
{{- define "berth.clientConfig" -}}
clientConfig:
  service:
    name: {{ include "berth.fullname" .root }}
    namespace: {{ .root.Release.Namespace }}
    path: {{ .path }}
    port: 443
{{- end }}
