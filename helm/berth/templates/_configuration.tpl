{{/*
The operator's Configuration (config.berth.dev/v1beta1, docs/configuration.md), rendered from the
values into the ConfigMap the operator reads at start. Every field is written, so the file says
everything the operator runs with. The ports and the certificate directory are the ones the
Deployment's containerPorts, probes, Service and volumes name, so they are not values.
*/}}
{{- define "berth.configuration" -}}
apiVersion: config.berth.dev/v1beta1
kind: Configuration
namespace: {{ .Release.Namespace }}
leaderElection:
  leaderElect: {{ .Values.leaderElection.enabled }}
  resourceName: {{ .Values.leaderElection.leaseName | quote }}
  exitOnLostLease: {{ .Values.leaderElection.exitOnLostLease }}
metrics:
  port: 8080
webhook:
  enable: true
  port: 9443
  threads: {{ int .Values.webhooks.threads }}
  certDir: /tmp/berth-certs
  operatorIdentity: {{ include "berth.operatorIdentity" . | quote }}
  manageJobsWithoutQueueName: {{ .Values.webhooks.manageJobsWithoutQueueName }}
internalCertManagement:
  enable: {{ not .Values.certManager.enabled }}
  webhookServiceName: {{ include "berth.fullname" . | quote }}
  webhookSecretName: {{ printf "%s-webhook-ca" (include "berth.fullname" .) | quote }}
  validatingWebhookConfigurationName: {{ include "berth.validatingWebhookName" . | quote }}
  mutatingWebhookConfigurationName: {{ include "berth.mutatingWebhookName" . | quote }}
clientConnection:
  qps: {{ .Values.writers.qps }}
  burst: {{ int .Values.writers.burst }}
  writers: {{ int .Values.writers.threads }}
  queue: {{ int .Values.writers.queue }}
  pendingWorkloadQps: {{ .Values.writers.pendingQps }}
  queueStatusQps: {{ .Values.writers.queueStatusQps }}
  watchSilence: {{ printf "%ds" (int .Values.watchSilenceSeconds) }}
  nativeTls: {{ .Values.nativeTls }}
{{- with .Values.waitForPodsReady }}
waitForPodsReady:
  enable: {{ .enable }}
  timeout: {{ printf "%ds" (int .timeoutSeconds) }}
  blockAdmission: {{ .blockAdmission }}
  recoveryTimeout: {{ if kindIs "invalid" .recoveryTimeoutSeconds }}null{{ else }}{{ printf "%ds" (int .recoveryTimeoutSeconds) }}{{ end }}
  requeuingStrategy:
    timestamp: {{ .requeuingStrategy.timestamp | quote }}
    backoffBaseSeconds: {{ int .requeuingStrategy.backoffBaseSeconds }}
    backoffMaxSeconds: {{ int .requeuingStrategy.backoffMaxSeconds }}
    backoffLimitCount: {{ if kindIs "invalid" .requeuingStrategy.backoffLimitCount }}null{{ else }}{{ int .requeuingStrategy.backoffLimitCount }}{{ end }}
{{- end }}
fairSharing:
  enable: {{ .Values.fairSharing.enable }}
  preemptionStrategies:
    {{- toYaml .Values.fairSharing.preemptionStrategies | nindent 4 }}
integrations:
  frameworks:
    {{- toYaml .Values.integrations.frameworks | nindent 4 }}
resources:
  deviceClassMappings:
    {{- toYaml .Values.deviceClassMappings | nindent 4 }}
usage:
  reportInterval: {{ printf "%ds" (int .Values.usage.reportIntervalSeconds) }}
capacity:
  excludedTaintKeys:
    {{- toYaml .Values.capacity.excludedTaintKeys | nindent 4 }}
{{- with .Values.utilization }}
utilization:
  prometheusUrl: {{ .prometheusUrl | quote }}
  metric: {{ .metric | quote }}
  namespaceLabel: {{ .namespaceLabel | quote }}
  podLabel: {{ .podLabel | quote }}
  delay: {{ printf "%ds" (int .delaySeconds) }}
  giveUp: {{ printf "%ds" (int .giveUpSeconds) }}
{{- end }}
visibility:
  port: 8443
  dashboard: {{ .Values.dashboard.enabled }}
admissionFairSharing:
  usageHalfLifeTime: {{ .Values.admissionFairSharing.usageHalfLifeTime | quote }}
  usageSamplingInterval: {{ .Values.admissionFairSharing.usageSamplingInterval | quote }}
  resourceWeights: {{ toJson .Values.admissionFairSharing.resourceWeights }}
{{- end }}
