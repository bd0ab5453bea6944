#!/usr/bin/env bash
# The end-to-end tests drive Debian's Chromium (never a downloaded browser build). Install it when
# it is missing and we are allowed to; otherwise say exactly what to run.
set -euo pipefail
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "Chromium not found at $CHROMIUM: installing Debian's chromium package…"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "End-to-end tests need Debian's Chromium at $CHROMIUM. Install it with:" >&2
echo "  sudo apt-get install -y chromium    (or set CHROMIUM_PATH)" >&2
exit 1
