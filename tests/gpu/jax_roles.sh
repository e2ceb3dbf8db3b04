#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The JAX hook on the GPU (docs/categories.md, "JAX"): roles and flax layers of flax
# models trained with optax.adamw, unchanged, under `vramtrace run --per-tensor`.
#   bash tests/gpu/jax_roles.sh            (about 3 minutes on the H200)
# Runs tests/gpu/jax_roles.py: an MLP (params a plain dict) and a small transformer LM
# (flax TrainState), fp32 and bf16, with and without donate_argnums, the MLP once more
# with gradients from their own jitted function (--split), and once under the default
# BFC preallocation; jax_roles_check.py checks each trace and prints a row. Then the
# hook's cost: one process alternating blocks of steps with the hook on, off, and
# recording paused. Prints a pass/fail table; leaves traces, reports and layer views
# under $OUT/jax_roles/. Exit 1 when a row fails.
set -u
. "$(dirname "$0")/env.sh"
o=$OUT/jax_roles
mkdir -p "$o"
py=$root/tests/gpu/jax_roles.py
chk=$root/tests/gpu/jax_roles_check.py
fail=0
printf '%-22s %7s  %14s %14s  %-26s %s\n' config sets weights/JAX opt/JAX "" result
# the traced runs and their reports, one process each: the per-tensor ones side by side
# (one GPU holds them all; compiling is what takes the time), then the BFC one alone
run() { # NAME [--caching] -- ARGS...
  local name=$1 caching=""; shift
  [ "$1" = --caching ] && { caching=--caching; shift; }
  shift
  local pt=--per-tensor
  [ -n "$caching" ] && pt=
  if "$VT" run $pt --no-summary -o "$o/$name.vtrace" -- $PY "$py" "$@" --expect "$o/$name.json" \
      > "$o/$name.out" 2> "$o/$name.err"; then
    "$VT" report --json "$o/$name.vtrace" > "$o/$name.report.json" 2>/dev/null
    "$VT" report "$o/$name.vtrace" > "$o/$name.report.txt" 2>/dev/null
    "$VT" top --by layer "$o/$name.vtrace" > "$o/$name.layers.txt" 2>/dev/null
  else
    echo "exit $?" > "$o/$name.failed"
  fi
}
check() { # NAME [--caching]
  local name=$1
  if [ -f "$o/$name.failed" ] || [ ! -f "$o/$name.report.json" ]; then
    printf '%-22s FAIL: the program failed (%s)\n' "$name" "$(tail -1 "$o/$name.err" 2>/dev/null)"
    fail=1
    return
  fi
  $PY "$chk" "$name" "$o/$name.json" "$o/$name.report.json" "$o/$name.layers.txt" ${2:-} || fail=1
}
configs=("mlp-fp32 -- --model mlp" "mlp-fp32-donate -- --model mlp --donate" "mlp-bf16 -- --model mlp --bf16"
         "mlp-bf16-donate -- --model mlp --bf16 --donate" "mlp-fp32-split -- --model mlp --split --donate"
         "lm-fp32 -- --model lm" "lm-fp32-donate -- --model lm --donate" "lm-bf16-donate -- --model lm --bf16 --donate")
for c in "${configs[@]}"; do
  # shellcheck disable=SC2086
  run $c &
done
wait
run mlp-fp32-bfc --caching -- --model mlp --donate
for c in "${configs[@]}"; do check "${c%% *}"; done
check mlp-fp32-bfc --caching
# the cost per jitted step: blocks of 10 steps, hook on / off / recording paused
line=$("$VT" run --per-tensor --no-summary -o "$o/ab.vtrace" -- $PY "$py" --model lm --donate --ab 2>"$o/ab.err" | tail -1)
echo "$line" > "$o/ab.json"
echo "$line" | $PY -c '
import json, sys
try:
    d = json.loads(sys.stdin.read())
except Exception:
    print("overhead               FAIL: no result"); sys.exit(1)
m = d["modes"]
on, off, pa = m["hook"]["median_ms"], m["nohook"]["median_ms"], m["paused"]["median_ms"]
print("overhead (lm, %d leaves): step %.3f ms hook on, %.3f ms off, %.3f ms recording paused: hook %+.3f ms (%+.2f%%)"
      % (d["param_leaves"], on, off, pa, on - off, 100 * (on - off) / off))
sys.exit(0 if d["hook_loaded"] else 1)' || fail=1
[ $fail = 0 ] && echo "jax_roles: all passed" || echo "jax_roles: FAILED"
exit $fail
