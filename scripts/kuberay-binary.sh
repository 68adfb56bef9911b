#!/usr/bin/env bash
# Builds the KubeRay operator (github.com/ray-project/kuberay/ray-operator) at one pinned version
# from the Go module proxy and installs it, with the CRDs inside that module, where the
# control-plane harness looks: <KUBE_API_TEST_DIR or ~/.kubeapitest>/kuberay/v<version>-<build>/
# {kuberay-operator,ray.io_rayclusters.yaml,ray.io_rayjobs.yaml,ray.io_rayservices.yaml}
# (dev.berth.local.KubeRayOperator).
# The binary is the module's own reconcilers started by scripts/kuberay/main.go instead of its
# main.go: the same flags and options, but the RayJob reconciler polls a stand-in Ray dashboard
# (scripts/kuberay/standin_dashboard.go) that reports a RayJob's Ray job as its submitter Job
# shows it, since KWOK's pods run no Ray (docs/ray.md).
# The end-to-end classes about Ray (RayE2EIT) start it; local mode runs the RayJob sample with it.
# Idempotent: does nothing when the binary is already there.
# --optional: when Go or the module proxy cannot be reached, say so loudly and exit 0 (local mode
# then runs without Ray); a module that downloads but does not build still fails. Without
# --optional every failure is an error. The end-to-end suite never uses --optional: KubeRay is
# served by the proxy, so its tests must run.
set -euo pipefail

# The one place the KubeRay version is pinned (KubeRayOperator.java reads the same path).
KUBERAY_VERSION="1.5.0"
# Bumped whenever scripts/kuberay/ changes, so that a cache built from older code is rebuilt
# (KubeRayOperator.BUILD names the same directory).
BUILD="berth2"
MODULE="github.com/ray-project/kuberay/ray-operator"

optional=false
[ "${1:-}" = "--optional" ] && optional=true

base="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}"
dest="$base/kuberay/v${KUBERAY_VERSION}-${BUILD}"
mkdir -p "$base"
exec 9>"$base/.kuberay-binary.lock"
if ! flock -n 9; then
  echo "kuberay-binary: another build is running; waiting for it"
  flock 9
fi
# KubeRay watches RayServices too and does not start without their CRD: all three are kept.
CRDS="ray.io_rayclusters.yaml ray.io_rayjobs.yaml ray.io_rayservices.yaml"
cached=true
for crd in $CRDS; do [ -f "$dest/$crd" ] || cached=false; done
if [ -x "$dest/kuberay-operator" ] && $cached; then
  echo "kuberay-binary: using cached $dest/kuberay-operator"
  exit 0
fi

unavailable() {
  if $optional; then
    cat <<MSG
kuberay-binary: ************************************************************************************
kuberay-binary: $1
kuberay-binary: local mode runs without a KubeRay operator (RayJobs and RayClusters stay queued).
kuberay-binary: ************************************************************************************
MSG
    exit 0
  fi
  echo "kuberay-binary: $1" >&2
  exit 1
}

root="$(cd "$(dirname "$0")/.." && pwd)"
go_bin="$(command -v go || true)"
[ -z "$go_bin" ] && [ -x /usr/local/go/bin/go ] && go_bin=/usr/local/go/bin/go
[ -n "$go_bin" ] || unavailable "'go' is not on PATH: install Go (1.24 or newer) to build KubeRay v${KUBERAY_VERSION}."

work="$(mktemp -d)"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
export CGO_ENABLED=0 GOFLAGS=-mod=mod
# The module's own go.mod and go.sum pin its dependencies; it has no replace directives, so a
# plain download of the tagged module is all the source there is.
if ! src="$("$go_bin" mod download -json "${MODULE}@v${KUBERAY_VERSION}" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')" \
  || [ -z "$src" ] || [ ! -f "$src/main.go" ]; then
  unavailable "could not download ${MODULE}@v${KUBERAY_VERSION} from the Go module proxy."
fi
echo "kuberay-binary: building KubeRay v${KUBERAY_VERSION} into $dest (first run only; 3-25 minutes on 2 cores, most of it downloading modules)"
# The module cache is read-only: build from a copy, with exactly the versions its go.sum pins, our
# main beside upstream's.
cp -r "$src" "$work/ray-operator"
chmod -R u+w "$work/ray-operator"
mkdir -p "$work/ray-operator/cmd/berth-kuberay"
cp "$root"/scripts/kuberay/*.go "$work/ray-operator/cmd/berth-kuberay/"
(cd "$work/ray-operator" && "$go_bin" build -trimpath -ldflags "-s -w" -o "$work/kuberay-operator" ./cmd/berth-kuberay)

mkdir -p "$dest"
for crd in $CRDS; do
  install -m 0644 "$src/config/crd/bases/$crd" "$dest/$crd"
done
# The binary last: its presence is what says the install is complete.
install -m 0755 "$work/kuberay-operator" "$dest/"
echo "kuberay-binary: installed into $dest"
