#!/usr/bin/env bash
# Lab round 19 on the H200 (eighth session): narrower SpMM groups, several passes over k.
# sp = the template (2 / 8 / 16 / 32 column lanes for k <= 8 / 32 / 64 / above), c = half the
# lanes at k > 32 (k = 64: 8 lanes, two passes, 4 rows a warp), d = half the lanes at k > 8.
exec bash "$(dirname "$0")/spmm_variants.sh" \
    'c=s/<index_t, 16, 4>/<index_t, 8, 4>/; s/<index_t, 32, 4>/<index_t, 16, 4>/' \
    'd=s/<index_t, 8, 4>/<index_t, 4, 4>/; s/<index_t, 16, 4>/<index_t, 8, 4>/; s/<index_t, 32, 4>/<index_t, 16, 4>/'
