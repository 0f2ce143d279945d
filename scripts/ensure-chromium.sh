#!/usr/bin/env bash
# The browser tests drive Debian's Chromium (a browser that downloads itself cannot be fetched
# here). Installs it when missing and this is a Debian machine where we may use apt; otherwise
# says exactly what is needed.
set -euo pipefail
chromium_path="${CHROMIUM_PATH:-/usr/bin/chromium}"
[ -x "$chromium_path" ] && exit 0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  echo "Chromium is missing: installing Debian's chromium for the browser tests…" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "The browser tests need Chromium at $chromium_path: install Debian's 'chromium' package (or set CHROMIUM_PATH)." >&2
exit 1
