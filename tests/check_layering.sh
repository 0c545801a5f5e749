#!/usr/bin/env bash
# The dependency rule, checked on every #include of the tree: python -> app -> {models, analysis}
# -> sim; models and analysis do not include each other; sim includes nothing of ours; inside app
# the rooms point one way: cli -> advise -> exec -> config; inside models, training -> {nn ->
# data}, and training's backends (numeric, stochastic) -> its protocol. Prints each offending
# line; exits 1 if any.
set -u
cd "$(dirname "$0")/.."
status=0
forbid() {  # folder, pattern of includes it must not have, why
  local hits
  hits=$(grep -rnE "#include \"($2)" "$1" --include='*.cpp' --include='*.hpp' --include='*.inc')
  if [[ -n "$hits" ]]; then
    echo "layering: $1 must not include $2 ($3):"
    echo "$hits"
    status=1
  fi
}
forbid sim 'models/|analysis/|app/|python/' "sim is the bottom layer"
forbid models 'analysis/|app/|python/' "models sits beside analysis, under app"
forbid analysis 'models/|app/|python/' "analysis sits beside models, under app"
forbid app 'python/' "the Python module sits on top of app, beside main()"
forbid models/nn 'models/training/' "networks know nothing of how they are trained"
forbid models/data 'models/training/|models/nn/' "datasets know nothing of networks or training"
forbid models/training/protocol 'models/training/(numeric|stochastic)/' "the protocol sits under its backends"
forbid models/training/numeric 'models/training/stochastic/' "the backends do not include each other"
forbid models/training/stochastic 'models/training/numeric/' "the backends do not include each other"
forbid app/config 'app/exec/|app/advise/|app/cli/' "config is app's bottom room"
forbid app/exec 'app/advise/|app/cli/' "exec sits under advise and cli"
forbid app/advise 'app/cli/' "advise sits under cli"
if [[ $status -eq 0 ]]; then echo "layering: every include points down"; fi
exit $status
