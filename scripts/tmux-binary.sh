#!/usr/bin/env bash
# Makes sure tmux is installed: KubectlBerthE2EIT types `kubectl berth ...` into a tmux pane, as
# a user would, and reads the pane. Installs Debian's tmux package with apt-get when it is
# missing (apt-get update first). Idempotent: does nothing when tmux is on PATH.
set -euo pipefail

if command -v tmux >/dev/null 2>&1; then
  echo "tmux-binary: using $(command -v tmux) ($(tmux -V))"
  exit 0
fi
base="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}"
mkdir -p "$base"
# Parallel builds wait for the first install and then find its result.
exec 9>"$base/.tmux-binary.lock"
flock 9
if command -v tmux >/dev/null 2>&1; then
  echo "tmux-binary: installed meanwhile: $(command -v tmux)"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
  echo "tmux-binary: tmux is missing; install it (e.g. apt-get install tmux) and rerun" >&2
  exit 1
fi
echo "tmux-binary: installing tmux with apt-get"
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q tmux
tmux -V
