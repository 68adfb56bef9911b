#!/usr/bin/env bash
# Builds KWOK (sigs.k8s.io/kwok, Kubernetes WithOut Kubelet) from the pinned Go module and installs
# it where the end-to-end suite's real control plane looks:
# <KUBE_API_TEST_DIR or ~/.kubeapitest>/kwok/<version>/kwok. KWOK plays the kubelet of simulated
# Nodes: it runs the pods kube-scheduler binds to them through the stages the tests configure.
# Idempotent: does nothing when the binary is already there.
set -euo pipefail

# The one place the KWOK version is pinned (the tests read the same path: ControlPlane.java).
KWOK_VERSION="${BERTH_KWOK_VERSION:-0.8.0}"

base="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}"
dest="$base/kwok/v${KWOK_VERSION}"
# Parallel builds wait for the first one and then find its result (see kube-binaries.sh).
mkdir -p "$base"
exec 9>"$base/.kwok-binary.lock"
if ! flock -n 9; then
  echo "kwok-binary: another build is running; waiting for it"
  flock 9
fi
if [ -x "$dest/kwok" ]; then
  echo "kwok-binary: using cached $dest/kwok"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  cat >&2 <<MSG
kwok-binary: $dest/kwok is missing and 'go' is not on PATH.
Install Go (1.26 or newer) and rerun, or put a kwok v${KWOK_VERSION} binary at $dest/kwok yourself.
MSG
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export CGO_ENABLED=0

echo "kwok-binary: building kwok v${KWOK_VERSION} into $dest (first run only; about 5-10 minutes on 2 cores)"
# go install of a versioned package builds it with exactly the dependency versions KWOK's own
# go.mod lists, outside any module of ours.
GOBIN="$work/out" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@v${KWOK_VERSION}"

mkdir -p "$dest"
install -m 0755 "$work/out/kwok" "$dest/"
echo "kwok-binary: installed into $dest"
"$dest/kwok" --version
