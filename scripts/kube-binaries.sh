#!/usr/bin/env bash
# Builds kube-apiserver, etcd and kubectl from pinned Go module versions and installs them where
# fabric8 kube-api-test looks: <KUBE_API_TEST_DIR or ~/.kubeapitest>/k8s/<version>-linux-amd64/;
# beside them kube-controller-manager and kube-scheduler of the same Kubernetes version (local
# mode and the tests run the controllers a real cluster has, e.g. ClusterRole aggregation).
# With --node, instead: kubelet and kube-proxy of the same version, for the real-node run
# (scripts/real-node-e2e.sh) only, with a lock of their own, so the default build never waits for
# or builds them and they never rebuild the control-plane binaries.
# Idempotent: does nothing when the binaries are already there.
set -euo pipefail
target=kube-binaries
binaries=(kube-apiserver etcd kubectl kube-controller-manager kube-scheduler)
if [ "${1:-}" = --node ]; then
  target=kube-node-binaries
  binaries=(kubelet kube-proxy)
fi

# The one place the Kubernetes and etcd versions are pinned. 1.37.2 is the newest release whose
# go.mod (go 1.26.0) builds with the Go on our machines; etcd 3.7.0 is the version it requires.
K8S_VERSION="${BERTH_K8S_VERSION:-1.37.2}"
ETCD_VERSION="${BERTH_ETCD_VERSION:-3.7.0}"

base="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}"
dest="$base/k8s/${K8S_VERSION}-linux-amd64"
# Builds started at the same time (two checkouts, parallel Maven runs) wait for the first one and
# then find its result, instead of compiling Kubernetes twice on the same cores.
mkdir -p "$base"
exec 9>"$base/.$target.lock"
if ! flock -n 9; then
  echo "$target: another build is running; waiting for it"
  flock 9
fi
missing=()
for b in "${binaries[@]}"; do [ -x "$dest/$b" ] || missing+=("$b"); done
if [ ${#missing[@]} -eq 0 ]; then
  echo "$target: using cached ${binaries[*]} in $dest"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  cat >&2 <<MSG
$target: $dest lacks ${missing[*]}, and 'go' is not on PATH.
Install Go (1.26 or newer) and rerun, or unpack the Kubernetes ${K8S_VERSION} binaries
${missing[*]} (etcd: ${ETCD_VERSION}) into $dest yourself.
MSG
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GOFLAGS="-mod=mod" CGO_ENABLED=0

echo "$target: building ${missing[*]} (Kubernetes v${K8S_VERSION}, etcd v${ETCD_VERSION}) into $dest (first run only; about 15-30 minutes on 2 cores)"

mkdir -p "$work/out"
commands=()
for b in "${missing[@]}"; do [ "$b" = etcd ] || commands+=("$b"); done
# Kubernetes: a wrapper module that requires k8s.io/kubernetes and maps each staging module
# (./staging/src/k8s.io/X in its go.mod) to the published k8s.io/X v0.<minor>.<patch>.
if [ ${#commands[@]} -gt 0 ]; then
  mkdir -p "$work/k8s" && cd "$work/k8s"
  go mod init berth.dev/kube-binaries >/dev/null 2>&1
  modfile="$(go mod download -json "k8s.io/kubernetes@v${K8S_VERSION}" |
    sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  staging_version="v0.${K8S_VERSION#1.}"
  {
    echo "require k8s.io/kubernetes v${K8S_VERSION}"
    echo "replace ("
    sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*#\t\1 => \1 '"$staging_version"'#p' \
      "$modfile"
    echo ")"
  } >> go.mod
  {
    printf '//go:build tools\n\npackage tools\n\nimport (\n'
    for cmd in "${commands[@]}"; do printf '\t_ "k8s.io/kubernetes/cmd/%s"\n' "$cmd"; done
    printf ')\n'
  } > tools.go
  echo "$target: resolving modules"
  go mod tidy >/dev/null 2>&1 || go mod tidy
  minor="$(echo "$K8S_VERSION" | cut -d. -f2)"
  ldflags="-s -w -X k8s.io/component-base/version.gitVersion=v${K8S_VERSION}"
  ldflags+=" -X k8s.io/component-base/version.gitMajor=1"
  ldflags+=" -X k8s.io/component-base/version.gitMinor=${minor}"
  for cmd in "${commands[@]}"; do
    echo "$target: go build $cmd"
    go build -trimpath -ldflags "$ldflags" -o "$work/out/$cmd" "k8s.io/kubernetes/cmd/$cmd"
  done
fi

# etcd: its own wrapper, so etcd's dependency graph does not meet Kubernetes'.
if [[ " ${missing[*]} " == *" etcd "* ]]; then
mkdir -p "$work/etcd" && cd "$work/etcd"
go mod init berth.dev/etcd-binary >/dev/null 2>&1
cat > main.go <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
go get "go.etcd.io/etcd/server/v3@v${ETCD_VERSION}" >/dev/null 2>&1 || go get "go.etcd.io/etcd/server/v3@v${ETCD_VERSION}"
go mod tidy >/dev/null 2>&1 || go mod tidy
echo "$target: go build etcd"
go build -trimpath -ldflags "-s -w" -o "$work/out/etcd" .
fi

mkdir -p "$dest"
install -m 0755 "$work"/out/* "$dest/"
echo "$target: installed ${missing[*]} into $dest"
"$dest/${binaries[0]}" --version
