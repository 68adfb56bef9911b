#!/usr/bin/env bash
# Checks that the image build is reproducible (as root, after scripts/image-build.sh, which
# `./mvnw -B -Pimage verify` runs): builds the image again with the base layer made from scratch
# (mmdebstrap and jlink again, in a cache of its own) and fails unless it gives the digest and
# the archive bytes of target/image.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
[ -f target/image/digest ] || bash scripts/image-build.sh
first=$(cat target/image/digest)
again=$(mktemp -d /tmp/berth-image-again.XXXXXX)
trap 'rm -rf "$again"' EXIT
BERTH_IMAGE_CACHE="$again/cache" bash scripts/image-build.sh --out "$again/out"
second=$(cat "$again/out/digest")
if [ "$first" != "$second" ]; then
  echo "image-reproducible: FAILED: $first, then $second from scratch" >&2
  exit 1
fi
cmp target/image/berth-*.oci.tar "$again"/out/berth-*.oci.tar
echo "image-reproducible: $first twice, the second base layer built from scratch;" \
  "$(( $(date +%s) - started )) s"
