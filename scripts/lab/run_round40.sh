#!/usr/bin/env bash
# Lab round 40 (the sixth session of 2026-12-07), after round 39 put panels of 64 columns into
# the template: 32 rows in turn per group above k = 32 (r32) against the template's 16 (tpl),
# at k = 64 and 128 only. No patch: a sed of the template's launch.
WORK=${WORK:-$PWD/.lab/r40}
. "$(dirname "$0")/variants.sh"
start_round round39
variant tpl
variant r32 "" 's/launch_spmm_for<index_t, 16, 4, 16>/launch_spmm_for<index_t, 16, 4, 32>/'
MAX_JOBS=8 build_variants tpl r32
KS="64 128" time_both_orders spmm tpl tpl r32
