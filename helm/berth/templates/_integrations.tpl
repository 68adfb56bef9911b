{{- /*
The workload kinds Berth integrates, by Kueue framework name: the chart's copy of the registry
(Framework in admission-webhook), which ChartIntegrationsTest holds equal to it. For each: its
webhooks' name (v<name>/m<name>.berth.dev) and API group, version and resource (the webhook
paths follow from them, /validate-<group with dashes>-<version>-<name>), and the resources the
operator needs rights on to run it (its own, then its children's). integrations.frameworks picks
which are on: a kind that is off gets no webhook and no RBAC (webhooks.yaml, clusterrole.yaml).
Plain Pods (pod) have webhooks of their own in webhooks.yaml, beside the pod queue rule's and
the topology gate's, which every pod goes through whatever the list says. A Deployment's pods are
queued by the pod integration (its ReplicaSets' pods reach mpod-admission), and so are a
StatefulSet's, as one pod group, and each replica group of a LeaderWorkerSet (its StatefulSets'
pods): so these need pod, and the operator needs no rights on them (resources: []).
*/ -}}
{{- define "berth.integrationKinds" -}}
batch/job:
  name: job
  kind: Job
  group: batch
  version: v1
  resource: jobs
  resources:
    - {group: batch, resource: jobs}
jobset.x-k8s.io/jobset:
  name: jobset
  kind: JobSet
  group: jobset.x-k8s.io
  version: v1alpha2
  resource: jobsets
  resources:
    - {group: jobset.x-k8s.io, resource: jobsets}
    - {group: batch, resource: jobs}
pod:
  name: pod
  kind: Pod
  group: ""
  version: v1
  resource: pods
  resources:
    - {group: "", resource: pods}
deployment:
  name: deployment
  kind: Deployment
  group: apps
  version: v1
  resource: deployments
  resources: []
statefulset:
  name: statefulset
  kind: StatefulSet
  group: apps
  version: v1
  resource: statefulsets
  resources: []
leaderworkerset.x-k8s.io/leaderworkerset:
  name: leaderworkerset
  kind: LeaderWorkerSet
  group: leaderworkerset.x-k8s.io
  version: v1
  resource: leaderworkersets
  resources: []
ray.io/rayjob:
  name: rayjob
  kind: RayJob
  group: ray.io
  version: v1
  resource: rayjobs
  resources:
    - {group: ray.io, resource: rayjobs}
    - {group: ray.io, resource: rayclusters}
ray.io/raycluster:
  name: raycluster
  kind: RayCluster
  group: ray.io
  version: v1
  resource: rayclusters
  resources:
    - {group: ray.io, resource: rayclusters}
kubeflow.org/pytorchjob:
  name: pytorchjob
  kind: PyTorchJob
  group: kubeflow.org
  version: v1
  resource: pytorchjobs
  resources:
    - {group: kubeflow.org, resource: pytorchjobs}
kubeflow.org/mpijob:
  name: mpijob
  kind: MPIJob
  group: kubeflow.org
  version: v1
  resource: mpijobs
  resources:
    - {group: kubeflow.org, resource: mpijobs}
trainer.kubeflow.org/trainjob: {name: trainjob, kind: TrainJob, group: trainer.kubeflow.org, version: v1alpha1, resource: trainjobs, resources: [{group: trainer.kubeflow.org, resource: trainjobs}, {group: trainer.kubeflow.org, resource: trainingruntimes}, {group: trainer.kubeflow.org, resource: clustertrainingruntimes}, {group: batch, resource: jobs}]}
{{- end }}

{{- /*
The kinds integrations.frameworks turns on, in its order, as {kinds: [...]} (fromYaml reads only
maps): each entry of the table above with its webhook paths added.
*/ -}}
{{- define "berth.enabledIntegrations" -}}
{{- $table := include "berth.integrationKinds" . | fromYaml }}
{{- $kinds := list }}
{{- range $i, $framework := .Values.integrations.frameworks }}
{{- $kind := get $table $framework }}
{{- if not $kind }}
{{- fail (printf "integrations.frameworks[%d]: unknown framework %q; Berth integrates %s" $i $framework (keys $table | sortAlpha | join ", ")) }}
{{- end }}
{{- if and (has $framework (list "deployment" "statefulset" "leaderworkerset.x-k8s.io/leaderworkerset")) (not (has "pod" $.Values.integrations.frameworks)) }}
{{- fail (printf "integrations.frameworks[%d]: %s needs pod too: a %s's pods are queued as plain Pods" $i $framework $kind.kind) }}
{{- end }}
{{- $suffix := printf "%s-%s-%s" (replace "." "-" $kind.group) $kind.version $kind.name }}
{{- $kinds = append $kinds (merge (dict "framework" $framework "validatePath" (printf "/validate-%s" $suffix) "mutatePath" (printf "/mutate-%s" $suffix)) $kind) }}
{{- end }}
{{- toYaml (dict "kinds" $kinds) }}
{{- end }}
