/// @file 07_sgemm/grader/baselines.hpp
/// @brief What every stage is compared with: cuBLAS SGEMM on row-major data, TF32 off.
#pragma once

#include <cuda_runtime.h>

namespace ch07 {

/// C = alpha * A * B + beta * C with cuBLAS (cublasSgemm), row-major like the stages.
///
/// cuBLAS is column-major. A row-major M x N matrix is the column-major N x M matrix of its
/// transpose, so the row-major product C = A B is computed as the column-major product
/// C^T = B^T A^T: cublasSgemm(N, N, n = N, m = M, k = K, B with ld N, A with ld K, C with ld N).
/// The handle uses CUBLAS_DEFAULT_MATH: true float32 FMAs, no TF32 tensor cores (TF32 needs
/// CUBLAS_TF32_TENSOR_OP_MATH). One handle per process, created on first use; the work is put on
/// @p stream.
/// @p lda: the row length of A when it is not K (0): a product over the first K columns of longer rows.
void cublas_sgemm(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                  cudaStream_t stream, int lda = 0);

}   // namespace ch07
