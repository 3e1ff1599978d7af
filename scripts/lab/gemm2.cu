// Lab round 4: the template's WMMA GEMM (copy descriptors, 64 x 64 warp tiles) with the knobs
// issue 11 asks about: block tile (128x128 / 128x256 / 256x128), K step, stages, block
// rasterisation (groups of tile-rows sharing L2), fragment double-buffering, and bf16 fragments
// loaded with ldmatrix instead of wmma::load_matrix_sync (which nvcc compiles to plain LDS for
// bf16). Row-major A (M x K) @ B (K x N) -> C in the input dtype; K, N multiples of 8.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cstdint>
#include <type_traits>
namespace wmma = nvcuda::wmma;

__device__ __forceinline__ void cp16(void* smem, const void* g, bool valid) {
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(g), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }
template <typename T>
__device__ __forceinline__ T from_f(float x);
template <>
__device__ __forceinline__ __half from_f(float x) { return __float2half_rn(x); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_f(float x) { return __float2bfloat16_rn(x); }

// A 16x16 tile of 16-bit elements at p (rows ld elements apart) into a bf16 wmma fragment with
// one ldmatrix.x4: lane l points at row l % 16, column 8 * (l / 16), so the four 8x8 matrices
// are (rows 0-7, cols 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15). B tiles (K x N, row-major)
// use .trans, which hands each lane two consecutive K elements of one column.
template <bool kTrans, typename Frag>
__device__ __forceinline__ void ldsm_x4(Frag& f, const __nv_bfloat16* p, int ld, int order) {
  const int lane = threadIdx.x % 32;
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(p + (lane % 16) * ld + (lane / 16) * 8));
  uint32_t r0, r1, r2, r3;
  if constexpr (kTrans) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
  }
  uint32_t* x = reinterpret_cast<uint32_t*>(f.x);
  x[0] = r0;
  x[1] = order ? r2 : r1;
  x[2] = order ? r1 : r2;
  x[3] = r3;
}

// Compares, lane by lane, the fragment registers wmma::load_matrix_sync gives with ldsm_x4's
// (order 0 and 1), for A and B. out[0..3]: mismatching words for A/order0, A/order1, B/o0, B/o1.
__global__ void check_fragments(int* out) {
  __shared__ __nv_bfloat16 tile[16 * 24];
  for (int i = threadIdx.x; i < 16 * 24; i += 32) tile[i] = __float2bfloat16(float(i % 251) - 100.0f);
  __syncwarp();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a_ref, a0, a1;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b_ref, b0, b1;
  wmma::load_matrix_sync(a_ref, tile, 24);
  wmma::load_matrix_sync(b_ref, tile, 24);
  ldsm_x4<false>(a0, tile, 24, 0);
  ldsm_x4<false>(a1, tile, 24, 1);
  ldsm_x4<true>(b0, tile, 24, 0);
  ldsm_x4<true>(b1, tile, 24, 1);
  const uint32_t* ra = reinterpret_cast<const uint32_t*>(a_ref.x);
  const uint32_t* rb = reinterpret_cast<const uint32_t*>(b_ref.x);
  for (int w = 0; w < 4; ++w) {
    atomicAdd(&out[0], ra[w] != reinterpret_cast<const uint32_t*>(a0.x)[w]);
    atomicAdd(&out[1], ra[w] != reinterpret_cast<const uint32_t*>(a1.x)[w]);
    atomicAdd(&out[2], rb[w] != reinterpret_cast<const uint32_t*>(b0.x)[w]);
    atomicAdd(&out[3], rb[w] != reinterpret_cast<const uint32_t*>(b1.x)[w]);
  }
}

template <int BM, int BN, int BK, int S>
struct Cfg {
  static constexpr int kWarps = (BM / 64) * (BN / 64), kThreads = kWarps * 32;
  static constexpr int kLdA = BK + 8, kLdB = BN + 8;
  static constexpr int kStage = BM * kLdA + BK * kLdB;
  static constexpr size_t kSmem = size_t{S} * kStage * 2;
  static constexpr int kPiecesA = BM * BK / 8 / kThreads, kPiecesB = BK * BN / 8 / kThreads;
};

template <typename T, int BM, int BN, int BK, int S>
struct Copier {
  using C = Cfg<BM, BN, BK, S>;
  const T* a;
  const T* b;
  const T* a_src[C::kPiecesA];
  const T* b_src[C::kPiecesB];
  bool a_in[C::kPiecesA];
  bool b_in[C::kPiecesB];
  __device__ Copier(const T* a_, const T* b_, int64_t m, int64_t n, int64_t k, int64_t r0, int64_t c0) : a(a_), b(b_) {
#pragma unroll
    for (int i = 0; i < C::kPiecesA; ++i) {
      const int t = threadIdx.x + i * C::kThreads, r = t / (BK / 8), c = (t % (BK / 8)) * 8;
      a_in[i] = r0 + r < m;
      a_src[i] = a + (a_in[i] ? (r0 + r) * k + c : 0);
    }
#pragma unroll
    for (int i = 0; i < C::kPiecesB; ++i) {
      const int t = threadIdx.x + i * C::kThreads, r = t / (BN / 8), c = (t % (BN / 8)) * 8;
      b_in[i] = c0 + c < n;
      b_src[i] = b + (b_in[i] ? r * n + c0 + c : 0);
    }
  }
  __device__ __forceinline__ void step(T* as, T* bs, int64_t k0, int64_t k, int64_t n) {
#pragma unroll
    for (int i = 0; i < C::kPiecesA; ++i) {
      const int t = threadIdx.x + i * C::kThreads, r = t / (BK / 8), c = (t % (BK / 8)) * 8;
      const bool v = a_in[i] && k0 + c < k;
      cp16(as + r * C::kLdA + c, v ? a_src[i] : a, v);
      a_src[i] += BK;
    }
#pragma unroll
    for (int i = 0; i < C::kPiecesB; ++i) {
      const int t = threadIdx.x + i * C::kThreads, r = t / (BN / 8), c = (t % (BN / 8)) * 8;
      const bool v = b_in[i] && k0 + r < k;
      cp16(bs + r * C::kLdB + c, v ? b_src[i] : b, v);
      b_src[i] += int64_t{BK} * n;
    }
  }
};

template <typename T, typename FA, typename FB>
__device__ __forceinline__ void load_frags(FA (&fa)[4], FB (&fb)[4], const T* as, const T* bs, int wr, int wc, int kk,
                                           int lda, int ldb, bool ldsm) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    if (ldsm) {
#pragma unroll
      for (int i = 0; i < 4; ++i) ldsm_x4<false>(fa[i], as + (wr + i * 16) * lda + kk, lda, 0);
#pragma unroll
      for (int j = 0; j < 4; ++j) ldsm_x4<true>(fb[j], bs + kk * ldb + wc + j * 16, ldb, 0);
      return;
    }
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) wmma::load_matrix_sync(fa[i], as + (wr + i * 16) * lda + kk, lda);
#pragma unroll
  for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(fb[j], bs + kk * ldb + wc + j * 16, ldb);
}

template <typename T, int BM, int BN, int BK, int S, int MinBlocks, int Group, bool LDSM, bool DB>
__global__ void __launch_bounds__(Cfg<BM, BN, BK, S>::kThreads, MinBlocks)
    gemm(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int64_t m, int64_t n, int64_t k) {
  using C = Cfg<BM, BN, BK, S>;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* smem = reinterpret_cast<T*>(smem_raw);
  const int64_t tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
  const int64_t bid = blockIdx.x;
  int64_t tm, tn;
  if constexpr (Group > 0) {
    // Blocks walk down Group tile-rows before moving right: the blocks resident at once share
    // their A and B tiles in L2.
    const int64_t per_group = int64_t{Group} * tiles_n, g = bid / per_group, first_m = g * Group;
    const int64_t rows = tiles_m - first_m < Group ? tiles_m - first_m : Group;
    tm = first_m + (bid % per_group) % rows;
    tn = (bid % per_group) / rows;
  } else {
    tm = bid % tiles_m;
    tn = bid / tiles_m;
  }
  const int64_t r0 = tm * BM, c0 = tn * BN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wr = (warp / (BN / 64)) * 64, wc = (warp % (BN / 64)) * 64;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
  using FA = wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major>;
  using FB = wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major>;
  const int64_t kt_n = (k + BK - 1) / BK;
  Copier<T, BM, BN, BK, S> copier(a, b, m, n, k, r0, c0);
  auto stage = [&](int s, int64_t k0) { copier.step(smem + s * C::kStage, smem + s * C::kStage + BM * C::kLdA, k0, k, n); };
#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    if (s < kt_n) stage(s, s * BK);
    commit();
  }
  for (int64_t kt = 0; kt < kt_n; ++kt) {
    wait<S - 2>();
    __syncthreads();
    const int64_t nx = kt + S - 1;
    if (nx < kt_n) stage(static_cast<int>(nx % S), nx * BK);
    commit();
    const T* as = smem + static_cast<int>(kt % S) * C::kStage;
    const T* bs = as + BM * C::kLdA;
    if constexpr (!DB) {
#pragma unroll
      for (int kk = 0; kk < BK; kk += 16) {
        FA fa[4];
        FB fb[4];
        load_frags<T>(fa, fb, as, bs, wr, wc, kk, C::kLdA, C::kLdB, LDSM);
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
      }
    } else {
      FA fa[2][4];
      FB fb[2][4];
      load_frags<T>(fa[0], fb[0], as, bs, wr, wc, 0, C::kLdA, C::kLdB, LDSM);
#pragma unroll
      for (int step = 0; step < BK / 16; ++step) {
        if (step + 1 < BK / 16) load_frags<T>(fa[(step + 1) % 2], fb[(step + 1) % 2], as, bs, wr, wc, (step + 1) * 16, C::kLdA, C::kLdB, LDSM);
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], fa[step % 2][i], fb[step % 2][j], acc[i][j]);
      }
    }
  }
  wait<0>();
  __syncthreads();
  float* scratch = reinterpret_cast<float*>(smem_raw) + warp * 256;
  const int lr = lane / 2, lc = (lane % 2) * 8;
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      const int64_t row = r0 + wr + i * 16 + lr, col = c0 + wc + j * 16 + lc;
      if (row < m && col + 8 <= n) {
        alignas(16) T p[8];
#pragma unroll
        for (int e = 0; e < 8; ++e) p[e] = from_f<T>(scratch[lr * 16 + lc + e]);
        *reinterpret_cast<uint4*>(c + row * n + col) = *reinterpret_cast<const uint4*>(p);
      } else if (row < m) {
        for (int e = 0; e < 8 && col + e < n; ++e) c[row * n + col + e] = from_f<T>(scratch[lr * 16 + lc + e]);
      }
      __syncwarp();
    }
}

template <typename T, int BM, int BN, int BK, int S, int MB, int G, bool LDSM, bool DB>
int launch(const void* a, const void* b, void* c, int64_t m, int64_t n, int64_t k) {
  using C = Cfg<BM, BN, BK, S>;
  auto kern = gemm<T, BM, BN, BK, S, MB, G, LDSM, DB>;
  cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(C::kSmem));
  const int64_t blocks = ((m + BM - 1) / BM) * ((n + BN - 1) / BN);
  kern<<<static_cast<unsigned>(blocks), C::kThreads, C::kSmem, 0>>>(static_cast<const T*>(a), static_cast<const T*>(b),
                                                                     static_cast<T*>(c), m, n, k);
  return static_cast<int>(cudaGetLastError());
}

// Keep in step with GEMM2_CFGS in lab.py.
template <typename T>
int dispatch(int cfg, const void* a, const void* b, void* c, int64_t m, int64_t n, int64_t k) {
  switch (cfg) {
    case 0: return launch<T, 128, 128, 32, 4, 2, 0, false, false>(a, b, c, m, n, k);  // the template
    case 1: return launch<T, 128, 128, 32, 4, 2, 0, true, false>(a, b, c, m, n, k);
    case 2: return launch<T, 128, 128, 32, 4, 2, 8, true, false>(a, b, c, m, n, k);
    case 3: return launch<T, 128, 128, 64, 3, 2, 8, true, false>(a, b, c, m, n, k);
    case 4: return launch<T, 128, 256, 32, 4, 1, 0, true, false>(a, b, c, m, n, k);
    case 5: return launch<T, 128, 256, 32, 4, 1, 8, true, false>(a, b, c, m, n, k);
    case 6: return launch<T, 256, 128, 32, 4, 1, 8, true, false>(a, b, c, m, n, k);
    case 7: return launch<T, 128, 256, 64, 3, 1, 8, true, false>(a, b, c, m, n, k);
    case 8: return launch<T, 128, 256, 32, 4, 1, 8, true, true>(a, b, c, m, n, k);
    case 9: return launch<T, 128, 128, 32, 4, 2, 8, true, true>(a, b, c, m, n, k);
  }
  return -1;
}

extern "C" int lab_gemm2(int dtype, int cfg, const void* a, const void* b, void* c, int64_t m, int64_t n, int64_t k) {
  return dtype == 0 ? dispatch<__half>(cfg, a, b, c, m, n, k) : dispatch<__nv_bfloat16>(cfg, a, b, c, m, n, k);
}

extern "C" int lab_check_fragments(int* out_host) {
  int* out;
  cudaMalloc(&out, 4 * sizeof(int));
  cudaMemset(out, 0, 4 * sizeof(int));
  check_fragments<<<1, 32>>>(out);
  cudaMemcpy(out_host, out, 4 * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(out);
  return static_cast<int>(cudaGetLastError());
}
