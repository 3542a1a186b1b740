#!/usr/bin/env bash
# Fails when two paths in the repository differ only by letter case: on a case-insensitive
# file system (macOS's default) they would be one file or folder.
set -euo pipefail
cd "$(dirname "$0")/.."
clashes=$(git ls-files | awk -F/ '{ p = ""; for (i = 1; i <= NF; i++) { p = (p == "" ? $i : p "/" $i); print p } }' \
  | sort -u | awk '{ l = tolower($0); if ((l in seen) && seen[l] != $0) print seen[l] "  ~  " $0; seen[l] = $0 }')
if [ -n "$clashes" ]; then
  echo "Paths that differ only by letter case (one path on a case-insensitive file system):" >&2
  echo "$clashes" >&2
  exit 1
fi
echo "ok: no two paths differ only by letter case"
