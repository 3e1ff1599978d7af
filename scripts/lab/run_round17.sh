#!/usr/bin/env bash
# Lab round 17 on the H200 (eighth session): how many rows of X a lane keeps in flight.
# sp = the template then (a group row's nonzeros 8 at a time, spmm_segment unrolled 4), b4 =
# batches of 4, u8 = spmm_segment unrolled 8 (k > 64 and rows of 17-256 nonzeros).
exec bash "$(dirname "$0")/spmm_variants.sh" \
    'b4=s/constexpr int kBatch = 8;/constexpr int kBatch = 4;/' \
    'u8=s/#pragma unroll 4/#pragma unroll 8/'
