#!/usr/bin/env bash
# Lab round 18 on the H200 (eighth session): SpMM group batches once more. sp = the template
# (a group row's nonzeros 4 at a time, from lab run 17), b2 = batches of 2, b6 = batches of 6.
exec bash "$(dirname "$0")/spmm_variants.sh" \
    'b2=s/constexpr int kBatch = 4;/constexpr int kBatch = 2;/' \
    'b6=s/constexpr int kBatch = 4;/constexpr int kBatch = 6;/'
