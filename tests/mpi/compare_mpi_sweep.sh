#!/usr/bin/env bash
# Runs a small sweep single-process and under `mpirun -np 3` (each rank with 2 threads) and
# checks that the results and fault logs are byte-identical, for the portable arithmetic and, when
# the CPU has AVX2 and FMA, for avx2_fma. Usage: compare_mpi_sweep.sh CODESIM
set -euo pipefail
codesim=$(realpath "$1")
scenario=$(realpath "$(dirname "$0")/sweep.json")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
compare() {
  local arithmetic=$1 dir="$work/$1"
  mkdir -p "$dir/single" "$dir/mpi"
  (cd "$dir/single" && "$codesim" run "$scenario" -o results.json -q --arithmetic "$arithmetic")
  (cd "$dir/mpi" && mpirun --allow-run-as-root --oversubscribe -np 3 \
    "$codesim" run "$scenario" -o results.json -q --jobs 2 --arithmetic "$arithmetic")
  diff -r "$dir/single" "$dir/mpi"
  echo "$arithmetic identical: $(ls "$dir/mpi" | wc -l) files"
}
compare portable
if grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo; then
  compare avx2_fma
fi
