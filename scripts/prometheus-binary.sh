#!/usr/bin/env bash
# Installs Prometheus from Debian's package (`prometheus`, /usr/bin/prometheus) for the
# end-to-end test of the DCGM join (UtilizationE2EIT), which starts a real Prometheus server of
# its own. Idempotent: does nothing when a prometheus binary is already on PATH (or at
# $BERTH_PROMETHEUS). Serialised with a flock lock, because several builds may share a machine
# and apt/dpkg allow one installer at a time.
set -euo pipefail

if [ -n "${BERTH_PROMETHEUS:-}" ] && [ -x "$BERTH_PROMETHEUS" ]; then
  exit 0
fi
if command -v prometheus >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  cat >&2 <<MSG
prometheus-binary: no 'prometheus' on PATH, and installing Debian's package needs root.
Run as root, or 'apt-get install prometheus' yourself, or set BERTH_PROMETHEUS to a Prometheus
2.x binary. UtilizationE2EIT fails without it.
MSG
  exit 1
fi
base="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}"
mkdir -p "$base"
exec 9>"$base/.prometheus-binary.lock"
if ! flock -n 9; then
  echo "prometheus-binary: another install is running; waiting for it"
  flock 9
fi
if command -v prometheus >/dev/null 2>&1; then
  exit 0
fi
echo "prometheus-binary: installing Debian's prometheus package"
export DEBIAN_FRONTEND=noninteractive
# The package lists of a fresh machine are empty or old.
if ! apt-get update -qq || ! apt-get install -y -qq --no-install-recommends prometheus \
    >/dev/null; then
  echo "prometheus-binary: apt-get could not install 'prometheus' (no network or no" \
    "Debian mirror?); UtilizationE2EIT fails without it" >&2
  exit 1
fi
# The package's post-install script may start its own server (systemd or init.d) on :9090;
# the test starts its own on a free port and needs no service.
command -v prometheus >/dev/null 2>&1 || {
  echo "prometheus-binary: the package installed, but 'prometheus' is not on PATH" >&2
  exit 1
}
