// Lab round 5 (sm_90 only): the template's WMMA GEMM with the A tile shared by a cluster of 2
// blocks. Lab run 4 found the 128 x 128 kernel bound by L2 bandwidth (ncu: L2 at 85% of peak);
// blocks (tm, 2p) and (tm, 2p + 1) read the same A tile, so here each loads half of it with
// cp.async.bulk ... .multicast::cluster into both blocks' shared memory: 12 KB from L2 per
// block and K step instead of 16. Stages are tracked with mbarriers (full: bytes landed,
// empty: all 8 warps of the pair done reading), so no __syncthreads in the K loop.
// Lab simplifications: M, N multiples of 128 (N of 256), K of 32; row-major A, B, C.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cstdint>
#include <type_traits>
namespace wmma = nvcuda::wmma;

constexpr int BM = 128, BN = 128, BK = 32, S = 4, kThreads = 128;
constexpr int kLdA = BK + 8, kLdB = BN + 8;
constexpr int kStage = BM * kLdA + BK * kLdB;  // elements
constexpr size_t kTileBytes = size_t{S} * kStage * 2;
constexpr size_t kSmem = kTileBytes + 2 * S * 8;  // + full[S], empty[S] mbarriers
constexpr uint32_t kStageTx = BM * BK * 2 + BK * BN * 2;  // bytes landing per stage per block

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes));
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  uint32_t done = 0;
  while (!done) {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity));
  }
}
// Arrive on the barrier at the same offset in block `rank` of the cluster.
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t* bar, uint32_t rank) {
  asm volatile(
      "{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %0, %1;\n"
      " mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n}\n" ::"r"(smem_addr(bar)),
      "r"(rank));
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::);
}
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
}
__device__ __forceinline__ void bulk_copy_both(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  const uint16_t mask = 0b11;
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], "
      "%4;\n" ::"r"(smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(smem_addr(bar)), "h"(mask)
      : "memory");
}

template <typename Frag>
__device__ __forceinline__ void load_fragment(Frag& f, const __half* p, int ld) {
  wmma::load_matrix_sync(f, p, ld);
}
template <typename Frag>
__device__ __forceinline__ void load_fragment(Frag& f, const __nv_bfloat16* p, int ld) {
  const int lane = threadIdx.x % 32;
  const uint32_t addr = smem_addr(p + (lane % 16) * ld + (lane / 16) * 8);
  uint32_t* r = reinterpret_cast<uint32_t*>(f.x);
  if constexpr (std::is_same_v<Frag, wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major>>) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
  }
}
template <typename T> __device__ __forceinline__ T from_f(float x);
template <> __device__ __forceinline__ __half from_f(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f(float x) { return __float2bfloat16_rn(x); }

template <typename T, int Group>
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(kThreads, 2)
    gemm_mc(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int64_t m, int64_t n, int64_t k) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* smem = reinterpret_cast<T*>(smem_raw);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem_raw + kTileBytes);
  uint64_t* empty = full + S;
  const uint32_t rank = cluster_rank();
  const uint32_t peer = rank ^ 1;
  // Pair p of blocks computes tiles (tm, 2 tp) and (tm, 2 tp + 1); pairs in groups of tile-rows.
  const int64_t tiles_m = m / BM, pairs_n = n / (2 * BN);
  const int64_t pair = blockIdx.x / 2;
  const int64_t per_group = int64_t{Group} * pairs_n, g = pair / per_group, first_m = g * Group;
  const int64_t rows = tiles_m - first_m < Group ? tiles_m - first_m : Group;
  const int64_t tm = first_m + (pair % per_group) % rows;
  const int64_t tn = 2 * ((pair % per_group) / rows) + rank;
  const int64_t r0 = tm * BM, c0 = tn * BN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wr = (warp / 2) * 64, wc = (warp % 2) * 64;

  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], 2 * (kThreads / 32));  // every warp of both blocks
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::);
  }
  cluster_sync();

  const int64_t kt_n = k / BK;
  // Warp 0 fills stage s with K tile kt: this block's half of A's rows to both blocks, its own B.
  auto fill = [&](int s, int64_t kt) {
    T* as = smem + s * kStage;
    T* bs = as + BM * kLdA;
    if (lane == 0) mbar_expect_tx(&full[s], kStageTx);
    __syncwarp();
    const int64_t k0 = kt * BK;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int r = rank * 64 + lane + 32 * i;
      bulk_copy_both(as + r * kLdA, a + (r0 + r) * k + k0, BK * 2, &full[s]);
    }
    bulk_copy(bs + lane * kLdB, b + (k0 + lane) * n + c0, BN * 2, &full[s]);
  };
  if (warp == 0) {
    for (int s = 0; s < S && s < kt_n; ++s) fill(s, s);
  }

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
  using FA = wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major>;
  using FB = wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major>;

  for (int64_t kt = 0; kt < kt_n; ++kt) {
    const int s = static_cast<int>(kt % S);
    const uint32_t parity = static_cast<uint32_t>((kt / S) & 1);
    mbar_wait(&full[s], parity);
    const T* as = smem + s * kStage;
    const T* bs = as + BM * kLdA;
    FA fa[2][4];
    FB fb[2][4];
    auto load = [&](int set, int kk) {
#pragma unroll
      for (int i = 0; i < 4; ++i) load_fragment(fa[set][i], as + (wr + i * 16) * kLdA + kk * 16, kLdA);
#pragma unroll
      for (int j = 0; j < 4; ++j) load_fragment(fb[set][j], bs + kk * 16 * kLdB + wc + j * 16, kLdB);
    };
    load(0, 0);
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
      if (kk + 1 < BK / 16) load((kk + 1) % 2, kk + 1);
      if (kk + 1 == BK / 16) {
        // The last fragments are in registers: stage s may be refilled.
        __syncwarp();
        if (lane == 0) {
          mbar_arrive_cluster(&empty[s], rank);
          mbar_arrive_cluster(&empty[s], peer);
        }
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], fa[kk % 2][i], fb[kk % 2][j], acc[i][j]);
    }
    if (warp == 0 && kt + S < kt_n) {
      mbar_wait(&empty[s], parity);  // both blocks' warps are done with stage s
      fill(s, kt + S);
    }
  }
  // No block may leave while its peer can still multicast into it or arrive on its barriers.
  cluster_sync();

  float* scratch = reinterpret_cast<float*>(smem_raw) + warp * 256;
  const int lr = lane / 2, lc = (lane % 2) * 8;
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      const int64_t row = r0 + wr + i * 16 + lr, col = c0 + wc + j * 16 + lc;
      alignas(16) T p[8];
#pragma unroll
      for (int e = 0; e < 8; ++e) p[e] = from_f<T>(scratch[lr * 16 + lc + e]);
      *reinterpret_cast<uint4*>(c + row * n + col) = *reinterpret_cast<const uint4*>(p);
      __syncwarp();
    }
}

template <typename T, int G>
int launch(const void* a, const void* b, void* c, int64_t m, int64_t n, int64_t k) {
  if (m % BM || n % (2 * BN) || k % BK) return -2;
  auto kern = gemm_mc<T, G>;
  cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmem));
  const int64_t blocks = (m / BM) * (n / BN);
  kern<<<static_cast<unsigned>(blocks), kThreads, kSmem, 0>>>(static_cast<const T*>(a), static_cast<const T*>(b),
                                                               static_cast<T*>(c), m, n, k);
  return static_cast<int>(cudaGetLastError());
}

extern "C" int lab_gemm3(int dtype, int cfg, const void* a, const void* b, void* c, int64_t m, int64_t n, int64_t k) {
  if (cfg == 0) return dtype == 0 ? launch<__half, 8>(a, b, c, m, n, k) : launch<__nv_bfloat16, 8>(a, b, c, m, n, k);
  return dtype == 0 ? launch<__half, 0>(a, b, c, m, n, k) : launch<__nv_bfloat16, 0>(a, b, c, m, n, k);
}
