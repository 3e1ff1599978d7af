// Lab: WMMA GEMM tilings (block tile, warp tile, K step, stages, block swizzle), row-major
// A (MxK) @ B (KxN) -> C (MxN) in the input dtype, fp32 accumulation. Raw pointers, no torch.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <cstdint>
namespace wmma = nvcuda::wmma;

__device__ __forceinline__ void cp16(void* smem, const void* g, bool valid) {
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(g), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }
template <typename T> __device__ __forceinline__ T from_f(float x);
template <> __device__ __forceinline__ __half from_f(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f(float x) { return __float2bfloat16_rn(x); }

template <int BM, int BN, int BK, int WM, int WN, int S>
struct Cfg {
  static constexpr int kWarps = (BM / WM) * (BN / WN), kThreads = kWarps * 32;
  static constexpr int kLdA = BK + 8, kLdB = BN + 8;
  static constexpr int kStage = BM * kLdA + BK * kLdB;
  static constexpr size_t kSmem = size_t{S} * kStage * 2;
  static constexpr int FM = WM / 16, FN = WN / 16;
};

template <typename T, typename C, int S, int BM, int BN, int BK>
__device__ __forceinline__ void load(T* as, T* bs, const T* a, const T* b, int64_t m, int64_t n, int64_t k,
                                     int64_t r0, int64_t c0, int64_t k0) {
#pragma unroll
  for (int t = threadIdx.x; t < BM * BK / 8; t += C::kThreads) {
    int r = t / (BK / 8), c = (t % (BK / 8)) * 8;
    bool v = r0 + r < m && k0 + c < k;
    cp16(as + r * C::kLdA + c, v ? a + (r0 + r) * k + k0 + c : a, v);
  }
#pragma unroll
  for (int t = threadIdx.x; t < BK * BN / 8; t += C::kThreads) {
    int r = t / (BN / 8), c = (t % (BN / 8)) * 8;
    bool v = k0 + r < k && c0 + c < n;
    cp16(bs + r * C::kLdB + c, v ? b + (k0 + r) * n + c0 + c : b, v);
  }
}


// Copy descriptors computed once per thread: where each of its 16-byte pieces of the A and B
// tiles comes from and goes to. Per k-tile only the K test and a pointer bump remain.
template <typename T, int BM, int BN, int BK, int kThreads, int kLdA, int kLdB>
struct TileLoader {
  static constexpr int kA = BM * BK / 8 / kThreads, kB = BK * BN / 8 / kThreads;
  const T* a_src[kA]; int a_dst[kA]; int a_col[kA]; bool a_row_ok[kA];
  const T* b_src[kB]; int b_dst[kB]; int b_row[kB]; bool b_col_ok[kB];
  __device__ TileLoader(const T* a, const T* b, int64_t m, int64_t n, int64_t k, int64_t r0, int64_t c0) {
#pragma unroll
    for (int i = 0; i < kA; ++i) {
      const int t = threadIdx.x + i * kThreads, r = t / (BK / 8), c = (t % (BK / 8)) * 8;
      a_row_ok[i] = r0 + r < m; a_col[i] = c; a_dst[i] = r * kLdA + c;
      a_src[i] = a + (a_row_ok[i] ? (r0 + r) * k : 0) + c;
    }
#pragma unroll
    for (int i = 0; i < kB; ++i) {
      const int t = threadIdx.x + i * kThreads, r = t / (BN / 8), c = (t % (BN / 8)) * 8;
      b_col_ok[i] = c0 + c < n; b_row[i] = r; b_dst[i] = r * kLdB + c;
      b_src[i] = b + r * n + (b_col_ok[i] ? c0 + c : 0);
    }
  }
  // Stage the tile at k0, then advance the sources by BK.
  __device__ __forceinline__ void load(T* as, T* bs, int64_t k, int64_t n, int64_t k0) {
#pragma unroll
    for (int i = 0; i < kA; ++i) { const bool v = a_row_ok[i] && k0 + a_col[i] < k; cp16(as + a_dst[i], v ? a_src[i] : a_src[i] - a_col[i] - k0, v); a_src[i] += BK; }
#pragma unroll
    for (int i = 0; i < kB; ++i) { const bool v = b_col_ok[i] && k0 + b_row[i] < k; cp16(bs + b_dst[i], v ? b_src[i] : b_src[i] - (k0 + b_row[i]) * n, v); b_src[i] += int64_t{BK} * n; }
  }
};

template <typename T, int BM, int BN, int BK, int WM, int WN, int S, int MinBlocks, int Group, bool DB = false, bool IT = false>
__global__ void __launch_bounds__(Cfg<BM, BN, BK, WM, WN, S>::kThreads, MinBlocks)
gemm(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int64_t m, int64_t n, int64_t k) {
  using C = Cfg<BM, BN, BK, WM, WN, S>;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* smem = reinterpret_cast<T*>(smem_raw);
  // Block order: with Group > 0, blocks walk down Group tile-rows before moving right, so the
  // blocks resident at once share A and B tiles in L2.
  const int64_t tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
  int64_t tm, tn;
  const int64_t bid = blockIdx.x;
  if (Group > 0) {
    const int64_t per_group = int64_t{Group} * tiles_n;
    const int64_t g = bid / per_group, first_m = g * Group;
    const int64_t rows = tiles_m - first_m < Group ? tiles_m - first_m : Group;
    tm = first_m + (bid % per_group) % rows;
    tn = (bid % per_group) / rows;
  } else {
    tm = bid % tiles_m; tn = bid / tiles_m;
  }
  const int64_t r0 = tm * BM, c0 = tn * BN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wr = (warp / (BN / WN)) * WM, wc = (warp % (BN / WN)) * WN;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[C::FM][C::FN];
#pragma unroll
  for (int i = 0; i < C::FM; ++i)
#pragma unroll
    for (int j = 0; j < C::FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
  const int64_t kt_n = (k + BK - 1) / BK;
  TileLoader<T, BM, BN, BK, C::kThreads, C::kLdA, C::kLdB> loader(a, b, m, n, k, r0, c0);
  auto stage = [&](int s, int64_t k0) {
    if constexpr (IT) loader.load(smem + s * C::kStage, smem + s * C::kStage + BM * C::kLdA, k, n, k0);
    else load<T, C, S, BM, BN, BK>(smem + s * C::kStage, smem + s * C::kStage + BM * C::kLdA, a, b, m, n, k, r0, c0, k0);
  };
#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    if (s < kt_n) stage(s, s * BK);
    commit();
  }
  for (int64_t kt = 0; kt < kt_n; ++kt) {
    wait<S - 2>();
    __syncthreads();
    const int64_t nx = kt + S - 1;
    if (nx < kt_n) stage(nx % S, nx * BK);
    commit();
    const T* as = smem + (kt % S) * C::kStage;
    const T* bs = as + BM * C::kLdA;
    if constexpr (!DB) {
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa[C::FM];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> fb[C::FN];
#pragma unroll
      for (int i = 0; i < C::FM; ++i) wmma::load_matrix_sync(fa[i], as + (wr + i * 16) * C::kLdA + kk, C::kLdA);
#pragma unroll
      for (int j = 0; j < C::FN; ++j) wmma::load_matrix_sync(fb[j], bs + kk * C::kLdB + wc + j * 16, C::kLdB);
#pragma unroll
      for (int i = 0; i < C::FM; ++i)
#pragma unroll
        for (int j = 0; j < C::FN; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    } else {
      // Fragments for step kk + 16 are loaded before the MMAs of step kk.
      wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa[2][C::FM];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> fb[2][C::FN];
#pragma unroll
      for (int i = 0; i < C::FM; ++i) wmma::load_matrix_sync(fa[0][i], as + (wr + i * 16) * C::kLdA, C::kLdA);
#pragma unroll
      for (int j = 0; j < C::FN; ++j) wmma::load_matrix_sync(fb[0][j], bs + wc + j * 16, C::kLdB);
#pragma unroll
      for (int step = 0; step < BK / 16; ++step) {
        const int cur = step % 2;
        if (step + 1 < BK / 16) {
          const int kk = (step + 1) * 16;
#pragma unroll
          for (int i = 0; i < C::FM; ++i) wmma::load_matrix_sync(fa[cur ^ 1][i], as + (wr + i * 16) * C::kLdA + kk, C::kLdA);
#pragma unroll
          for (int j = 0; j < C::FN; ++j) wmma::load_matrix_sync(fb[cur ^ 1][j], bs + kk * C::kLdB + wc + j * 16, C::kLdB);
        }
#pragma unroll
        for (int i = 0; i < C::FM; ++i)
#pragma unroll
          for (int j = 0; j < C::FN; ++j) wmma::mma_sync(acc[i][j], fa[cur][i], fb[cur][j], acc[i][j]);
      }
    }
  }
  wait<0>();
  __syncthreads();
  float* scratch = reinterpret_cast<float*>(smem_raw) + warp * 256;
  const int lr = lane / 2, lc = (lane % 2) * 8;
#pragma unroll
  for (int i = 0; i < C::FM; ++i)
#pragma unroll
    for (int j = 0; j < C::FN; ++j) {
      wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      int64_t row = r0 + wr + i * 16 + lr, col = c0 + wc + j * 16 + lc;
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

template <typename T, int BM, int BN, int BK, int WM, int WN, int S, int MB, int G, bool DB = false, bool IT = false>
int launch(const void* a, const void* b, void* c, int64_t m, int64_t n, int64_t k) {
  using C = Cfg<BM, BN, BK, WM, WN, S>;
  auto kern = gemm<T, BM, BN, BK, WM, WN, S, MB, G, DB, IT>;
  cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)C::kSmem);
  int64_t blocks = ((m + BM - 1) / BM) * ((n + BN - 1) / BN);
  kern<<<(unsigned)blocks, C::kThreads, C::kSmem, 0>>>((const T*)a, (const T*)b, (T*)c, m, n, k);
  return (int)cudaGetLastError();
}

template <typename T>
int dispatch(int cfg, const void* a, const void* b, void* c, int64_t m, int64_t n, int64_t k) {
  switch (cfg) {
    case 0: return launch<T, 128, 128, 32, 64, 32, 3, 2, 0>(a, b, c, m, n, k);                 // template now
    case 1: return launch<T, 128, 128, 64, 64, 64, 3, 2, 0>(a, b, c, m, n, k);                 // lab 2 best
    case 2: return launch<T, 128, 128, 64, 64, 64, 3, 2, 0, false, true>(a, b, c, m, n, k);    // + loader
    case 3: return launch<T, 128, 128, 32, 64, 64, 4, 2, 0, false, true>(a, b, c, m, n, k);
    case 4: return launch<T, 128, 128, 64, 64, 64, 3, 2, 0, true, true>(a, b, c, m, n, k);
    case 5: return launch<T, 128, 256, 64, 64, 64, 3, 1, 0, false, true>(a, b, c, m, n, k);
  }
  return -1;
}

extern "C" int lab_gemm(int dtype, int cfg, const void* a, const void* b, void* c, int64_t m, int64_t n, int64_t k) {
  return dtype == 0 ? dispatch<__half>(cfg, a, b, c, m, n, k) : dispatch<__nv_bfloat16>(cfg, a, b, c, m, n, k);
}
