#!/usr/bin/env bash
# Builds the JobSet controller (kubernetes-sigs/jobset) from the pinned source tarball in
# ../shared/third-party/ and installs it, with the same tag's CRD, where the control-plane harness
# looks: <KUBE_API_TEST_DIR or ~/.kubeapitest>/jobset/<version>/{jobset-controller,jobset-crd.yaml}
# (dev.berth.local.JobSetController). Local mode and the end-to-end suite then run the
# real JobSet controller; without it they say so and use no JobSet controller (local mode) or the
# suite's stand-in (src/test).
# Idempotent: does nothing when the binary is already there.
# --optional: when the third-party directory itself is absent, say so loudly and exit 0 (the
# build's validate phase uses this, so a machine without ../shared still builds and tests, with
# the suite's stand-in); when the directory is there but the JobSet source in it is missing or does
# not build, exit 1 all the same: a stand-in must never silently replace a controller this machine
# was given. Without --optional, a missing source is an error too.
set -euo pipefail

# The one place the JobSet version is pinned (JobSetController.java reads the same path).
JOBSET_VERSION="0.12.0"
# The commit the tarball was made from (../shared/third-party/README.md).
JOBSET_COMMIT="f22e565ac3cc3265c7c45ef67ecffdc689af5d77"

optional=false
[ "${1:-}" = "--optional" ] && optional=true
root="$(cd "$(dirname "$0")/.." && pwd)"
third_party="${BERTH_THIRD_PARTY:-$root/../shared/third-party}"
tarball="$third_party/jobset-v${JOBSET_VERSION}.tar.gz"
crd="$third_party/crds/jobset.x-k8s.io_jobsets.yaml"

base="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}"
dest="$base/jobset/v${JOBSET_VERSION}"
mkdir -p "$base"
exec 9>"$base/.jobset-binary.lock"
if ! flock -n 9; then
  echo "jobset-binary: another build is running; waiting for it"
  flock 9
fi
if [ -x "$dest/jobset-controller" ] && [ -f "$dest/jobset-crd.yaml" ]; then
  echo "jobset-binary: using cached $dest/jobset-controller"
  exit 0
fi
if [ ! -d "$third_party" ] && $optional; then
  cat <<MSG
jobset-binary: ************************************************************************************
jobset-binary: NO THIRD-PARTY SOURCES at $third_party (set BERTH_THIRD_PARTY):
jobset-binary: local mode runs without a JobSet controller, and the tests run JobSets with their
jobset-binary: stand-in (JobSetStandIn), not the real JobSet v${JOBSET_VERSION} controller.
jobset-binary: ************************************************************************************
MSG
  exit 0
fi
if [ ! -f "$tarball" ] || [ ! -f "$crd" ]; then
  msg="jobset-binary: no JobSet v${JOBSET_VERSION} source at $tarball (or no CRD at $crd)."
  echo "$msg Put kubernetes-sigs/jobset v${JOBSET_VERSION} there (or set BERTH_THIRD_PARTY)." >&2
  exit 1
fi
if ! command -v go >/dev/null 2>&1; then
  cat >&2 <<MSG
jobset-binary: $dest/jobset-controller is missing and 'go' is not on PATH.
Install Go (1.26 or newer) and rerun, or put a JobSet v${JOBSET_VERSION} manager binary there.
MSG
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export CGO_ENABLED=0
echo "jobset-binary: building JobSet v${JOBSET_VERSION} into $dest (first run only; about 5-10 minutes on 2 cores)"
tar -xzf "$tarball" -C "$work"
src="$work/jobset-v${JOBSET_VERSION}"
[ -f "$src/main.go" ] || { echo "jobset-binary: $tarball has no jobset-v${JOBSET_VERSION}/main.go" >&2; exit 1; }
# The module itself is not on the Go proxy here, its dependencies are: build inside the source
# tree with exactly the versions its go.sum pins.
(cd "$src" && GOFLAGS=-mod=mod go build -trimpath \
  -ldflags "-s -w -X sigs.k8s.io/jobset/pkg/version.GitVersion=v${JOBSET_VERSION} -X sigs.k8s.io/jobset/pkg/version.GitCommit=${JOBSET_COMMIT}" \
  -o "$work/jobset-controller" .)

mkdir -p "$dest"
install -m 0644 "$crd" "$dest/jobset-crd.yaml"
install -m 0755 "$work/jobset-controller" "$dest/"
echo "jobset-binary: installed into $dest"
