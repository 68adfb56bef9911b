#!/usr/bin/env bash
# Builds the pod sandbox ("pause") image a real node needs, locally: no registry is reachable
# from these machines, so registry.k8s.io/pause cannot be pulled. The image holds one static Go
# binary, /pause, that does what Kubernetes' pause.c does: it holds the Pod's namespaces open,
# reaps zombies (it is PID 1 of the sandbox) and exits on SIGINT or SIGTERM. Packaged with umoci
# as an OCI archive, with fixed file times, so the same Go toolchain gives the same digest.
#
# Output (cached): <KUBE_API_TEST_DIR or ~/.kubeapitest>/pause/<version>/pause.oci.tar, an OCI
# archive whose one tag is <version>; import it with
#   ctr -n k8s.io images import --base-name localhost/berth-pause pause.oci.tar
# which names it localhost/berth-pause:<version> (containerd's sandbox_image in
# scripts/real-node-e2e.sh). Prints the archive's path on its last line.
set -euo pipefail

PAUSE_VERSION="1.0"
base="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}"
dest="$base/pause/$PAUSE_VERSION"
mkdir -p "$base"
exec 9>"$base/.node-pause-image.lock"
if ! flock -n 9; then
  echo "node-pause-image: another build is running; waiting for it" >&2
  flock 9
fi
if [ -f "$dest/pause.oci.tar" ]; then
  echo "$dest/pause.oci.tar"
  exit 0
fi
for tool in go umoci; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "node-pause-image: '$tool' is not on PATH (Go 1.26+; umoci: scripts/image-tools.sh)" >&2
    exit 1
  }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/layer"
cat > "$work/src/main.go" <<'GO'
// pause: PID 1 of a Kubernetes Pod sandbox. It only has to exist (the Pod's network and IPC
// namespaces live as long as it does), reap the zombies that are reparented to it, and leave
// when the runtime stops the sandbox.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if os.Getpid() != 1 {
		fmt.Fprintln(os.Stderr, "pause: warning: not PID 1, zombies are not reaped here")
	}
	signals := make(chan os.Signal, 16)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			fmt.Fprintf(os.Stderr, "pause: shutting down, got %v\n", s)
			os.Exit(0)
		}
		for {
			var status syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
GO
(cd "$work/src" && go mod init berth.dev/pause >/dev/null 2>&1 &&
  CGO_ENABLED=0 GOFLAGS= go build -trimpath -ldflags "-s -w" -o "$work/layer/pause" .)
chmod 0755 "$work/layer/pause"
epoch=0
tar --create --file "$work/layer.tar" --directory "$work/layer" --sort=name --format=posix \
  --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime --mtime="@$epoch" \
  --owner=0 --group=0 --numeric-owner pause
oci="$work/oci"
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)
umoci init --layout "$oci"
umoci new --image "$oci:$PAUSE_VERSION"
umoci raw add-layer --image "$oci:$PAUSE_VERSION" --history.created="$created" \
  --history.created_by="scripts/node-pause-image.sh" "$work/layer.tar"
# 65535, like Kubernetes' pause image: the sandbox needs no privilege.
umoci config --image "$oci:$PAUSE_VERSION" --created="$created" --os=linux --architecture=amd64 \
  --config.user=65535:65535 --config.entrypoint=/pause \
  --history.created="$created" --history.created_by="scripts/node-pause-image.sh"
umoci gc --layout "$oci"
mkdir -p "$dest"
tar --create --file "$dest/pause.oci.tar.tmp" --directory "$oci" --sort=name --format=posix \
  --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime --mtime="@$epoch" \
  --owner=0 --group=0 --numeric-owner .
mv "$dest/pause.oci.tar.tmp" "$dest/pause.oci.tar"
echo "node-pause-image: built $(du -h "$dest/pause.oci.tar" | cut -f1) $dest/pause.oci.tar" >&2
echo "$dest/pause.oci.tar"
