#!/usr/bin/env bash
# Lab round 21 on the H200 (ninth session): cache hints for SpMM's streams. Y (written once)
# and A's values and columns (read once) pass through L2 beside X, the one operand read
# again; marked evict-first they leave L2 to X. sp = the template; ys = Y stored with
# __stcs; ays = ys and A loaded with __ldcs; aysx = ays and X loaded with __ldcg (no L1
# allocation); aysc = ays with lab 19's narrower groups (8 lanes at k = 64, 16 above);
# vcs = SpMV's chunk kernel loading A with __ldcs. Then each SpMV kernel's warm time, for sp,
# vcs and cuSPARSE (spmv_kernels.py): what the partition and carry kernels cost.
set -uo pipefail
ys='s|^  \*reinterpret_cast<Floats<kVec>\*>(p) = value;|  if constexpr (kVec == 4) { __stcs(reinterpret_cast<float4*>(p), make_float4(value.v[0], value.v[1], value.v[2], value.v[3])); } else { __stcs(p, value.v[0]); }|'
as='s|col\[i0 + e\]|__ldcs(\&col[i0 + e])|; s|values\[i0 + e\]|__ldcs(\&values[i0 + e])|; s|const float a = values\[i\];|const float a = __ldcs(\&values[i]);|; s|static_cast<int64_t>(col\[i\]) \* k|static_cast<int64_t>(__ldcs(\&col[i])) * k|'
xcg='s|^  return \*reinterpret_cast<const Floats<kVec>\*>(p);|  if constexpr (kVec == 4) { const float4 f = __ldcg(reinterpret_cast<const float4*>(p)); return {{f.x, f.y, f.z, f.w}}; } else { return {{__ldcg(p)}}; }|'
narrow='s/<index_t, 16, 4>/<index_t, 8, 4>/; s/<index_t, 32, 4>/<index_t, 16, 4>/'
vcs='s|values\[i\] \* __ldg(&x\[col\[i\]\])|__ldcs(\&values[i]) * __ldg(\&x[__ldcs(\&col[i])])|'
export WORK=$(mktemp -d)
KS=${KS:-32 64 128} bash "$(dirname "$0")/spmm_variants.sh" \
    "ys=$ys" "ays=$ys; $as" "aysx=$ys; $as; $xcg" "aysc=$ys; $as; $narrow" "vcs=$vcs"
echo "## SpMV kernels: sp / vcs / cuSPARSE"
timeout 120 python3 "$(dirname "$0")/spmv_kernels.py" "$WORK/sp" sp vcs 2>&1 | tee "$OUT/spmv_kernels.txt"
