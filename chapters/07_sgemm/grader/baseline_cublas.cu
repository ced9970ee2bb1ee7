// cuBLAS SGEMM (TF32 off) on row-major data: the library baseline of chapter 7.
#include "07_sgemm/grader/baselines.hpp"

#include "common/cuda_check.hpp"

#include <cublas_v2.h>

#include <stdexcept>
#include <string>

namespace ch07 {

namespace {

void check_cublas(cublasStatus_t status, const char* what)
{
    if (status == CUBLAS_STATUS_SUCCESS) return;
    throw std::runtime_error(std::string("cuBLAS call `") + what + "` failed with status " +
                             std::to_string(static_cast<int>(status)));
}

cublasHandle_t handle()
{
    static cublasHandle_t h = [] {
        cublasHandle_t created = nullptr;
        check_cublas(cublasCreate(&created), "cublasCreate");
        // Plain float32 arithmetic: cublasSgemm uses TF32 tensor cores only when asked to
        // (CUBLAS_TF32_TENSOR_OP_MATH), never under the default math mode.
        check_cublas(cublasSetMathMode(created, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
        return created;
    }();   // never destroyed: the process ends with the grader, and the driver frees it then
    return h;
}

}   // namespace

void cublas_sgemm(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                  cudaStream_t stream, int lda)
{
    if (lda == 0) lda = K;
    cublasHandle_t h = handle();
    check_cublas(cublasSetStream(h, stream), "cublasSetStream");
    // Row-major C (M x N) is column-major C^T (N x M) = B^T (N x K) * A^T (K x M).
    check_cublas(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, N, A, lda, &beta, C, N), "cublasSgemm");
}

}   // namespace ch07
