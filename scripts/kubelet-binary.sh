#!/usr/bin/env bash
# Builds kubelet and kube-proxy from the same pinned Kubernetes Go module as kube-binaries.sh and
# installs them beside the cached control-plane binaries:
# <KUBE_API_TEST_DIR or ~/.kubeapitest>/k8s/<version>-linux-amd64/{kubelet,kube-proxy}.
# Only the real-node run (scripts/real-node-e2e.sh) needs them, so the default build does not call
# this; it has a lock and a cache of its own and never rebuilds the control-plane binaries.
# Idempotent: does nothing when both binaries are already there.
set -euo pipefail

# Same version as kube-binaries.sh: a kubelet newer or older than its API server is not what a
# cluster runs.
K8S_VERSION="${BERTH_K8S_VERSION:-1.37.2}"

base="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}"
dest="$base/k8s/${K8S_VERSION}-linux-amd64"
mkdir -p "$base"
exec 9>"$base/.kubelet-binary.lock"
if ! flock -n 9; then
  echo "kubelet-binary: another build is running; waiting for it"
  flock 9
fi
binaries=(kubelet kube-proxy)
missing=()
for b in "${binaries[@]}"; do [ -x "$dest/$b" ] || missing+=("$b"); done
if [ ${#missing[@]} -eq 0 ]; then
  echo "kubelet-binary: using cached $dest/kubelet and $dest/kube-proxy"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  cat >&2 <<MSG
kubelet-binary: $dest lacks ${missing[*]}, and 'go' is not on PATH.
Install Go (1.26 or newer) and rerun, or unpack the Kubernetes ${K8S_VERSION} node binaries
(kubelet, kube-proxy) into $dest yourself.
MSG
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GOFLAGS="-mod=mod" CGO_ENABLED=0

echo "kubelet-binary: building ${missing[*]} (Kubernetes v${K8S_VERSION}) into $dest (first run only; about 10-20 minutes on 2 cores)"
# The same wrapper module as kube-binaries.sh: k8s.io/kubernetes with each staging module mapped
# to its published k8s.io/X v0.<minor>.<patch>.
mkdir -p "$work/k8s" && cd "$work/k8s"
go mod init berth.dev/kubelet-binary >/dev/null 2>&1
modfile="$(go mod download -json "k8s.io/kubernetes@v${K8S_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
staging_version="v0.${K8S_VERSION#1.}"
{
  echo "require k8s.io/kubernetes v${K8S_VERSION}"
  echo "replace ("
  sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*#\t\1 => \1 '"$staging_version"'#p' "$modfile"
  echo ")"
} >> go.mod
cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
GO
echo "kubelet-binary: resolving modules"
go mod tidy >/dev/null 2>&1 || go mod tidy
mkdir -p "$work/out"
minor="$(echo "$K8S_VERSION" | cut -d. -f2)"
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=v${K8S_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor}"
for cmd in "${missing[@]}"; do
  echo "kubelet-binary: go build $cmd"
  go build -trimpath -ldflags "$ldflags" -o "$work/out/$cmd" "k8s.io/kubernetes/cmd/$cmd"
done

mkdir -p "$dest"
install -m 0755 "$work"/out/* "$dest/"
echo "kubelet-binary: installed into $dest"
"$dest/kubelet" --version
