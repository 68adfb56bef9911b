#!/usr/bin/env bash
# Installs what a real node needs besides the kubelet, from Debian's packages only: containerd
# (the container runtime the kubelet talks CRI to), runc (the OCI runtime under it), the CNI
# plugins (bridge, host-local, loopback, portmap: the Pod network) and iptables (kube-proxy's
# Service rules). Idempotent: installs nothing when all are present. Called by
# scripts/real-node-e2e.sh.
set -euo pipefail

need=()
command -v containerd >/dev/null 2>&1 || need+=(containerd)
command -v runc >/dev/null 2>&1 || need+=(runc)
[ -x /usr/lib/cni/bridge ] || need+=(containernetworking-plugins)
command -v iptables >/dev/null 2>&1 || need+=(iptables)
command -v conntrack >/dev/null 2>&1 || need+=(conntrack)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "node-tools: missing ${need[*]}; install them (apt-get install ${need[*]}) or run as root" >&2
  exit 1
fi
echo "node-tools: installing ${need[*]} from Debian's packages"
export DEBIAN_FRONTEND=noninteractive
# The package lists of a fresh machine are empty or old.
apt-get update -qq
# --no-install-recommends keeps containerd's service from being enabled with a default config of
# its own; real-node-e2e.sh starts containerd itself with a config it writes.
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
