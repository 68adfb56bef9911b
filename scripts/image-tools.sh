#!/usr/bin/env bash
# Installs what the image build and the container test need, from Debian's packages only:
# mmdebstrap (root filesystems from .debs), umoci (OCI layouts), runc (the OCI runtime the
# container test starts the image with), skopeo and docker-registry (the test pushes the image
# to a registry on 127.0.0.1, as the README tells users to push it). Idempotent: installs
# nothing when all are present. Called by scripts/image-build.sh (so by the Maven profile
# "image" that .ci/run uses), because a fresh machine has none of them.
# With --node, also what a real node needs besides the kubelet (scripts/real-node-e2e.sh):
# containerd (the runtime the kubelet talks CRI to), the CNI plugins (bridge, host-local,
# portmap: the Pod network), iptables and conntrack (kube-proxy's Service rules).
set -euo pipefail

need=()
if [ "${1:-}" = --node ]; then
  command -v containerd >/dev/null 2>&1 || need+=(containerd)
  [ -x /usr/lib/cni/bridge ] || need+=(containernetworking-plugins)
  command -v iptables >/dev/null 2>&1 || need+=(iptables)
  command -v conntrack >/dev/null 2>&1 || need+=(conntrack)
fi
command -v mmdebstrap >/dev/null 2>&1 || need+=(mmdebstrap)
command -v umoci >/dev/null 2>&1 || need+=(umoci)
command -v runc >/dev/null 2>&1 || need+=(runc)
command -v skopeo >/dev/null 2>&1 || need+=(skopeo)
command -v docker-registry >/dev/null 2>&1 || need+=(docker-registry)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "image-tools: missing ${need[*]}; install them (apt-get install ${need[*]}) or run as root" >&2
  exit 1
fi
echo "image-tools: installing ${need[*]} from Debian's packages"
export DEBIAN_FRONTEND=noninteractive
# The package lists of a fresh machine are empty or old.
apt-get update -qq
# --no-install-recommends: nothing more than asked for; containerd's service is not started here
# (no systemd), real-node-e2e.sh runs containerd itself with a configuration of its own.
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
