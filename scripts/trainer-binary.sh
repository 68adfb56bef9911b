#!/usr/bin/env bash
# Builds the Kubeflow Trainer controller manager (github.com/kubeflow/trainer/v2, the TrainJob,
# TrainingRuntime and ClusterTrainingRuntime controllers) from the Go module proxy and installs it,
# with the same version's CRDs (manifests/base/crds/ in the module), where the control-plane
# harness looks:
#   <KUBE_API_TEST_DIR or ~/.kubeapitest>/trainer/v<version>/{trainer-controller-manager,crds/}
# (dev.berth.local.KubeflowTrainer, which local mode and the tests start). The module needs the
# JobSet v0.8.2 API, which the proxy does not serve here: it comes from
# ../shared/third-party/jobset-v0.8.2.tar.gz through a `go mod edit -replace`. The binary is the module's own runtimes and controllers started by
# scripts/trainer/main.go instead of its cmd/trainer-controller-manager, which starts no controller
# before its certificate rotator has a Secret in the Pod's namespace: same flags, no webhooks
# (docs/trainjob.md). Only what needs it runs it: TrainJobE2EIT and LocalModeE2EIT call this script
# when they start (dev.berth.e2e.plane.ControllerBuilds); local mode never does, it runs it if built.
# Idempotent: does nothing when the binary is already there.
# --optional: when the third-party directory itself is absent, say so loudly and exit 0 (the
# TrainJob tests then skip, naming the missing tarball); when the directory is there but the JobSet
# v0.8.2 tarball is missing, or the module does not download or build, exit 1 all the same.
set -euo pipefail

# The one place the Trainer version is pinned (KubeflowTrainer.java reads the same path).
TRAINER_VERSION="2.0.0"
MODULE="github.com/kubeflow/trainer/v2"
# The JobSet API version the Trainer module requires (its go.mod).
JOBSET_API_VERSION="0.8.2"

optional=false
[ "${1:-}" = "--optional" ] && optional=true
root="$(cd "$(dirname "$0")/.." && pwd)"
third_party="${BERTH_THIRD_PARTY:-$root/../shared/third-party}"
tarball="$third_party/jobset-v${JOBSET_API_VERSION}.tar.gz"

base="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}"
dest="$base/trainer/v${TRAINER_VERSION}"
mkdir -p "$base"
exec 9>"$base/.trainer-binary.lock"
if ! flock -n 9; then
  echo "trainer-binary: another build is running; waiting for it"
  flock 9
fi
if [ -x "$dest/trainer-controller-manager" ] && [ -f "$dest/crds/trainer.kubeflow.org_trainjobs.yaml" ]; then
  echo "trainer-binary: using cached $dest/trainer-controller-manager"
  exit 0
fi
if [ ! -f "$tarball" ]; then
  if [ ! -d "$third_party" ] && $optional; then
    cat <<MSG
trainer-binary: ************************************************************************************
trainer-binary: NO JOBSET v${JOBSET_API_VERSION} API SOURCE at $tarball (set BERTH_THIRD_PARTY):
trainer-binary: Kubeflow Trainer v${TRAINER_VERSION} cannot be built, and the TrainJob tests are SKIPPED.
trainer-binary: Put kubernetes-sigs/jobset v${JOBSET_API_VERSION} there (git archive of the tag) to run them.
trainer-binary: ************************************************************************************
MSG
    exit 0
  fi
  echo "trainer-binary: no JobSet v${JOBSET_API_VERSION} source at $tarball (set BERTH_THIRD_PARTY)." >&2
  exit 1
fi
go_bin="$(command -v go || true)"
[ -z "$go_bin" ] && [ -x /usr/local/go/bin/go ] && go_bin=/usr/local/go/bin/go
if [ -z "$go_bin" ]; then
  cat >&2 <<MSG
trainer-binary: $dest/trainer-controller-manager is missing and 'go' is not on PATH.
Install Go (1.24 or newer) and rerun.
MSG
  exit 1
fi

work="$(mktemp -d)"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
export CGO_ENABLED=0
echo "trainer-binary: building ${MODULE} v${TRAINER_VERSION} into $dest (first run only; several minutes on 2 cores)"
src="$("$go_bin" mod download -json "${MODULE}@v${TRAINER_VERSION}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
if [ -z "$src" ] || [ ! -f "$src/go.mod" ]; then
  echo "trainer-binary: the Go module proxy did not serve ${MODULE}@v${TRAINER_VERSION}" >&2
  exit 1
fi
tar -xzf "$tarball" -C "$work"
jobset="$work/jobset-v${JOBSET_API_VERSION}"
[ -f "$jobset/go.mod" ] || { echo "trainer-binary: $tarball has no jobset-v${JOBSET_API_VERSION}/go.mod" >&2; exit 1; }
# Built inside a copy of the module (the module cache is read-only), with exactly the versions its
# go.sum pins but for the JobSet API, taken from the tarball; our main beside its own.
cp -r "$src" "$work/src"
chmod -R u+w "$work/src"
mkdir -p "$work/src/cmd/berth-trainer"
cp "$root/scripts/trainer/main.go" "$work/src/cmd/berth-trainer/main.go"
(cd "$work/src" && "$go_bin" mod edit -replace "sigs.k8s.io/jobset=$jobset" \
  && GOFLAGS=-mod=mod "$go_bin" build -trimpath -ldflags "-s -w" \
    -o "$work/trainer-controller-manager" ./cmd/berth-trainer)

mkdir -p "$dest/crds"
install -m 0644 "$src"/manifests/base/crds/trainer.kubeflow.org_*.yaml "$dest/crds/"
# The binary last: its presence is what says the install is complete.
install -m 0755 "$work/trainer-controller-manager" "$dest/"
echo "trainer-binary: installed into $dest"
