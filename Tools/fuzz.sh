#!/usr/bin/env bash
# Fuzzing with libFuzzer and AddressSanitizer (docs/RELIABILITY.md, "Fuzzing").
#
#   Tools/fuzz.sh [TARGET|all] [SECONDS]     (defaults: all, 60 seconds per target)
#
# Builds `strata-fuzz` with -sanitize=fuzzer,address into .build-fuzz (the normal build in
# .build is not touched), then runs each target for SECONDS, starting from its committed
# seeds (Tests/Fuzz/Corpus/TARGET) plus what earlier runs found (.build-fuzz/fuzz/corpus),
# with the target's dictionary of keywords when there is one (Tests/Fuzz/Dictionaries).
# A hang is an input taking over 10 s, a memory blow-up one using over 2 GB. Prints the
# executions per target and every new crasher; exits 1 when any target found one. A
# crasher, once fixed, goes to Tests/StrataFuzzTests/Crashers/TARGET.
# STRATA_FUZZ_ARGS adds libFuzzer flags (e.g. "-jobs=2 -workers=2"). STRATA_FUZZ_BINARY runs
# an already built driver instead (CI: the AddressSanitizer tree's, where only the driver is
# instrumented for coverage, so its runs show that each target runs, not what it covers).
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(segment text-segment predicate model-json xcode-model tool-value import-csv import-json document)
which=${1:-all}
seconds=${2:-60}
if [ "$which" != all ]; then
  if [[ " ${targets[*]} " != *" $which "* ]]; then
    echo "usage: Tools/fuzz.sh [all|$(IFS='|'; echo "${targets[*]}")] [SECONDS]" >&2
    exit 2
  fi
  targets=("$which")
fi

if [ -n "${STRATA_FUZZ_BINARY:-}" ]; then
  binary=$STRATA_FUZZ_BINARY
  [ -x "$binary" ] || { echo "fuzz: STRATA_FUZZ_BINARY '$binary' is not an executable; build it first" >&2; exit 1; }
  echo "== fuzz: using $binary"
else
  echo "== fuzz: building strata-fuzz (libFuzzer + AddressSanitizer, .build-fuzz)"
  build_start=$(date +%s)
  # The gold linker warns about every sanitizer helper symbol it cannot export; nothing to act on.
  set +e
  swift build --product strata-fuzz --scratch-path .build-fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DSTRATA_FUZZING 2>&1 \
    | grep -v "ld.gold: warning: Cannot export local symbol"
  build_status=${PIPESTATUS[0]}
  set -e
  [ "$build_status" -eq 0 ] || { echo "fuzz: the build failed" >&2; exit 1; }
  binary=$(swift build --product strata-fuzz --scratch-path .build-fuzz --show-bin-path \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DSTRATA_FUZZING)/strata-fuzz
  echo "== fuzz: built in $(( $(date +%s) - build_start )) s"
fi

work=${STRATA_FUZZ_WORK:-.build-fuzz/fuzz}
found=0
summary=""
for target in "${targets[@]}"; do
  corpus="$work/corpus/$target"
  artifacts="$work/artifacts/$target"
  mkdir -p "$corpus" "$artifacts"
  before=$(ls "$artifacts" | wc -l)
  log="$work/$target.log"
  echo "== fuzz: $target for $seconds s"
  # Swift's backtracer would wait on a crashing fuzzer; libFuzzer and ASan report instead.
  # Leak checking is off: the Swift runtime's caches read as leaks.
  dictionary=()
  [ -f "Tests/Fuzz/Dictionaries/$target.dict" ] && dictionary=(-dict="Tests/Fuzz/Dictionaries/$target.dict")
  set +e
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$binary" "$target" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${dictionary[@]}" ${STRATA_FUZZ_ARGS:-} "$corpus" "Tests/Fuzz/Corpus/$target" >"$log" 2>&1
  status=$?
  set -e
  executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  coverage=$(grep -oE '#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED).*cov: [0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+' || true)
  new=$(( $(ls "$artifacts" | wc -l) - before ))
  line="$target: ${executions:-?} executions in $seconds s (${rate:-?}/s), ${coverage:-cov: ?}, corpus $(ls "$corpus" | wc -l) found + $(ls "Tests/Fuzz/Corpus/$target" | wc -l) seeds"
  if [ "$status" -ne 0 ] || [ "$new" -gt 0 ]; then
    found=1
    line="$line — FOUND A PROBLEM (exit $status): $(ls -t "$artifacts" | head -"$(( new > 0 ? new : 1 ))" | sed "s|^|$artifacts/|" | tr '\n' ' ')"
    grep -E "ERROR: |SUMMARY: |Fatal error|Precondition failed|==[0-9]+==" "$log" | head -8 || true
  fi
  echo "$line"
  summary="$summary$line"$'\n'
done
echo "== fuzz: summary"
printf '%s' "$summary"
if [ "$found" -ne 0 ]; then
  echo "fuzz: a target crashed, hung or ran out of memory; logs in $work, inputs listed above" >&2
  exit 1
fi
