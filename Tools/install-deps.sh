#!/usr/bin/env bash
# Installs what Strata builds and tests with (Debian/Ubuntu), only when missing: by default
# the system libraries it links against and the sqlite3 and lz4 tools the tests compare
# with; given package names, those. PostgreSQL is opt-in like the rest of its stack
# (docs/POSTGRES.md): `install-deps.sh postgresql` installs the server binaries the
# StrataPostgres tests start a throwaway server from (Tools/postgres-server).
set -euo pipefail
# The packages to check: the arguments, or Strata's usual set.
packages=("$@")
if [ ${#packages[@]} -eq 0 ]; then
  packages=(libsqlite3-dev liblz4-dev lz4 sqlite3)
fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "Installing: ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
