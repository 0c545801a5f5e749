#!/usr/bin/env bash
# Runs `codesim advise --map` on a 3 x 2 grid single-process and under `mpirun -np 3` (each rank
# with 2 threads) and checks that the maps are byte-identical. Usage: compare_mpi_advice_map.sh
# CODESIM
set -euo pipefail
codesim=$(realpath "$1")
scenario=$(realpath "$(dirname "$0")/advice_map.json")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
axes=(--map /faults/targets/weights/probability_per_operation=1e-4..1e-2:3
      --map /cluster/crashes/mtbf_s=2..20:2)
"$codesim" advise "$scenario" "${axes[@]}" -o "$work/single.json" -q
mpirun --allow-run-as-root --oversubscribe -np 3 \
  "$codesim" advise "$scenario" "${axes[@]}" -o "$work/mpi.json" -q --jobs 2
cmp "$work/single.json" "$work/mpi.json"
echo "advice maps identical: $(wc -c < "$work/mpi.json") bytes"
