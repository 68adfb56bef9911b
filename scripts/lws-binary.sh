#!/usr/bin/env bash
# Builds the LeaderWorkerSet controller (kubernetes-sigs/lws) from the pinned source tarball in
# ../shared/third-party/ and installs it, with the same tag's CRD, where the control-plane harness
# looks: <KUBE_API_TEST_DIR or ~/.kubeapitest>/lws/<version>/{lws-controller,crds/} (its CRDs:
# LeaderWorkerSet, and the DisaggregatedSet kinds the same manager watches)
# (dev.berth.local.LwsController). Only what needs it runs it: LeaderWorkerSetE2EIT and
# LocalModeE2EIT call this script when they start (so a run that tests neither never builds it),
# and local mode runs the controller when it is already cached.
# Idempotent: does nothing when the binary is already there.
# --optional: when the third-party directory itself is absent, say so loudly and exit 0 (the
# LeaderWorkerSet tests then skip, naming the missing tarball); when the directory is there but
# the LWS tarball in it is missing or does not build, exit 1 all the same: a machine given the
# source must run the tests. Without --optional, a missing source is an error too.
set -euo pipefail

# The one place the LWS version is pinned (LwsController.java reads the same path).
LWS_VERSION="0.10.0"
# The commit the tarball was made from (../shared/third-party/README.md).
LWS_COMMIT="2161f38ff333f9e24d3c44adef7cd5d9787cac00"

optional=false
[ "${1:-}" = "--optional" ] && optional=true
root="$(cd "$(dirname "$0")/.." && pwd)"
third_party="${BERTH_THIRD_PARTY:-$root/../shared/third-party}"
tarball="$third_party/lws-v${LWS_VERSION}.tar.gz"

base="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}"
dest="$base/lws/v${LWS_VERSION}"
mkdir -p "$base"
exec 9>"$base/.lws-binary.lock"
if ! flock -n 9; then
  echo "lws-binary: another build is running; waiting for it"
  flock 9
fi
if [ -x "$dest/lws-controller" ] && [ -f "$dest/crds/leaderworkerset.x-k8s.io_leaderworkersets.yaml" ]; then
  echo "lws-binary: using cached $dest/lws-controller"
  exit 0
fi
if [ ! -f "$tarball" ]; then
  if [ ! -d "$third_party" ] && $optional; then
    cat <<MSG
lws-binary: ************************************************************************************
lws-binary: NO LEADERWORKERSET SOURCE at $tarball (set BERTH_THIRD_PARTY):
lws-binary: the LeaderWorkerSet tests are SKIPPED and local mode runs no LWS controller.
lws-binary: Put kubernetes-sigs/lws v${LWS_VERSION} there (git archive of the tag) to run them.
lws-binary: ************************************************************************************
MSG
    exit 0
  fi
  echo "lws-binary: no LeaderWorkerSet v${LWS_VERSION} source at $tarball (set BERTH_THIRD_PARTY)." >&2
  exit 1
fi
go_bin="$(command -v go || true)"
[ -z "$go_bin" ] && [ -x /usr/local/go/bin/go ] && go_bin=/usr/local/go/bin/go
if [ -z "$go_bin" ]; then
  cat >&2 <<MSG
lws-binary: $dest/lws-controller is missing and 'go' is not on PATH.
Install Go (1.26 or newer) and rerun, or put an LWS v${LWS_VERSION} manager binary there.
MSG
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export CGO_ENABLED=0
echo "lws-binary: building LeaderWorkerSet v${LWS_VERSION} into $dest (first run only; a few minutes on 2 cores)"
tar -xzf "$tarball" -C "$work"
src="$work/lws-v${LWS_VERSION}"
crds="$src/config/crd/bases"
[ -f "$src/cmd/main.go" ] || { echo "lws-binary: $tarball has no lws-v${LWS_VERSION}/cmd/main.go" >&2; exit 1; }
[ -f "$crds/leaderworkerset.x-k8s.io_leaderworkersets.yaml" ] || { echo "lws-binary: $tarball has no LeaderWorkerSet CRD in config/crd/bases/" >&2; exit 1; }
# The module itself is not on the Go proxy here, its dependencies are: build inside the source
# tree with exactly the versions its go.sum pins.
(cd "$src" && GOFLAGS=-mod=mod "$go_bin" build -trimpath \
  -ldflags "-s -w -X sigs.k8s.io/lws/pkg/version.GitVersion=v${LWS_VERSION} -X sigs.k8s.io/lws/pkg/version.GitCommit=${LWS_COMMIT}" \
  -o "$work/lws-controller" ./cmd)

mkdir -p "$dest/crds"
install -m 0644 "$crds"/*.yaml "$dest/crds/"
# The binary last: its presence is what says the install is complete.
install -m 0755 "$work/lws-controller" "$dest/"
echo "lws-binary: installed into $dest"
