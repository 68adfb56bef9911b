#!/usr/bin/env bash
# Installs the kubectl plugin `kubectl berth` from this repository (docs/kubectl-plugin.md):
#   scripts/install-kubectl-berth.sh [DIR]      (DIR defaults to ~/.local/bin; must be on PATH)
# Builds kubectl-plugin/ (one jar with Jackson inside), copies it to DIR/kubectl-berth.d/,
# creates an AppCDS archive of the classes a command loads (for this JVM: the launcher names
# it), and writes the launcher DIR/kubectl-berth, which kubectl finds as the plugin "berth".
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:-$HOME/.local/bin}"
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
if ! command -v "$java_bin" >/dev/null 2>&1; then
  echo "install-kubectl-berth: no java found (need Java 17 or later; set JAVA_HOME)" >&2
  exit 1
fi
java_bin="$(command -v "$java_bin")"

jar="${KUBECTL_BERTH_JAR:-}"
if [ -z "$jar" ]; then
  echo "install-kubectl-berth: building kubectl-plugin/ ..."
  # Offline first (a developer's filled ~/.m2), then with the network. Tests are skipped, which
  # also skips the root pom's download of the test binaries.
  if ! (cd "$repo" && ./mvnw -B -q -o -pl kubectl-plugin -am package -DskipTests >/dev/null 2>&1); then
    (cd "$repo" && ./mvnw -B -q -pl kubectl-plugin -am package -DskipTests)
  fi
  jar="$repo/kubectl-plugin/target/kubectl-berth.jar"
elif [ ! -f "$jar" ]; then
  # KUBECTL_BERTH_JAR: a jar the build already made (the end-to-end test passes the reactor's).
  echo "install-kubectl-berth: KUBECTL_BERTH_JAR=$jar does not exist" >&2
  exit 1
fi

lib="$dir/kubectl-berth.d"
mkdir -p "$lib"
cp "$jar" "$lib/kubectl-berth.jar"

# The JVM flags of every run; the archive must be made and used with the same ones.
flags=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k)
rm -f "$lib/kubectl-berth.jsa"
"$java_bin" "${flags[@]}" -XX:ArchiveClassesAtExit="$lib/kubectl-berth.jsa" \
  -jar "$lib/kubectl-berth.jar" __cds-training >/dev/null 2>"$lib/cds.log" || {
  echo "install-kubectl-berth: AppCDS archive not created (see $lib/cds.log); runs without it" >&2
}

cat > "$dir/kubectl-berth" <<LAUNCHER
#!/bin/sh
# kubectl berth: written by scripts/install-kubectl-berth.sh. The archive is for this JVM;
# with another one the JVM ignores it (-Xshare:auto) and starts slower.
exec "$java_bin" ${flags[*]} -Xshare:auto -XX:SharedArchiveFile="$lib/kubectl-berth.jsa" \\
  -Xlog:cds=off -Xlog:cds+dynamic=off -jar "$lib/kubectl-berth.jar" "\$@"
LAUNCHER
chmod +x "$dir/kubectl-berth"
echo "install-kubectl-berth: installed $dir/kubectl-berth (try: kubectl berth queues)"
case ":$PATH:" in
  *":$dir:"*) ;;
  *) echo "install-kubectl-berth: $dir is not on PATH; kubectl finds plugins on PATH" >&2 ;;
esac
