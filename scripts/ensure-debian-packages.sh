#!/usr/bin/env bash
# What the tests need from Debian: its Chromium (the end-to-end tests never download a browser)
# and python3-onnx + python3-numpy (the tiny test models; importable only from /usr/bin/python3),
# and libxml2-utils (xmllint checks the CLI's JUnit XML against tests/fixtures/junit/junit.xsd).
# Installs what is missing when we are root with apt-get; otherwise says exactly what to run.
set -euo pipefail
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
missing=()
[ -x "$CHROMIUM" ] || missing+=(chromium)
/usr/bin/python3 -c 'import onnx, numpy' 2>/dev/null || missing+=(python3-onnx python3-numpy)
command -v xmllint >/dev/null || missing+=(libxml2-utils)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "Installing Debian packages the tests need: ${missing[*]}…"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "The tests need Debian packages that are missing: ${missing[*]}. Install them with:" >&2
echo "  sudo apt-get install -y ${missing[*]}    (or set CHROMIUM_PATH for another Chromium)" >&2
exit 1
