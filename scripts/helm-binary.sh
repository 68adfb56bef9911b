#!/usr/bin/env bash
# Builds the helm CLI from the pinned Go module helm.sh/helm/v3 and installs it where the chart
# tests look: <KUBE_API_TEST_DIR or ~/.kubeapitest>/helm/<version>/helm (the path is also set as
# the berth.helm system property in src/test/pom.xml; ChartIT fails if the two disagree).
# Idempotent: does nothing when the binary is already there.
set -euo pipefail

# The one place the Helm version is pinned. 3.22.0 is the newest v3 release; its go.mod (go 1.26.0)
# builds with the Go on our machines, and its client-go (v0.37) matches the Kubernetes 1.37
# API server the tests run against.
HELM_VERSION="${BERTH_HELM_VERSION:-3.22.0}"

base="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}"
dest="$base/helm/${HELM_VERSION}"
# Parallel builds wait for the first one and then find its result (see kube-binaries.sh).
mkdir -p "$base"
exec 9>"$base/.helm-binary.lock"
if ! flock -n 9; then
  echo "helm-binary: another build is running; waiting for it"
  flock 9
fi
if [ -x "$dest/helm" ]; then
  echo "helm-binary: using cached $dest/helm"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  cat >&2 <<MSG
helm-binary: $dest/helm is missing and 'go' is not on PATH.
Install Go (1.26 or newer) and rerun, or put a helm v${HELM_VERSION} binary at $dest/helm yourself.
MSG
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GOFLAGS="-mod=mod" CGO_ENABLED=0

echo "helm-binary: building helm v${HELM_VERSION} into $dest (first run only; a few minutes on 2 cores)"

# A wrapper module that requires helm at the pinned version and nothing else, so minimal version
# selection picks exactly the dependency versions Helm's own go.mod lists.
mkdir -p "$work/helm" && cd "$work/helm"
go mod init berth.dev/helm-binary >/dev/null 2>&1
echo "require helm.sh/helm/v3 v${HELM_VERSION}" >> go.mod
cat > tools.go <<'GO'
//go:build tools

package tools

import _ "helm.sh/helm/v3/cmd/helm"
GO
echo "helm-binary: resolving modules"
go mod tidy >/dev/null 2>&1 || go mod tidy

# The same -X flags as Helm's Makefile: the version it reports, and the Kubernetes version that
# 'helm template' and 'helm lint' assume (.Capabilities.KubeVersion, Chart.yaml kubeVersion checks),
# taken from the client-go Helm is built with, as upstream does.
modfile="$(go mod download -json "helm.sh/helm/v3@v${HELM_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
client_go="$(sed -n 's#^\s*k8s.io/client-go v0\.\([0-9]*\)\..*#\1#p' "$modfile" | head -n1)"
ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=v${HELM_VERSION} -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for pkg in pkg/lint/rules pkg/chartutil; do
  ldflags="$ldflags -X helm.sh/helm/v3/$pkg.k8sVersionMajor=1 -X helm.sh/helm/v3/$pkg.k8sVersionMinor=${client_go}"
done
echo "helm-binary: go build helm (Kubernetes capabilities v1.${client_go})"
mkdir -p "$work/out"
go build -trimpath -ldflags "$ldflags" -o "$work/out/helm" helm.sh/helm/v3/cmd/helm

mkdir -p "$dest"
install -m 0755 "$work/out/helm" "$dest/"
echo "helm-binary: installed into $dest"
"$dest/helm" version --short
