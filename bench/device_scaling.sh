#!/usr/bin/env bash
# The scaling benchmark on a many-core machine, in one go (issue 28).
#
#   bash bench/device_scaling.sh              # from the repository root
#   PY=/path/to/python bash bench/device_scaling.sh
#   QUICK=1 bash bench/device_scaling.sh      # a smoke test with a tenth of the data
#
# Needs Python 3 with numpy and click (what `workbench eval` imports) and nothing from the
# network: it uses $PY if set, else a python3 that already has them, else a venv in /tmp
# that sees the system's packages, with this checkout installed from wheels the caller
# brought (WHEELS=folder) or not at all (the bench runs the checkout through PYTHONPATH).
# Generated data goes to $DATA (default /tmp/workbench-scaling-data). Output goes to the
# terminal and, when $OUT is set, to $OUT/scaling.txt. Each step has a time limit so
# that the whole script ends within about 6 minutes on 16 cores.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
DATA=${DATA:-/tmp/workbench-scaling-data}
QUICK_FLAG=()
[ -n "${QUICK:-}" ] && QUICK_FLAG=(--quick)
LOG=/dev/null
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  LOG=$OUT/scaling.txt
  : >"$LOG"
fi
say() { echo "$@" | tee -a "$LOG"; }
step() {  # step LIMIT_SECONDS COMMAND...: run it, output to the log, never past the limit
  local limit=$1
  shift
  say "\$ $*"
  timeout "$limit" "$@" 2>&1 | tee -a "$LOG"
  local rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || say "(exit $rc$([ "$rc" = 124 ] && echo ": stopped after ${limit} s"))"
}

has_deps() { "$1" -c 'import numpy, click' >/dev/null 2>&1; }
if [ -n "${PY:-}" ]; then
  :
elif has_deps python3; then
  PY=python3
else
  VENV=/tmp/workbench-scaling-venv
  python3 -m venv --system-site-packages "$VENV"
  if [ -n "${WHEELS:-}" ]; then  # no index: only what the caller brought
    "$VENV/bin/pip" install -q --no-index --find-links "$WHEELS" -e . ||
      "$VENV/bin/pip" install -q --no-index --find-links "$WHEELS" numpy click || true
  fi
  PY=$VENV/bin/python
fi
if ! has_deps "$PY"; then
  say "no python with numpy and click: set PY=..., or WHEELS=folder of wheels"
  exit 1
fi
export PYTHONPATH=$ROOT${PYTHONPATH:+:$PYTHONPATH}
unset WORKBENCH_THREADS

say "== workbench scaling on $(uname -n): $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
say "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); nproc $(nproc); $("$PY" -V 2>&1); numpy $("$PY" -c 'import numpy; print(numpy.__version__)')"
say "usable cores: $("$PY" -c 'from workbench import cores; print(cores.usable_cpus(), "(affinity", cores.affinity_cpus(), ", cgroup quota", cores.cgroup_cpu_limit(), ")")')"
say "kernel: $(uname -r)"

# 1. all the cores: 1, 2, 4, ... usable, and the default (with the model's costs)
step 200 "$PY" bench/scaling_bench.py "${QUICK_FLAG[@]}" --data "$DATA" --repeat 2
# 2. pinned to 2 cores, as in the issue; -j 16 shows what the old default did there
if command -v taskset >/dev/null; then
  step 120 taskset -c 0,1 "$PY" bench/scaling_bench.py "${QUICK_FLAG[@]}" --data "$DATA" \
    --repeat 2 --jobs 1,2,16
  step 20 taskset -c 0 "$PY" -c 'from workbench.cores import default_jobs; print("taskset -c 0: default jobs", default_jobs())'
else
  say "(no taskset here: the pinned runs are left out)"
fi
# 3. the cost model's constants measured on this machine
step 90 "$PY" bench/scaling_bench.py "${QUICK_FLAG[@]}" --data "$DATA" --calibrate-only
say "== done $(date -u +%FT%TZ)"
