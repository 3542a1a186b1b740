#!/usr/bin/env bash
# Installs the system libraries Strata links against (Debian/Ubuntu), only when missing.
# `bash Tools/install-deps.sh postgresql` installs the PostgreSQL server the StrataPostgres
# tests start through Tools/postgres-server (binaries in /usr/lib/postgresql/*/bin).
set -euo pipefail
# The packages to check: the arguments, or Strata's usual set.
packages=("$@")
[ ${#packages[@]} -gt 0 ] || packages=(libsqlite3-dev liblz4-dev lz4 sqlite3)
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
