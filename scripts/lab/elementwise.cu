// Lab: elementwise launch schemes for vector_add and SiLU (fwd/bwd), raw pointers, no torch.
// Built by lab.py with nvcc into a shared library; lab.py times them against torch.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>

template <typename T> __device__ __forceinline__ float to_f(T x);
template <> __device__ __forceinline__ float to_f(float x) { return x; }
template <> __device__ __forceinline__ float to_f(__half x) { return __half2float(x); }
template <> __device__ __forceinline__ float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename T> __device__ __forceinline__ T from_f(float x);
template <> __device__ __forceinline__ float from_f(float x) { return x; }
template <> __device__ __forceinline__ __half from_f(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f(float x) { return __float2bfloat16_rn(x); }

template <typename T> struct alignas(16) V16 { static constexpr int N = 16 / sizeof(T); T v[N]; };

struct Add { template <typename T> __device__ static T f(T a, T b) { return from_f<T>(to_f(a) + to_f(b)); } };
struct SiluAcc { template <typename T> __device__ static T f(T x, T) { float v = to_f(x); return from_f<T>(v / (1.0f + expf(-v))); } };
struct SiluFast { template <typename T> __device__ static T f(T x, T) { float v = to_f(x); return from_f<T>(__fdividef(v, 1.0f + __expf(-v))); } };
struct SiluBwd { template <typename T> __device__ static T f(T g, T x) { float v = to_f(x); float s = 1.0f / (1.0f + expf(-v)); return from_f<T>(to_f(g) * s * (1.0f + v * (1.0f - s))); } };

template <typename V>
__device__ __forceinline__ V ld(const V* p, bool stream) {
  if (stream) { V r; *reinterpret_cast<uint4*>(&r) = __ldcs(reinterpret_cast<const uint4*>(p)); return r; }
  return *p;
}
template <typename V>
__device__ __forceinline__ void st(V* p, const V& v, bool stream) {
  if (stream) __stcs(reinterpret_cast<uint4*>(p), *reinterpret_cast<const uint4*>(&v)); else *p = v;
}

// Scheme G: grid-stride, kUnroll loads strided by the grid (the current template).
template <typename T, typename Op, int U, bool kTwo>
__global__ void gs_kernel(const T* a, const T* b, T* c, int64_t n_vec) {
  using V = V16<T>;
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  const int64_t first = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  for (int64_t base = first; base < n_vec; base += U * stride) {
    V x[U], y[U];
#pragma unroll
    for (int u = 0; u < U; ++u) { int64_t i = base + u * stride; if (i < n_vec) { x[u] = reinterpret_cast<const V*>(a)[i]; if (kTwo) y[u] = reinterpret_cast<const V*>(b)[i]; } }
#pragma unroll
    for (int u = 0; u < U; ++u) { int64_t i = base + u * stride; if (i < n_vec) { V o;
#pragma unroll
      for (int k = 0; k < V::N; ++k) o.v[k] = Op::f(x[u].v[k], kTwo ? y[u].v[k] : x[u].v[k]);
      reinterpret_cast<V*>(c)[i] = o; } }
  }
}

// Scheme O: one pass, each block owns a contiguous chunk of U * blockDim vectors.
template <typename T, typename Op, int U, bool kTwo, bool kStream>
__global__ void os_kernel(const T* a, const T* b, T* c, int64_t n_vec) {
  using V = V16<T>;
  const int64_t base = int64_t{blockIdx.x} * blockDim.x * U + threadIdx.x;
  V x[U], y[U];
  if (base + (U - 1) * int64_t{blockDim.x} < n_vec) {  // full chunk: no per-load checks
#pragma unroll
    for (int u = 0; u < U; ++u) { x[u] = ld(reinterpret_cast<const V*>(a) + base + u * blockDim.x, kStream); if (kTwo) y[u] = ld(reinterpret_cast<const V*>(b) + base + u * blockDim.x, kStream); }
#pragma unroll
    for (int u = 0; u < U; ++u) { V o;
#pragma unroll
      for (int k = 0; k < V::N; ++k) o.v[k] = Op::f(x[u].v[k], kTwo ? y[u].v[k] : x[u].v[k]);
      st(reinterpret_cast<V*>(c) + base + u * blockDim.x, o, kStream); }
  } else {
    for (int u = 0; u < U; ++u) { int64_t i = base + u * blockDim.x; if (i < n_vec) { V xa = reinterpret_cast<const V*>(a)[i]; V yb = kTwo ? reinterpret_cast<const V*>(b)[i] : xa; V o;
      for (int k = 0; k < V::N; ++k) o.v[k] = Op::f(xa.v[k], yb.v[k]);
      reinterpret_cast<V*>(c)[i] = o; } }
  }
}

static int sm_count() { static int n = [] { int d, v; cudaGetDevice(&d); cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, d); return v; }(); return n; }

template <typename T, typename Op, bool kTwo>
void run(int scheme, const void* a, const void* b, void* c, int64_t n, cudaStream_t s) {
  const int64_t n_vec = n / V16<T>::N;
  const T* pa = (const T*)a; const T* pb = (const T*)b; T* pc = (T*)c;
  const int th = 256;
  switch (scheme) {
    case 0: { int64_t blocks = (n_vec + th * 4 - 1) / (th * 4); blocks = blocks < 16LL * sm_count() ? blocks : 16LL * sm_count();
              gs_kernel<T, Op, 4, kTwo><<<(unsigned)blocks, th, 0, s>>>(pa, pb, pc, n_vec); break; }
    case 1: { int64_t blocks = (n_vec + th * 4 - 1) / (th * 4); blocks = blocks < 8LL * sm_count() ? blocks : 8LL * sm_count();
              gs_kernel<T, Op, 4, kTwo><<<(unsigned)blocks, th, 0, s>>>(pa, pb, pc, n_vec); break; }
    case 2: os_kernel<T, Op, 4, kTwo, false><<<(unsigned)((n_vec + th * 4 - 1) / (th * 4)), th, 0, s>>>(pa, pb, pc, n_vec); break;
    case 3: os_kernel<T, Op, 4, kTwo, true><<<(unsigned)((n_vec + th * 4 - 1) / (th * 4)), th, 0, s>>>(pa, pb, pc, n_vec); break;
    case 4: os_kernel<T, Op, 2, kTwo, false><<<(unsigned)((n_vec + th * 2 - 1) / (th * 2)), th, 0, s>>>(pa, pb, pc, n_vec); break;
    case 5: os_kernel<T, Op, 8, kTwo, false><<<(unsigned)((n_vec + th * 8 - 1) / (th * 8)), th, 0, s>>>(pa, pb, pc, n_vec); break;
    case 6: os_kernel<T, Op, 4, kTwo, false><<<(unsigned)((n_vec + 128 * 4 - 1) / (128 * 4)), 128, 0, s>>>(pa, pb, pc, n_vec); break;
  }
}

// op: 0 add, 1 silu accurate, 2 silu fast, 3 silu bwd; dtype: 0 f32, 1 f16, 2 bf16.
extern "C" int lab_elementwise(int op, int dtype, int scheme, const void* a, const void* b, void* c, int64_t n) {
  cudaStream_t s = 0;
#define DT(T) switch (op) { case 0: run<T, Add, true>(scheme, a, b, c, n, s); break; case 1: run<T, SiluAcc, false>(scheme, a, b, c, n, s); break; \
  case 2: run<T, SiluFast, false>(scheme, a, b, c, n, s); break; case 3: run<T, SiluBwd, true>(scheme, a, b, c, n, s); break; }
  if (dtype == 0) { DT(float) } else if (dtype == 1) { DT(__half) } else { DT(__nv_bfloat16) }
  return (int)cudaGetLastError();
}
