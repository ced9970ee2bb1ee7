/// @file 08_tensor_gemm/grader/baselines.hpp
/// @brief Chapter 8's library baseline: cuBLAS GEMM with 16-bit inputs and fp32 compute.
#pragma once

#include "08_tensor_gemm/hgemm_common.cuh"

#include <cuda_runtime.h>

namespace ch08 {

/// C = alpha * A * B + beta * C by cublasGemmEx (fp16 or bf16 in, CUBLAS_COMPUTE_32F, fp32 C) in the
/// chapter's layouts. Row-major C (M x N) is column-major C^T (N x M) = B^T A^T: B (stored N x K, i.e.
/// column-major K x N with ld K) is passed transposed, A (stored M x K: column-major K x M) as it is.
/// One handle per process; the work is put on @p stream. Needs an NVIDIA GPU (the CPU emulator has no
/// stand-in: the graders call it only where speed is measured).
/// @p ld: the row length of A and B (stored M x K and N x K) when it is not K (0): a product over the first
/// K of longer rows.
void cublas_hgemm(int M, int N, int K, float alpha, const void* A, const void* B, Dtype dtype, float beta, float* C,
                  cudaStream_t stream, int ld = 0);

}   // namespace ch08
