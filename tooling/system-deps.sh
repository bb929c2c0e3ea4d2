#!/usr/bin/env bash
# Installs the Debian packages listed in tooling/apt-packages.txt that are missing (bubblewrap for the
# sandbox, ripgrep for grep, tmux for driving the CLI in tests). Needs root and apt-get; elsewhere it
# says what is missing and carries on, and the tests that need a missing program say so.
set -euo pipefail
list="$(dirname "${BASH_SOURCE[0]}")/apt-packages.txt"
[ -f "$list" ] || exit 0
missing=()
while read -r pkg bin; do
  case "$pkg" in ''|'#'*) continue ;; esac
  command -v "${bin:-$pkg}" >/dev/null 2>&1 || missing+=("$pkg")
done < "$list"
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "[system-deps] installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
else
  echo "[system-deps] missing Debian packages: ${missing[*]} (install them to run every test)" >&2
fi
