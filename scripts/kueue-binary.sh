#!/usr/bin/env bash
# Builds the Kueue manager (sigs.k8s.io/kueue, cmd/kueue) of the pinned version from the Go module
# proxy and installs it, with that version's CRDs and webhook manifests (both are inside the
# module), where the suite's harness looks:
#   <KUBE_API_TEST_DIR or ~/.kubeapitest>/kueue/v<version>/{kueue-manager,kueue-crds.yaml,
#   kueue-webhooks.yaml,LICENSE}
# (dev.berth.e2e.kueue.KueueManager). KueueMigrationE2EIT migrates from that real Kueue to Berth;
# without the binary it fails, saying to run this script.
# Idempotent: does nothing when the binary is already there.
# --optional: when the module cannot be had (no Go, or the proxy does not serve it), say so loudly
# and exit 0; when it is there but does not build, exit 1 all the same. Without --optional, a
# missing module is an error too.
set -euo pipefail

# The one place the Kueue version is pinned (KueueManager.java reads the same path).
KUEUE_VERSION="0.17.0"

optional=false
[ "${1:-}" = "--optional" ] && optional=true
base="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}"
dest="$base/kueue/v${KUEUE_VERSION}"
mkdir -p "$base"
exec 9>"$base/.kueue-binary.lock"
if ! flock -n 9; then
  echo "kueue-binary: another build is running; waiting for it"
  flock 9
fi
if [ -x "$dest/kueue-manager" ] && [ -f "$dest/kueue-crds.yaml" ] && [ -f "$dest/kueue-webhooks.yaml" ]; then
  echo "kueue-binary: using cached $dest/kueue-manager"
  exit 0
fi

unavailable() {
  if $optional; then
    cat <<MSG
kueue-binary: ************************************************************************************
kueue-binary: NO KUEUE v${KUEUE_VERSION}: $1
kueue-binary: KueueMigrationE2EIT, which migrates from a real Kueue, fails until this script
kueue-binary: has built it.
kueue-binary: ************************************************************************************
MSG
    exit 0
  fi
  echo "kueue-binary: $1" >&2
  exit 1
}

command -v go >/dev/null 2>&1 ||
  unavailable "$dest/kueue-manager is missing and 'go' is not on PATH (Go 1.25 or newer builds it)."

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export CGO_ENABLED=0
# The module's source, from the machine's Go proxy (GOPROXY as configured), checksummed by go.sum.
if ! module="$(cd "$work" && GOFLAGS="-mod=mod ${GOFLAGS:-}" go mod download -json "sigs.k8s.io/kueue@v${KUEUE_VERSION}")"; then
  unavailable "the Go proxy does not serve sigs.k8s.io/kueue@v${KUEUE_VERSION}."
fi
src="$(printf '%s\n' "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[ -f "$src/cmd/kueue/main.go" ] || { echo "kueue-binary: no cmd/kueue/main.go in '$src'" >&2; exit 1; }

echo "kueue-binary: building Kueue v${KUEUE_VERSION} into $dest (first run only; about 10-20 minutes on 2 cores)"
# go install of a versioned package builds it with exactly the dependency versions Kueue's own
# go.mod lists, outside any module of ours; the version is stamped as Kueue's Makefile does.
GOBIN="$work/out" GOFLAGS="-mod=mod ${GOFLAGS:-}" go install -trimpath \
  -ldflags "-s -w -X sigs.k8s.io/kueue/pkg/version.GitVersion=v${KUEUE_VERSION}" \
  "sigs.k8s.io/kueue/cmd/kueue@v${KUEUE_VERSION}"

mkdir -p "$dest"
# Every CRD of the release, one multi-document file, as its manifests install them (their
# conversion webhooks are added by the harness, which knows the webhook's address).
for crd in "$src"/config/components/crd/bases/*.yaml; do
  printf -- '---\n'
  cat "$crd"
done >"$work/kueue-crds.yaml"
install -m 0644 "$work/kueue-crds.yaml" "$dest/kueue-crds.yaml"
install -m 0644 "$src/config/components/webhook/manifests.yaml" "$dest/kueue-webhooks.yaml"
install -m 0644 "$src/LICENSE" "$dest/LICENSE"
install -m 0755 "$work/out/kueue" "$dest/kueue-manager"
echo "kueue-binary: installed into $dest"
