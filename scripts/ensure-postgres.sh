#!/usr/bin/env bash
# The PostgreSQL tests start a real PostgreSQL server of their own (test/support/postgres.ts)
# from Debian's server binaries. Installs them when missing and this is a Debian machine where
# we may use apt; otherwise says exactly what is needed.
set -euo pipefail
if [ -n "${PG_BIN:-}" ] && [ -x "$PG_BIN/postgres" ]; then exit 0; fi
if compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null; then exit 0; fi
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  echo "PostgreSQL is missing: installing Debian's postgresql for the PostgreSQL tests…" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  exit 0
fi
echo "The PostgreSQL tests need PostgreSQL's server binaries: install Debian's 'postgresql' package (or set PG_BIN to their folder)." >&2
exit 1
