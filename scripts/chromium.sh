#!/usr/bin/env bash
# Installs Debian's `chromium` package (/usr/bin/chromium) for the dashboard's browser test
# (DashboardE2EIT), which drives a real headless Chromium over the DevTools protocol.
# Idempotent: does nothing when a chromium binary is already on PATH (or at $BERTH_CHROMIUM).
# Serialised with a flock lock, because several builds may share a machine and apt/dpkg allow
# one installer at a time. Debian follows Chromium's stable releases, so the version is the one
# of the Debian release the machine runs (bookworm: 156.x); the test needs only the DevTools
# protocol, which is stable across those versions.
set -euo pipefail

if [ -n "${BERTH_CHROMIUM:-}" ] && [ -x "$BERTH_CHROMIUM" ]; then
  exit 0
fi
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  cat >&2 <<MSG
chromium: no 'chromium' on PATH, and installing Debian's package needs root.
Run as root, or 'apt-get install chromium' yourself, or set BERTH_CHROMIUM to a Chromium or
Chrome binary. DashboardE2EIT fails without it.
MSG
  exit 1
fi
base="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}"
mkdir -p "$base"
exec 9>"$base/.chromium.lock"
if ! flock -n 9; then
  echo "chromium: another install is running; waiting for it"
  flock 9
fi
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
echo "chromium: installing Debian's chromium package (about 100 MB with its libraries)"
export DEBIAN_FRONTEND=noninteractive
# The package lists of a fresh machine are empty or old.
if ! apt-get update -qq || ! apt-get install -y -qq --no-install-recommends chromium \
    fonts-dejavu-core >/dev/null; then
  echo "chromium: apt-get could not install 'chromium' (no network or no Debian mirror?);" \
    "DashboardE2EIT fails without it" >&2
  exit 1
fi
command -v chromium >/dev/null 2>&1 || {
  echo "chromium: the package installed, but 'chromium' is not on PATH" >&2
  exit 1
}
