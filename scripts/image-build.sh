#!/usr/bin/env bash
# Builds the operator's OCI image without a container daemon, from Debian's packages only:
#   1. base layer: image/packages extracted by mmdebstrap, and a Java runtime that jlink cuts
#      from Debian's openjdk-17-jdk-headless (run in a chroot of that package) — image/rootfs.sh;
#   2. app layer: operator/target/berth-operator.jar at /app/berth-operator.jar;
#   3. umoci writes the OCI layout with the configuration of image/Dockerfile's final stage.
# Output: target/image/oci (OCI layout, tag = the chart's appVersion) and
# target/image/berth-<tag>.oci.tar (the same as one file, for skopeo, podman load, ctr import).
#
# Reproducible: layer files carry fixed times (the base layer the time of the last commit of
# image/, the app layer and the config SOURCE_DATE_EPOCH or the time of the HEAD commit), tar
# entries are sorted with fixed owners, so the same jar and the same Debian packages give the
# same digest. The base layer is cached in $BERTH_IMAGE_CACHE (default ~/.cache/berth-image) by
# the hash of its inputs; BERTH_IMAGE_REFRESH=1 rebuilds it to pick up Debian's updates.
#
# Usage: scripts/image-build.sh [--out DIR] [--jar FILE]     (as root: mmdebstrap, chroot)
set -euo pipefail
umask 022
cd "$(dirname "$0")/.."
repo=$(pwd)
out=target/image
jar=operator/target/berth-operator.jar
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --jar) jar=$2; shift 2 ;;
    *) echo "usage: $0 [--out DIR] [--jar FILE]" >&2; exit 2 ;;
  esac
done
cache="${BERTH_IMAGE_CACHE:-$HOME/.cache/berth-image}"
started=$(date +%s)

fail() { echo "image-build: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "run as root (mmdebstrap --mode=root, chroot and a /proc mount for jlink)"
[ -f "$jar" ] || fail "$jar is missing: build it first (./mvnw -B -DskipTests package)"
bash scripts/image-tools.sh

tag=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' helm/berth/Chart.yaml)
[ -n "$tag" ] || fail "no appVersion in helm/berth/Chart.yaml"
epoch_of() { git log -1 --format=%ct "$@" 2>/dev/null || true; }
base_epoch=$(epoch_of -- image scripts/image-build.sh)
base_epoch=${base_epoch:-0}
image_epoch=${SOURCE_DATE_EPOCH:-$(epoch_of)}
image_epoch=${image_epoch:-0}
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }

# A tar whose bytes depend only on the tree's content: sorted names, fixed times, numeric owners,
# no atime/ctime/xattrs.
stable_tar() { # DIR FILE [PATH...]
  local dir=$1 file=$2 epoch=$3
  shift 3
  tar --create --file "$file" --directory "$dir" --sort=name --format=posix \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
    --mtime="@$epoch" --numeric-owner --no-xattrs --no-acls --no-selinux "$@"
}

mirrors=()
while IFS= read -r line; do mirrors+=("$line"); done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' image/sources.list)
debian() { # ROOT [mmdebstrap options...]: an extracted (not installed) bookworm root
  local root=$1
  shift
  SOURCE_DATE_EPOCH=$base_epoch mmdebstrap --quiet --mode=root --variant=extract \
    --skip=cleanup/apt/cache "$@" bookworm "$root" "${mirrors[@]}"
}

build_base() { # FILE
  local work
  work=$(mktemp -d /tmp/berth-image.XXXXXX)
  # shellcheck disable=SC2064
  trap "umount '$work/jdk/proc' 2>/dev/null || true; rm -rf '$work'" EXIT
  echo "image-build: base layer: OpenJDK 17 from Debian, jlink (about a minute)"
  debian "$work/jdk" --include=openjdk-17-jdk-headless
  mkdir -p "$work/jdk/proc"
  # The JDK's launcher finds its libraries through /proc/self/exe.
  mount -t proc proc "$work/jdk/proc"
  JLINK_CHROOT="$work/jdk" sh image/rootfs.sh jlink /usr/lib/jvm/java-17-openjdk-amd64 /opt/java
  umount "$work/jdk/proc"
  echo "image-build: base layer: $(sh image/rootfs.sh list image/packages | paste -sd' ' -)"
  debian "$work/rootfs" --include="$(sh image/rootfs.sh list image/packages | paste -sd, -)"
  mkdir -p "$work/rootfs/opt"
  cp -a "$work/jdk/opt/java" "$work/rootfs/opt/java"
  # Recorded in the image's package list: where /opt/java comes from.
  cp "$work/jdk"/var/cache/apt/archives/openjdk-17-j[dr][ke]-headless_*.deb \
    "$work/rootfs/var/cache/apt/archives/"
  sh image/rootfs.sh finish "$work/rootfs"
  stable_tar "$work/rootfs" "$1.tmp" "$base_epoch" .
  (cd "$work/rootfs/var/lib/dpkg/status.d" && for p in *; do
     printf '%s %s\n' "$p" "$(sed -n 's/^Version: //p' "$p")"; done) > "$1.packages"
  mv "$1.tmp" "$1"
  rm -rf "$work"
  trap - EXIT
}

key=$( (cat image/packages image/jdk-modules image/sources.list image/rootfs.sh \
          scripts/image-build.sh; echo "$base_epoch") | sha256sum | cut -c1-16)
base="$cache/base-$key.tar"
mkdir -p "$cache"
if [ ! -f "$base" ] || [ "${BERTH_IMAGE_REFRESH:-0}" = 1 ]; then
  build_base "$base"
else
  echo "image-build: base layer from cache ($base)"
fi
# Older base layers (other inputs) only take space.
find "$cache" -maxdepth 1 -name 'base-*.tar*' ! -name "base-$key.tar*" -delete

# The app layer: the shaded jar, nothing else.
mkdir -p "$out"
out=$(cd "$out" && pwd)
app="$out/app"
rm -rf "$app" "$out/oci" "$out/app.tar"
mkdir -p "$app/app"
cp "$jar" "$app/app/berth-operator.jar"
chmod 0644 "$app/app/berth-operator.jar"
stable_tar "$app" "$out/app.tar" "$image_epoch" --owner=0 --group=0 app

# The image configuration: the final stage of image/Dockerfile, instruction by instruction.
config=(--created="$(iso "$image_epoch")" --os=linux --architecture=amd64
  --history.created="$(iso "$image_epoch")" --history.created_by="image/Dockerfile final stage"
  --manifest.annotation="org.opencontainers.image.version=$tag"
  --manifest.annotation="org.opencontainers.image.revision=$revision"
  --config.label="org.opencontainers.image.version=$tag"
  --config.label="org.opencontainers.image.revision=$revision")
final=$(awk '/^FROM /{stage=""} {stage=stage $0 "\n"} END{printf "%s", stage}' image/Dockerfile)
while IFS= read -r line; do
  instruction=${line%% *}
  args=${line#* }
  case "$instruction" in
    ''|'#'*|FROM|COPY) ;; # the root filesystem is the base layer above
    USER) config+=(--config.user="$args") ;;
    WORKDIR) config+=(--config.workingdir="$args") ;;
    ENV) config+=(--config.env="$args") ;;
    EXPOSE) config+=(--config.exposedports="$args") ;;
    LABEL)
      name=${args%%=*}; value=${args#*=}; value=${value#\"}; value=${value%\"}
      config+=(--config.label="$name=$value") ;;
    ENTRYPOINT)
      # A JSON array of plain strings: ["a", "b"].
      json=${args#[}; json=${json%]}
      IFS=',' read -r -a words <<< "$json"
      for word in "${words[@]}"; do
        word=${word#"${word%%[![:space:]]*}"}; word=${word%"${word##*[![:space:]]}"}
        word=${word#\"}; word=${word%\"}
        config+=(--config.entrypoint="$word")
      done ;;
    *) fail "image/Dockerfile: $instruction in the final stage is not understood by this script" ;;
  esac
done <<< "$final"

oci="$out/oci"
umoci init --layout "$oci"
umoci new --image "$oci:$tag"
umoci raw add-layer --image "$oci:$tag" --history.created="$(iso "$base_epoch")" \
  --history.created_by="image/rootfs.sh: image/packages and OpenJDK 17 (jlink) from Debian" "$base"
umoci raw add-layer --image "$oci:$tag" --history.created="$(iso "$image_epoch")" \
  --history.created_by="operator/target/berth-operator.jar" "$out/app.tar"
umoci config --image "$oci:$tag" "${config[@]}"
umoci gc --layout "$oci"
rm -rf "$app" "$out/app.tar"
cp "$base.packages" "$out/packages.txt"

archive="$out/berth-$tag.oci.tar"
stable_tar "$oci" "$archive" "$image_epoch" --owner=0 --group=0 .
digest=$(grep -o '"digest":"sha256:[0-9a-f]*"' "$oci/index.json" | head -n1 | cut -d'"' -f4)
echo "$digest" > "$out/digest"
compressed=$(du -cb "$oci"/blobs/sha256/* | tail -n1 | cut -f1)
uncompressed=$(( $(stat -c %s "$base") + $(stat -c %s "$jar") ))
echo "image-build: berth:$tag $digest"
echo "image-build: $(( compressed / 1000000 )) MB compressed, $(( uncompressed / 1000000 )) MB" \
  "unpacked; $oci and $archive; $(( $(date +%s) - started )) s"
