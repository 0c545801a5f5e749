#!/usr/bin/env bash
# Keeps docs/architecture.md's recipe for a coding scheme complete: every file outside
# models/coding/ that names a scheme kind (a spec struct of the SchemeSpec variant, or a
# SchemeKind value) must be listed in the recipe, or below as a use of one particular scheme
# that a new scheme does not touch; and every file the recipe lists must exist.
set -u
cd "$(dirname "$0")/.."
recipe=$(awk '/^## Adding a coding scheme/{on=1; next} /^## /{on=0} on' docs/architecture.md)
[[ -n "$recipe" ]] || { echo "scheme recipe: no '## Adding a coding scheme' in docs/architecture.md"; exit 1; }
# One file each: why it names a scheme without dispatching on every kind.
declare -A single_scheme=(
  [app/cli/theory_command.cpp]="--weight-fault and its options model abft's checks alone"
  [bench/floor_bench.cpp]="benchmarks one configuration of the CodeNet grid"
  [bench/patterns/network_patterns.cpp]="runs one configuration of the CodeNet grid"
)
kinds=$(sed -n '/^using SchemeSpec = std::variant</,/>;/p' models/coding/scheme_spec.hpp |
  sed 's/using SchemeSpec = std::variant<//; s/>;//' | tr -d ' \n' | tr ',' '|')
[[ -n "$kinds" ]] || { echo "scheme recipe: cannot read the SchemeSpec variant"; exit 1; }
status=0
while IFS= read -r file; do
  [[ $file == models/coding/* ]] && continue
  [[ -n "${single_scheme[$file]:-}" ]] && continue
  if ! grep -qF "$file" <<<"$recipe"; then
    echo "scheme recipe: $file names a scheme kind but docs/architecture.md's recipe does not list it"
    status=1
  fi
done < <(grep -rlE "\b($kinds)\b|SchemeKind::" sim models app analysis bench --include='*.cpp' --include='*.hpp' | sort)
for listed in $(grep -oE '`(models|app|sim|analysis|bench|tests)/[A-Za-z0-9_/.]+`' <<<"$recipe" | tr -d '`' | sort -u); do
  [[ $listed == *my_scheme* ]] && continue
  if [[ ! -e $listed ]]; then
    echo "scheme recipe: docs/architecture.md lists $listed, which does not exist"
    status=1
  fi
done
[[ $status -eq 0 ]] && echo "scheme recipe: every file that names a scheme kind is in the recipe"
exit $status
