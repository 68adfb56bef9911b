#!/bin/sh
# The steps of the image's root filesystem that scripts/image-build.sh and the Dockerfile share,
# so that the two build the same runtime and the same /etc:
#   rootfs.sh jlink JDK_HOME OUT   the Java runtime: Debian's OpenJDK 17 cut down by jlink
#                                  (with JLINK_CHROOT=DIR: the JDK and OUT are inside DIR)
#   rootfs.sh finish ROOT          users, groups and clean-up of an extracted Debian root
#   rootfs.sh list FILE            the entries of a list file (image/packages, image/jdk-modules)
# POSIX sh: the Dockerfile runs it in a debian:bookworm-slim stage, image-build.sh on the host.
set -eu
here=$(dirname "$0")

# JVM defaults for a container, written into the runtime itself (lib/modules), so that they hold
# without any flag and JAVA_TOOL_OPTIONS or the command line still override them: the Serial
# collector, the heap 50% of the cgroup memory limit (the JVM reads the limit;
# UseContainerSupport is on by default; the ~190 MiB the operator uses outside the heap need the
# rest, see docs/benchmarks.md "Operator memory"), an OutOfMemoryError ends the process so that
# the kubelet restarts it instead of leaving a half-working operator, the heap grows only when
# less than 20% of it is free after a full collection (not 40%), the memory malloc holds free is
# given back to the system every 5 s, Netty keeps one buffer arena of each kind (not one per core;
# docs/helm.md#memory says what these three save), and text is UTF-8 whatever the (absent) locale
# says. The JIT compilers keep the JVM's defaults (docs/helm.md#jvm-options: a flag is a default
# only once measured on three loads). The chart's jvmOptions repeat all but the last
# (ChartMemoryBudgetIT, ImageInContainerIT).
JVM_OPTIONS="-XX:+UseSerialGC -XX:MaxRAMPercentage=50 -XX:+ExitOnOutOfMemoryError"
JVM_OPTIONS="$JVM_OPTIONS -XX:MinHeapFreeRatio=20 -XX:TrimNativeHeapInterval=5000"
JVM_OPTIONS="$JVM_OPTIONS -Dio.netty.allocator.numDirectArenas=1 -Dio.netty.allocator.numHeapArenas=1"
JVM_OPTIONS="$JVM_OPTIONS -Dfile.encoding=UTF-8"

list() {
  sed -e 's/#.*//' -e 's/[[:space:]]//g' "$1" | grep -v '^$'
}

case "${1:-}" in
  list)
    list "$2"
    ;;
  jlink)
    jdk=$2
    out=$3
    # --strip-java-debug-attributes, not --strip-debug: Debian's libraries are stripped already
    # and the native half of --strip-debug needs objcopy. No CDS archive: it is not reproducible.
    ${JLINK_CHROOT:+chroot "$JLINK_CHROOT"} "$jdk/bin/jlink" \
      --add-modules "$(list "$here/jdk-modules" | paste -sd, -)" \
      --strip-java-debug-attributes --no-man-pages --no-header-files --compress=2 \
      --add-options="$JVM_OPTIONS" \
      --output "$out"
    ;;
  finish)
    root=$2
    # root and the unprivileged user the operator runs as (65532, as distroless' "nonroot").
    # The chart runs the container with runAsUser 65532 and a read-only root filesystem.
    mkdir -p "$root/etc" "$root/home/nonroot" "$root/tmp" "$root/app"
    printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' \
      > "$root/etc/passwd"
    printf 'root:x:0:\nnonroot:x:65532:\n' > "$root/etc/group"
    printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$root/etc/nsswitch.conf"
    chmod 1777 "$root/tmp"
    chown 65532:65532 "$root/home/nonroot"
    # What scanners read to list the image's packages (as distroless does): the control fields
    # of each extracted .deb, one file per package. The image has no dpkg database otherwise.
    mkdir -p "$root/var/lib/dpkg/status.d"
    for deb in "$root"/var/cache/apt/archives/*.deb; do
      [ -e "$deb" ] || continue
      name=$(dpkg-deb -f "$deb" Package)
      dpkg-deb -f "$deb" Package Version Architecture Source Installed-Size Maintainer \
        > "$root/var/lib/dpkg/status.d/$name"
    done
    # Documentation, except the copyright files the licenses ask to ship; apt's and dpkg's
    # state of the extraction (the image has no package manager).
    find "$root/usr/share/doc" -mindepth 2 ! -name copyright ! -type d -delete 2>/dev/null || true
    find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete 2>/dev/null || true
    rm -rf "$root/usr/share/man" "$root/usr/share/info" "$root/usr/share/lintian" \
      "$root/usr/share/locale" "$root/usr/share/gcc" "$root/usr/share/gdb" \
      "$root/var/lib/apt" "$root/var/cache/"* "$root/var/log/"* "$root/etc/apt" \
      "$root/var/lib/dpkg/alternatives" "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/triggers" \
      "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/arch" "$root/var/lib/dpkg/status"
    ;;
  *)
    echo "usage: $0 jlink JDK_HOME OUT | finish ROOT | list FILE" >&2
    exit 2
    ;;
esac
