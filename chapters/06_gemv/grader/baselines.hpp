/// @file 06_gemv/grader/baselines.hpp
/// @brief The library a user would call instead: cuBLAS's single-precision GEMV.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace ch06 {

/// y = A x for the row-major M x K matrix A, through cublasSgemv. cuBLAS is column-major: the same
/// bytes are a K x M column-major matrix (leading dimension K), which is A transposed, so the call
/// is gemv with CUBLAS_OP_T on that view. M and K must fit in an int. The handle is created on the
/// first call and kept; every call runs on @p stream.
void cublas_gemv(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream);

}   // namespace ch06
