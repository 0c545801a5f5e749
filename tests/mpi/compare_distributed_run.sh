#!/usr/bin/env bash
# Runs a small scenario (an MLP, then a convolutional network) through every scheme single-process and under `mpirun -np 3 ... --distribute
# nodes` (every rank holding a third of the simulated nodes' blocks) and checks that the results,
# fault logs and timeline traces are byte-identical; then the bad inputs: a rank count above the
# scheme's nodes, --distribute without mpirun, and a per-rank memory limit that one rank exceeds and
# three ranks meet. Usage: compare_distributed_run.sh CODESIM
set -euo pipefail
codesim=$(realpath "$1")
scenario=$(realpath "$(dirname "$0")/distributed_run.json")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpi=(mpirun --allow-run-as-root --oversubscribe)
mkdir -p "$work/single" "$work/ranks"
(cd "$work/single" && "$codesim" run "$scenario" -o results.json -q --trace "{name}.{point}.{replica}.trace.json")
(cd "$work/ranks" && "${mpi[@]}" -np 3 "$codesim" run "$scenario" -o results.json -q \
  --trace "{name}.{point}.{replica}.trace.json" --distribute nodes)
diff -r "$work/single" "$work/ranks"
echo "3 ranks identical: $(ls "$work/ranks" | wc -l) files"
# The same with a convolutional network: its conv layer's products have 9 columns per sample.
network=$(realpath "$(dirname "$0")/distributed_network_run.json")
mkdir -p "$work/net_single" "$work/net_ranks"
(cd "$work/net_single" && "$codesim" run "$network" -o results.json -q)
(cd "$work/net_ranks" && "${mpi[@]}" -np 3 "$codesim" run "$network" -o results.json -q \
  --distribute nodes)
diff -r "$work/net_single" "$work/net_ranks"
echo "3 ranks identical with a convolutional network"

expect_error() {  # expected-exit-code expected-text command...
  local code=$1 text=$2
  shift 2
  set +e
  "$@" >"$work/out" 2>"$work/err"
  local got=$?
  set -e
  if [[ $got -ne $code ]] || ! grep -q -- "$text" "$work/err"; then
    echo "expected exit $code and '$text' from: $*; got $got:" >&2
    cat "$work/err" >&2
    exit 1
  fi
  if [[ -e "$work/bad.json" ]]; then
    echo "a refused run wrote results" >&2
    exit 1
  fi
}
cd "$work"
expect_error 2 "fewer than the 5 MPI ranks" "${mpi[@]}" -np 5 "$codesim" run "$scenario" \
  -o bad.json -q --set /strategy='{"scheme":"uncoded","m":2,"n":2}' --set /sweep='{}' \
  --distribute nodes
expect_error 2 "needs the ranks of an MPI job" "$codesim" run "$scenario" -o bad.json -q \
  --distribute nodes
# With a 4000-wide hidden layer the blocks dominate: the whole run needs about 9.0 MB, a rank
# holding a third of the 16 nodes' blocks about 6.2 MB (the data and buffers are on every rank).
small=(--set /sweep='{}' --set /workload/layers='[40,4000,4]' --memory-limit-gb 0.0075)
expect_error 2 "the run needs about" "${mpi[@]}" -np 1 "$codesim" run "$scenario" -o bad.json -q \
  "${small[@]}" --distribute nodes
"${mpi[@]}" -np 3 "$codesim" run "$scenario" -o fits.json -q "${small[@]}" --distribute nodes
test -s fits.json
echo "bad inputs refused; the run that fits only on 3 ranks ran"

# A rank that dies: mpirun aborts the job, says which rank, and no results file is written.
"${mpi[@]}" -np 3 "$codesim" run "$scenario" -o dead.json -q --set /sweep='{}' \
  --set /workload/iterations=100000 --distribute nodes \
  >"$work/out" 2>"$work/err" &
launcher=$!
victim=""
for _ in $(seq 100); do
  sleep 0.2
  victim=$(pgrep -f -- "-o dead.json" | grep -v "^$launcher\$" | tail -1 || true)
  [[ -n "$victim" ]] && break
done
[[ -n "$victim" ]] || { echo "no rank to kill" >&2; exit 1; }
sleep 1
kill -9 "$victim"
set +e
wait "$launcher"
code=$?
set -e
if [[ $code -eq 0 ]] || [[ -e dead.json ]] || ! grep -qi "signal 9\|killed" "$work/err"; then
  echo "a killed rank: expected a failed job, mpirun's message and no results (exit $code)" >&2
  cat "$work/err" >&2
  exit 1
fi
echo "a killed rank fails the job (exit $code) with no results file"
