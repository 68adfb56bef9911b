#!/usr/bin/env bash
# Builds the Kubeflow training operator (github.com/kubeflow/training-operator, the v1 job
# controllers: PyTorchJob, MPIJob and the others) from the Go module proxy and installs it, with
# the same version's PyTorchJob and MPIJob CRDs (manifests/base/crds/ in the module), where the
# control-plane harness looks:
#   <KUBE_API_TEST_DIR or ~/.kubeapitest>/training-operator/v<version>/
#     {training-operator, pytorchjob-crd.yaml, mpijob-crd.yaml}
# (dev.berth.local.TrainingOperator). The binary is the operator's own controllers started by
# scripts/training-operator/main.go instead of the module's cmd/training-operator.v1, which cannot
# start outside a Pod (its certificate rotator waits for a Secret and a fixed /tmp directory before
# any controller starts): same flags, no webhooks (docs/kubeflow.md).
# Idempotent: does nothing when the binary is already there.
# --optional: accepted for symmetry with scripts/jobset-binary.sh, but the module proxy is this
# machine's ordinary Go setup, not ../shared: a failed download or build is an error either way.
set -euo pipefail

# The one place the training operator's version is pinned (TrainingOperator.java reads the path).
TRAINING_OPERATOR_VERSION="1.8.1"
MODULE="github.com/kubeflow/training-operator"

root="$(cd "$(dirname "$0")/.." && pwd)"
base="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}"
dest="$base/training-operator/v${TRAINING_OPERATOR_VERSION}"
mkdir -p "$base"
exec 9>"$base/.training-operator-binary.lock"
if ! flock -n 9; then
  echo "training-operator-binary: another build is running; waiting for it"
  flock 9
fi
if [ -x "$dest/training-operator" ] && [ -f "$dest/pytorchjob-crd.yaml" ] && [ -f "$dest/mpijob-crd.yaml" ]; then
  echo "training-operator-binary: using cached $dest/training-operator"
  exit 0
fi
go_bin="$(command -v go || true)"
[ -z "$go_bin" ] && [ -x /usr/local/go/bin/go ] && go_bin=/usr/local/go/bin/go
if [ -z "$go_bin" ]; then
  cat >&2 <<MSG
training-operator-binary: $dest/training-operator is missing and 'go' is not on PATH.
Install Go (1.22 or newer) and rerun.
MSG
  exit 1
fi

work="$(mktemp -d)"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
export CGO_ENABLED=0
echo "training-operator-binary: building ${MODULE} v${TRAINING_OPERATOR_VERSION} into $dest (first run only; several minutes on 2 cores)"
src="$("$go_bin" mod download -json "${MODULE}@v${TRAINING_OPERATOR_VERSION}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
if [ -z "$src" ] || [ ! -f "$src/go.mod" ]; then
  echo "training-operator-binary: the Go module proxy did not serve ${MODULE}@v${TRAINING_OPERATOR_VERSION}" >&2
  exit 1
fi
# Built inside a copy of the module (the module cache is read-only), with exactly the versions its
# go.sum pins; our main beside its own.
cp -r "$src" "$work/src"
chmod -R u+w "$work/src"
mkdir -p "$work/src/cmd/berth-training-operator"
cp "$root/scripts/training-operator/main.go" "$work/src/cmd/berth-training-operator/main.go"
(cd "$work/src" && GOFLAGS=-mod=mod "$go_bin" build -trimpath -ldflags "-s -w" \
  -o "$work/training-operator" ./cmd/berth-training-operator)

mkdir -p "$dest"
install -m 0644 "$src/manifests/base/crds/kubeflow.org_pytorchjobs.yaml" "$dest/pytorchjob-crd.yaml"
install -m 0644 "$src/manifests/base/crds/kubeflow.org_mpijobs.yaml" "$dest/mpijob-crd.yaml"
install -m 0755 "$work/training-operator" "$dest/"
echo "training-operator-binary: installed into $dest"
