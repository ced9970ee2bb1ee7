/// @file cublas_v2.h
/// @brief The CPU backend's stand-in for the few cuBLAS calls the library baselines use
/// (cublasSgemv, cublasSgemm): plain loops in float, queued in stream order. They exist so that the
/// chapters' baseline code compiles and links; emulation never times anything.
#pragma once

#include "cuda_runtime.h"
#include "emu/library_support.hpp"

#include <algorithm>
#include <vector>

typedef enum {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_EXECUTION_FAILED = 13,
    CUBLAS_STATUS_NOT_SUPPORTED = 15,
} cublasStatus_t;

typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;

typedef enum {
    CUBLAS_DEFAULT_MATH = 0,
    CUBLAS_TENSOR_OP_MATH = 1,
    CUBLAS_PEDANTIC_MATH = 2,
    CUBLAS_TF32_TENSOR_OP_MATH = 3,
} cublasMath_t;

struct cublasContext {
    cudaStream_t stream;
    cublasMath_t math;
};
typedef cublasContext* cublasHandle_t;

inline cublasStatus_t cublasCreate(cublasHandle_t* handle)
{
    if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
    *handle = new cublasContext{nullptr, CUBLAS_DEFAULT_MATH};
    return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasDestroy(cublasHandle_t handle)
{
    cudaDeviceSynchronize();
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t* stream)
{
    if (!handle || !stream) return CUBLAS_STATUS_NOT_INITIALIZED;
    *stream = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->math = mode;
    return CUBLAS_STATUS_SUCCESS;
}

/// y = alpha * op(A) * x + beta * y, A column-major m x n with leading dimension lda.
inline cublasStatus_t cublasSgemv(cublasHandle_t handle, cublasOperation_t trans, int m, int n, const float* alpha,
                                  const float* A, int lda, const float* x, int incx, const float* beta, float* y,
                                  int incy)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || lda < (m > 1 ? m : 1) || incx == 0 || incy == 0) return CUBLAS_STATUS_INVALID_VALUE;
    const float a = *alpha, b = *beta;
    const cudaError_t err = emu::run_in_stream_order(handle->stream, [=] {
        const bool transposed = trans != CUBLAS_OP_N;
        const int rows = transposed ? n : m, inner = transposed ? m : n;
        for (int r = 0; r < rows; ++r) {
            float sum = 0.0f;
            for (int k = 0; k < inner; ++k) {
                const float value =
                    transposed ? A[static_cast<long long>(r) * lda + k] : A[static_cast<long long>(k) * lda + r];
                sum += value * x[static_cast<long long>(k) * incx];
            }
            float& out = y[static_cast<long long>(r) * incy];
            out = b == 0.0f ? a * sum : a * sum + b * out;
        }
    });
    return err == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}

/// C = alpha * op(A) * op(B) + beta * C, all column-major; C is m x n.
inline cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                                  int n, int k, const float* alpha, const float* A, int lda, const float* B, int ldb,
                                  const float* beta, float* C, int ldc)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || k < 0 || ldc < (m > 1 ? m : 1)) return CUBLAS_STATUS_INVALID_VALUE;
    const float a = *alpha, b_scale = *beta;
    const bool beta_is_zero = b_scale == 0.0f;
    const cudaError_t err = emu::run_in_stream_order(handle->stream, [=] {
        // Column by column of C, the inner loop running down a column of A: contiguous when A is not
        // transposed (the case of the row-major wrappers). Each element sums over p in order, in float.
        std::vector<float> column(static_cast<std::size_t>(m));
        for (int j = 0; j < n; ++j) {
            std::fill(column.begin(), column.end(), 0.0f);
            for (int p = 0; p < k; ++p) {
                const float b = transb == CUBLAS_OP_N ? B[static_cast<long long>(j) * ldb + p]
                                                      : B[static_cast<long long>(p) * ldb + j];
                if (transa == CUBLAS_OP_N) {
                    const float* a_column = A + static_cast<long long>(p) * lda;
                    for (int i = 0; i < m; ++i) column[i] += a_column[i] * b;
                } else {
                    for (int i = 0; i < m; ++i) column[i] += A[static_cast<long long>(i) * lda + p] * b;
                }
            }
            float* out = C + static_cast<long long>(j) * ldc;
            for (int i = 0; i < m; ++i) out[i] = beta_is_zero ? a * column[i] : a * column[i] + b_scale * out[i];
        }
    });
    return err == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}
