// Lab: CSR SpMV schemes, y = A x, float32 values. Raw pointers, no torch.
#include <cstdint>

// The seed article's kernel: one thread per row.
template <typename I>
__global__ void spmv_row_per_thread(const I* crow, const I* col, const float* val, const float* x, float* y, int64_t rows) {
  int64_t r = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.f;
  for (I i = crow[r]; i < crow[r + 1]; ++i) s += val[i] * __ldg(x + col[i]);
  y[r] = s;
}

// L lanes per row, shuffle reduction.
template <typename I, int L>
__global__ void spmv_vector(const I* crow, const I* col, const float* val, const float* x, float* y, int64_t rows) {
  int64_t t = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  int64_t r = t / L; int lane = threadIdx.x % L;
  float s = 0.f;
  if (r < rows) for (int64_t i = crow[r] + lane; i < crow[r + 1]; i += L) s += val[i] * __ldg(x + col[i]);
#pragma unroll
  for (int o = L / 2; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o, L);
  if (r < rows && lane == 0) y[r] = s;
}

// Nonzero split: block b owns nonzeros [b*C, (b+1)*C). Products are formed with coalesced
// loads into shared memory; each row overlapping the chunk is then summed by a group of lanes
// sized from how many rows the chunk holds. Rows wholly inside are stored; rows cut by a
// chunk edge are added atomically into y, which starts zeroed.
template <typename I, int kThreads, int kPerThread>
__global__ void __launch_bounds__(kThreads) spmv_split(const I* crow, const I* col, const float* val, const float* x,
                                                       float* y, int64_t rows, int64_t nnz) {
  constexpr int C = kThreads * kPerThread;
  __shared__ float prod[C];
  __shared__ int64_t bounds[2];
  const int64_t nz0 = int64_t{blockIdx.x} * C;
  const int64_t nz1 = nz0 + C < nnz ? nz0 + C : nnz;
  if (threadIdx.x < 2) {  // first row whose range reaches nz0, last row that starts before nz1
    const int64_t target = threadIdx.x == 0 ? nz0 : nz1 - 1;
    int64_t lo = 0, hi = rows;  // largest r with crow[r] <= target
    while (hi - lo > 1) { int64_t mid = (lo + hi) / 2; if (crow[mid] <= target) lo = mid; else hi = mid; }
    bounds[threadIdx.x] = lo;
  }
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {
    const int64_t i = nz0 + e * kThreads + threadIdx.x;
    prod[e * kThreads + threadIdx.x] = i < nz1 ? val[i] * __ldg(x + col[i]) : 0.f;
  }
  __syncthreads();
  const int64_t r_first = bounds[0], r_last = bounds[1];
  const int64_t n_rows = r_last - r_first + 1;
  int lanes = 1;  // lanes per row: all threads busy, at most a warp per row
  while (lanes < 32 && n_rows * lanes * 2 <= kThreads) lanes *= 2;
  const int group = threadIdx.x / lanes, lane = threadIdx.x % lanes, groups = kThreads / lanes;
  for (int64_t r = r_first + group; r - group <= r_last; r += groups) {
    float s = 0.f;
    int64_t begin = 0, end = 0;
    if (r <= r_last) {
      begin = crow[r]; end = crow[r + 1];
      const int64_t lo = (begin > nz0 ? begin : nz0) - nz0, hi = (end < nz1 ? end : nz1) - nz0;
      for (int64_t i = lo + lane; i < hi; i += lanes) s += prod[i];
    }
    for (int o = lanes / 2; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o, lanes);
    if (r <= r_last && lane == 0) {
      if (begin >= nz0 && end <= nz1) y[r] = s; else atomicAdd(y + r, s);
    }
  }
}

template <typename I>
int run(int scheme, const void* crow, const void* col, const float* val, const float* x, float* y, int64_t rows, int64_t nnz) {
  const I* c = (const I*)crow; const I* k = (const I*)col;
  switch (scheme) {
    case 0: spmv_row_per_thread<I><<<(unsigned)((rows + 255) / 256), 256>>>(c, k, val, x, y, rows); break;
    case 1: spmv_vector<I, 2><<<(unsigned)((rows * 2 + 255) / 256), 256>>>(c, k, val, x, y, rows); break;
    case 2: spmv_vector<I, 4><<<(unsigned)((rows * 4 + 255) / 256), 256>>>(c, k, val, x, y, rows); break;
    case 3: spmv_vector<I, 8><<<(unsigned)((rows * 8 + 255) / 256), 256>>>(c, k, val, x, y, rows); break;
    case 4: cudaMemsetAsync(y, 0, rows * 4); spmv_split<I, 256, 8><<<(unsigned)((nnz + 2047) / 2048), 256>>>(c, k, val, x, y, rows, nnz); break;
    case 5: cudaMemsetAsync(y, 0, rows * 4); spmv_split<I, 256, 4><<<(unsigned)((nnz + 1023) / 1024), 256>>>(c, k, val, x, y, rows, nnz); break;
    case 6: cudaMemsetAsync(y, 0, rows * 4); spmv_split<I, 128, 8><<<(unsigned)((nnz + 1023) / 1024), 128>>>(c, k, val, x, y, rows, nnz); break;
    case 7: cudaMemsetAsync(y, 0, rows * 4); spmv_split<I, 256, 16><<<(unsigned)((nnz + 4095) / 4096), 256>>>(c, k, val, x, y, rows, nnz); break;
  }
  return (int)cudaGetLastError();
}

extern "C" int lab_spmv(int index64, int scheme, const void* crow, const void* col, const float* val, const float* x,
                        float* y, int64_t rows, int64_t nnz) {
  return index64 ? run<int64_t>(scheme, crow, col, val, x, y, rows, nnz) : run<int>(scheme, crow, col, val, x, y, rows, nnz);
}
