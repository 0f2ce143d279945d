#!/usr/bin/env bash
# The tests use real system parts, from Debian packages: Chromium (browser tests), PostgreSQL's
# server binaries (PostgreSQL tests: they start their own server), ripgrep (OpenCode's skill
# tool, in the live-agent tests) and bubblewrap (the live agent's sandbox). Installs what is
# missing when this is a Debian machine where we may use apt; otherwise says exactly what is
# needed. The pinned OpenCode itself comes from the npm registry, on first use, into
# .cache/opencode.
set -euo pipefail
missing=()
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium)
if ! { [ -n "${PG_BIN:-}" ] && [ -x "$PG_BIN/postgres" ]; } && ! compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null; then
  missing+=(postgresql)
fi
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
[ ${#missing[@]} -eq 0 ] && exit 0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  echo "Installing Debian packages the tests need: ${missing[*]}…" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "The tests need these Debian packages: ${missing[*]} (sudo apt-get install -y ${missing[*]}; or set CHROMIUM_PATH / PG_BIN)." >&2
exit 1
