// Tensor-core instructions on the CPU backend: ldmatrix and mma.sync m16n8k16 (chapters/common/
// tensor_core.cuh) checked against the tables of the PTX ISA, and WMMA (<mma.h>) against a scalar
// matrix product.
//
// The expected layouts below are written from the PTX ISA, independently of the emulator's code:
//   - "Warp-level matrix load instruction: ldmatrix": lanes 8i..8i+7 give the row addresses of matrix
//     i; lane l receives in register i the elements (l / 4, 2 (l % 4)) and (l / 4, 2 (l % 4) + 1) of
//     matrix i (low half first); with .trans, of the transposed matrix.
//   - "Matrix Fragments for mma.m16n8k16 with floating point type" (groupID = lane >> 2,
//     threadID_in_group = lane % 4):
//       A a0..a7: row = groupID for i in {0,1,4,5}, groupID + 8 otherwise;
//                 col = threadID_in_group * 2 + (i & 1), + 8 for i >= 4
//       B b0..b3: row = threadID_in_group * 2 + (i & 1), + 8 for i >= 2; col = groupID
//       C c0..c3: row = groupID, + 8 for i >= 2; col = threadID_in_group * 2 + (i & 1)
#include "emu_test.hpp"

#include "common/tensor_core.cuh"

#include <mma.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using emu_test::contains;
using emu_test::DeviceArray;

namespace {

struct Pos {
    int row, col;
};
// The ISA's tables, as the test reads them (element i of a lane; registers hold elements 2r, 2r+1).
__host__ __device__ Pos isa_a(int lane, int i)
{
    const int g = lane >> 2, t = lane % 4;
    const bool upper = (i >= 2 && i < 4) || i >= 6;
    return {upper ? g + 8 : g, t * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
}
__host__ __device__ Pos isa_b(int lane, int i)
{
    const int g = lane >> 2, t = lane % 4;
    return {t * 2 + (i & 1) + (i >= 2 ? 8 : 0), g};
}
__host__ __device__ Pos isa_c(int lane, int i)
{
    const int g = lane >> 2, t = lane % 4;
    return {i >= 2 ? g + 8 : g, t * 2 + (i & 1)};
}

std::uint16_t bits16(float v, bool bf16)
{
    return bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(v)) : __half_as_ushort(__float2half_rn(v));
}

// ---- ldmatrix -------------------------------------------------------------------------------------

/// 32 rows of 8 elements in shared memory, element (r, c) = 100 r + c; lane l passes the address of
/// row perm(l) = (l * 7 + 3) % 32, so the test sees that each lane's own address is used.
template <int N, bool Trans>
__global__ void ldmatrix_kernel(std::uint32_t* out)
{
    __shared__ alignas(16) std::uint16_t rows[32][8];
    const int lane = threadIdx.x;
    for (int c = 0; c < 8; ++c) rows[lane][c] = static_cast<std::uint16_t>(100 * lane + c);
    __syncwarp();
    std::uint32_t regs[N];
    const void* mine = rows[(lane * 7 + 3) % 32];
    if constexpr (N == 1) Trans ? wb::ldmatrix_x1_trans(regs, mine) : wb::ldmatrix_x1(regs, mine);
    if constexpr (N == 2) Trans ? wb::ldmatrix_x2_trans(regs, mine) : wb::ldmatrix_x2(regs, mine);
    if constexpr (N == 4) Trans ? wb::ldmatrix_x4_trans(regs, mine) : wb::ldmatrix_x4(regs, mine);
    for (int i = 0; i < N; ++i) out[lane * N + i] = regs[i];
}

std::uint32_t expected_ldmatrix(int lane, int matrix, bool trans)
{
    auto element = [&](int r, int c) {   // element (r, c) of matrix `matrix`: row r is given by lane 8 matrix + r
        const int stored_row = ((8 * matrix + r) * 7 + 3) % 32;
        return static_cast<std::uint32_t>(100 * stored_row + c);
    };
    const int r = lane / 4, c = 2 * (lane % 4);
    const std::uint32_t lo = trans ? element(c, r) : element(r, c);
    const std::uint32_t hi = trans ? element(c + 1, r) : element(r, c + 1);
    return lo | (hi << 16);
}

template <int N, bool Trans>
void check_ldmatrix()
{
    DeviceArray<std::uint32_t> out(32 * N);
    ldmatrix_kernel<N, Trans><<<1, 32>>>(out.data);
    REQUIRE(emu_test::finish().ok());
    const auto h = out.download();
    for (int lane = 0; lane < 32; ++lane) {
        for (int i = 0; i < N; ++i) {
            INFO("x" << N << (Trans ? ".trans" : "") << " lane " << lane << " register " << i);
            CHECK(h[lane * N + i] == expected_ldmatrix(lane, i, Trans));
        }
    }
}

// ---- mma.sync m16n8k16 ------------------------------------------------------------------------------

/// Builds every lane's fragments from row-major A (16x16), B (16x8) and C (16x8) with the ISA's
/// tables, runs the mma and scatters D with the table of C.
template <typename T>
__global__ void mma_kernel(const std::uint16_t* a, const std::uint16_t* b, const float* c, float* d)
{
    const int lane = threadIdx.x;
    std::uint32_t fa[4], fb[2];
    float fc[4];
    for (int r = 0; r < 4; ++r) {
        const Pos lo = isa_a(lane, 2 * r), hi = isa_a(lane, 2 * r + 1);
        fa[r] = a[lo.row * 16 + lo.col] | (static_cast<std::uint32_t>(a[hi.row * 16 + hi.col]) << 16);
    }
    for (int r = 0; r < 2; ++r) {
        const Pos lo = isa_b(lane, 2 * r), hi = isa_b(lane, 2 * r + 1);
        fb[r] = b[lo.row * 8 + lo.col] | (static_cast<std::uint32_t>(b[hi.row * 8 + hi.col]) << 16);
    }
    for (int i = 0; i < 4; ++i) fc[i] = c[isa_c(lane, i).row * 8 + isa_c(lane, i).col];
    wb::mma_m16n8k16<T>(fc, fa, fb, fc);   // in place, as a main loop accumulates
    for (int i = 0; i < 4; ++i) d[isa_c(lane, i).row * 8 + isa_c(lane, i).col] = fc[i];
}

/// D = A B + C in double from the 16-bit inputs.
std::vector<double> reference_product(const std::vector<float>& a, const std::vector<float>& b,
                                      const std::vector<float>& c, int m, int n, int k)
{
    std::vector<double> d(static_cast<std::size_t>(m) * n);
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            double s = c[i * n + j];
            for (int p = 0; p < k; ++p) s += static_cast<double>(a[i * k + p]) * b[p * n + j];
            d[i * n + j] = s;
        }
    }
    return d;
}

/// Runs mma_kernel on the given float matrices (rounded to T first); returns D.
template <typename T>
std::vector<float> run_mma(std::vector<float>& a, std::vector<float>& b, const std::vector<float>& c)
{
    const bool bf16 = std::is_same_v<T, __nv_bfloat16>;
    std::vector<std::uint16_t> a16(a.size()), b16(b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        a16[i] = bits16(a[i], bf16);
        a[i] = bf16 ? __bfloat162float(__ushort_as_bfloat16(a16[i])) : __half2float(__ushort_as_half(a16[i]));
    }
    for (std::size_t i = 0; i < b.size(); ++i) {
        b16[i] = bits16(b[i], bf16);
        b[i] = bf16 ? __bfloat162float(__ushort_as_bfloat16(b16[i])) : __half2float(__ushort_as_half(b16[i]));
    }
    DeviceArray<std::uint16_t> da(a16), db(b16);
    DeviceArray<float> dc(c), dd(16 * 8);
    mma_kernel<T><<<1, 32>>>(da.data, db.data, dc.data, dd.data);
    REQUIRE(emu_test::finish().ok());
    return dd.download();
}

template <typename T>
void check_mma_against_scalar_product()
{
    std::mt19937 rng(17);
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    std::vector<float> a(256), b(128), c(128);
    for (float& v : a) v = u(rng);
    for (float& v : b) v = u(rng);
    for (float& v : c) v = u(rng);
    const auto d = run_mma<T>(a, b, c);
    const auto expected = reference_product(a, b, c, 16, 8, 16);
    for (int i = 0; i < 128; ++i) {
        INFO("D[" << i / 8 << "][" << i % 8 << "]");
        // fp32 accumulation of 16 exact products of magnitude <= 4: a few units of 2^-21 at most.
        CHECK(std::fabs(d[i] - expected[i]) <= 1e-5 * (1.0 + std::fabs(expected[i])));
    }
}

/// Each element of A, B and C read back through the mma from its ISA position: with B selecting
/// column kk of A (B[k][n] = (k == n + kk0)), D = A's columns kk0..kk0+7; with A = I, D = B; with
/// A = 0, D = C.
template <typename T>
void check_mma_positions()
{
    std::vector<float> a(256), b(128), c(128, 0.0f);
    for (int i = 0; i < 256; ++i) a[i] = static_cast<float>(i % 97 + 1);   // exact in half and bfloat16
    for (int half_k = 0; half_k < 2; ++half_k) {
        for (int k = 0; k < 16; ++k) {
            for (int n = 0; n < 8; ++n) b[k * 8 + n] = (k == n + 8 * half_k) ? 1.0f : 0.0f;
        }
        const auto d = run_mma<T>(a, b, c);
        for (int r = 0; r < 16; ++r) {
            for (int n = 0; n < 8; ++n) {
                INFO("A[" << r << "][" << n + 8 * half_k << "]");
                CHECK(d[r * 8 + n] == a[r * 16 + n + 8 * half_k]);
            }
        }
    }
    for (int i = 0; i < 256; ++i) a[i] = (i / 16 == i % 16) ? 1.0f : 0.0f;
    for (int i = 0; i < 128; ++i) b[i] = static_cast<float>(i % 61 + 1);
    auto d = run_mma<T>(a, b, c);
    for (int i = 0; i < 128; ++i) {
        INFO("B[" << i / 8 << "][" << i % 8 << "]");
        CHECK(d[i] == b[i]);
    }
    std::fill(a.begin(), a.end(), 0.0f);
    for (int i = 0; i < 128; ++i) c[i] = static_cast<float>(i) + 0.5f;
    d = run_mma<T>(a, b, c);
    for (int i = 0; i < 128; ++i) {
        INFO("C[" << i / 8 << "][" << i % 8 << "]");
        CHECK(d[i] == c[i]);
    }
}

/// The pair as a chapter-8 kernel uses it: A (16x16) and B (16x8, K rows of N) row-major in shared
/// memory, ldmatrix_x4 for A and ldmatrix_x2_trans for B, then the mma.
__global__ void ldmatrix_then_mma(const __half* a, const __half* b, float* d)
{
    __shared__ alignas(16) __half sa[16 * 16];
    __shared__ alignas(16) __half sb[16 * 8];
    const int lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) sa[i] = a[i];
    for (int i = lane; i < 128; i += 32) sb[i] = b[i];
    __syncwarp();
    std::uint32_t fa[4], fb[2];
    wb::ldmatrix_x4(fa, &sa[(lane % 16) * 16 + (lane / 16) * 8]);
    wb::ldmatrix_x2_trans(fb, &sb[(lane % 16) * 8]);
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    wb::mma_m16n8k16<__half>(acc, fa, fb, acc);
    for (int i = 0; i < 4; ++i) d[isa_c(lane, i).row * 8 + isa_c(lane, i).col] = acc[i];
}

// ---- misuse -----------------------------------------------------------------------------------------

constexpr int kDivergentLine = __LINE__ + 8;
__global__ void divergent_mma(float* out)
{
    std::uint32_t a[4] = {0, 0, 0, 0}, b[2] = {0, 0};
    float acc[4] = {0, 0, 0, 0};
    if (threadIdx.x < 16) {
        wb::mma_m16n8k16<__half>(acc, a, b, acc);
    } else {
        wb::mma_m16n8k16<__half>(acc, a, b, acc);
    }
    out[threadIdx.x] = acc[0];
}

__global__ void half_warp_ldmatrix(std::uint32_t* out)
{
    __shared__ alignas(16) std::uint16_t rows[8][8];
    if (threadIdx.x < 8) {
        for (int c = 0; c < 8; ++c) rows[threadIdx.x][c] = 0;
    }
    __syncthreads();
    std::uint32_t r[1];
    wb::ldmatrix_x1(r, rows[threadIdx.x % 8]);
    out[threadIdx.x] = r[0];
}

__global__ void ldmatrix_from_global(const std::uint16_t* global_rows, std::uint32_t* out)
{
    std::uint32_t r[1];
    wb::ldmatrix_x1(r, global_rows + 8 * (threadIdx.x % 8));
    out[threadIdx.x] = r[0];
}

__global__ void ldmatrix_unaligned(std::uint32_t* out)
{
    __shared__ alignas(16) std::uint16_t rows[9][8];
    for (int c = 0; c < 8; ++c) rows[threadIdx.x % 9][c] = 1;
    __syncthreads();
    std::uint32_t r[1];
    wb::ldmatrix_x1(r, &rows[threadIdx.x % 8][1]);   // 2 bytes past the start of each row
    out[threadIdx.x] = r[0];
}

/// The tile is never written: every row ldmatrix reads is still the fill bytes.
constexpr int kUnwrittenLine = __LINE__ + 5;
__global__ void ldmatrix_unwritten(std::uint32_t* out)
{
    __shared__ alignas(16) std::uint16_t rows[32][8];
    std::uint32_t r[4];
    wb::ldmatrix_x4(r, rows[threadIdx.x]);
    out[threadIdx.x] = r[0];
}

/// Warp 1 fills the tile that warp 0 reads with ldmatrix, with no __syncthreads() between them.
constexpr int kRaceLine = __LINE__ + 8;
__global__ void ldmatrix_without_barrier(std::uint32_t* out)
{
    __shared__ alignas(16) std::uint16_t rows[32][8];
    if (threadIdx.x >= 32) {
        for (int c = 0; c < 8; ++c) rows[threadIdx.x - 32][c] = static_cast<std::uint16_t>(c);
    } else {
        std::uint32_t r[4];
        wb::ldmatrix_x4(r, rows[threadIdx.x]);
        out[threadIdx.x] = r[0];
    }
}

// ---- WMMA -------------------------------------------------------------------------------------------

namespace wmma = nvcuda::wmma;

/// C (16x16, float) = A B + C with every combination of layouts, all from global memory.
template <typename T, typename LayoutA, typename LayoutB>
__global__ void wmma_kernel(const T* a, const T* b, float* c, bool c_row_major)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, LayoutA> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, LayoutB> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    const wmma::layout_t layout = c_row_major ? wmma::mem_row_major : wmma::mem_col_major;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(acc, c, 16, layout);
    wmma::mma_sync(acc, fa, fb, acc);
    for (int i = 0; i < acc.num_elements; ++i) acc.x[i] *= 2.0f;   // element-wise: any mapping
    wmma::store_matrix_sync(c, acc, 16, layout);
}

template <typename T, typename LayoutA, typename LayoutB>
void check_wmma(bool c_row_major)
{
    constexpr bool a_row = std::is_same_v<LayoutA, wmma::row_major>;
    constexpr bool b_row = std::is_same_v<LayoutB, wmma::row_major>;
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> u(-8, 8);
    // Logical row-major A, B, C with small integers (exact in every type); stored as the layouts say.
    std::vector<float> a(256), b(256), c(256);
    for (float& v : a) v = static_cast<float>(u(rng)) / 4.0f;
    for (float& v : b) v = static_cast<float>(u(rng));
    for (float& v : c) v = static_cast<float>(u(rng));
    std::vector<T> sa(256), sb(256);
    std::vector<float> sc(256);
    for (int r = 0; r < 16; ++r) {
        for (int col = 0; col < 16; ++col) {
            sa[a_row ? r * 16 + col : col * 16 + r] = T(a[r * 16 + col]);
            sb[b_row ? r * 16 + col : col * 16 + r] = T(b[r * 16 + col]);
            sc[c_row_major ? r * 16 + col : col * 16 + r] = c[r * 16 + col];
        }
    }
    DeviceArray<T> da(sa), db(sb);
    DeviceArray<float> dc(sc);
    wmma_kernel<T, LayoutA, LayoutB><<<1, 32>>>(da.data, db.data, dc.data, c_row_major);
    REQUIRE(emu_test::finish().ok());
    const auto out = dc.download();
    const auto expected = reference_product(a, b, c, 16, 16, 16);
    for (int r = 0; r < 16; ++r) {
        for (int col = 0; col < 16; ++col) {
            INFO("A " << (a_row ? "row" : "col") << "-major, B " << (b_row ? "row" : "col") << "-major, C "
                      << (c_row_major ? "row" : "col") << "-major: D[" << r << "][" << col << "]");
            CHECK(out[c_row_major ? r * 16 + col : col * 16 + r] == 2.0 * expected[r * 16 + col]);
        }
    }
}

/// Lane 0 writes which matrix elements its accumulator elements hold (loaded from an iota matrix).
__global__ void wmma_positions(const float* iota, float* out)
{
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, iota, 16, wmma::mem_row_major);
    for (int i = 0; i < acc.num_elements; ++i) out[threadIdx.x * 8 + i] = acc.x[i];
}

__global__ void wmma_bad_ldm(const __half* a, float* out)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::load_matrix_sync(fa, a, 12);
    out[threadIdx.x] = static_cast<float>(fa.x[0]);
}

}   // namespace

TEST_CASE("ldmatrix gives each lane the ISA's elements, x1 x2 x4 and .trans", "[emu][tensor]")
{
    check_ldmatrix<1, false>();
    check_ldmatrix<2, false>();
    check_ldmatrix<4, false>();
    check_ldmatrix<1, true>();
    check_ldmatrix<2, true>();
    check_ldmatrix<4, true>();
}

TEST_CASE("mma_m16n8k16 computes A B + C in fp32 from f16 and bf16 inputs", "[emu][tensor]")
{
    check_mma_against_scalar_product<__half>();
    check_mma_against_scalar_product<__nv_bfloat16>();
}

TEST_CASE("mma_m16n8k16 reads A, B and C and writes D at the ISA's fragment positions", "[emu][tensor]")
{
    check_mma_positions<__half>();
    check_mma_positions<__nv_bfloat16>();
}

TEST_CASE("ldmatrix_x4 and ldmatrix_x2_trans feed mma_m16n8k16 from row-major tiles in shared memory", "[emu][tensor]")
{
    std::vector<float> a(256), b(128), c(128, 0.0f);
    for (int i = 0; i < 256; ++i) a[i] = static_cast<float>((i * 37) % 11 - 5) / 2.0f;
    for (int i = 0; i < 128; ++i) b[i] = static_cast<float>((i * 13) % 7 - 3);
    std::vector<__half> ha(256), hb(128);
    for (int i = 0; i < 256; ++i) ha[i] = __float2half_rn(a[i]);
    for (int i = 0; i < 128; ++i) hb[i] = __float2half_rn(b[i]);
    DeviceArray<__half> da(ha), db(hb);
    DeviceArray<float> dd(128);
    for (int schedule = 0; schedule < 3; ++schedule) {
        emu_test::ScheduleScope scope(schedule);
        emu_test::CheckScope all_blocks(2);
        ldmatrix_then_mma<<<1, 32>>>(da.data, db.data, dd.data);
        REQUIRE(emu_test::finish().ok());
        const auto d = dd.download();
        const auto expected = reference_product(a, b, c, 16, 8, 16);
        for (int i = 0; i < 128; ++i) CHECK(d[i] == expected[i]);
    }
}

TEST_CASE("a divergent mma_m16n8k16 is reported with its lines", "[emu][tensor]")
{
    DeviceArray<float> out(32);
    divergent_mma<<<1, 32>>>(out.data);
    const auto outcome = emu_test::finish();
    CHECK(outcome.error != cudaSuccess);
    CHECK(contains(outcome.report, "divergent warp operation"));
    CHECK(contains(outcome.report, "wb::mma_m16n8k16<__half>"));
    CHECK((contains(outcome.report, "test_tensor_core.cu:" + std::to_string(kDivergentLine)) ||
           contains(outcome.report, "test_tensor_core.cu:" + std::to_string(kDivergentLine + 2))));
}

TEST_CASE("ldmatrix in a warp of fewer than 32 threads is reported", "[emu][tensor]")
{
    DeviceArray<std::uint32_t> out(16);
    half_warp_ldmatrix<<<1, 16>>>(out.data);
    const auto outcome = emu_test::finish();
    CHECK(outcome.error != cudaSuccess);
    CHECK(contains(outcome.report, "wb::ldmatrix_x1"));
    CHECK(contains(outcome.report, "only 16 lanes"));
}

TEST_CASE("ldmatrix from global memory or from unaligned rows is reported", "[emu][tensor]")
{
    DeviceArray<std::uint16_t> rows(64);
    DeviceArray<std::uint32_t> out(32);
    ldmatrix_from_global<<<1, 32>>>(rows.data, out.data);
    auto outcome = emu_test::finish();
    CHECK(outcome.error != cudaSuccess);
    CHECK(contains(outcome.report, "not shared memory"));
    ldmatrix_unaligned<<<1, 32>>>(out.data);
    outcome = emu_test::finish();
    CHECK(outcome.error != cudaSuccess);
    CHECK(contains(outcome.report, "not 16-byte aligned"));
}

TEST_CASE("ldmatrix of shared memory that no thread wrote is reported", "[emu][tensor]")
{
    emu_test::CheckScope all_blocks(2);
    DeviceArray<std::uint32_t> out(32);
    ldmatrix_unwritten<<<1, 32>>>(out.data);
    const auto outcome = emu_test::finish();
    CHECK(outcome.error != cudaSuccess);
    CHECK(contains(outcome.report, "no thread wrote"));
    // The access is made inside the emulator's ldmatrix; the report names the learner's call.
    CHECK(contains(outcome.report, "test_tensor_core.cu:" + std::to_string(kUnwrittenLine)));
}

TEST_CASE("ldmatrix of a tile another warp writes without a barrier is a race, reported at the call", "[emu][tensor]")
{
    emu_test::CheckScope all_blocks(2);
    emu_test::ScheduleScope reverse(1);   // warp 1 writes first, then warp 0 reads
    DeviceArray<std::uint32_t> out(32);
    ldmatrix_without_barrier<<<1, 64>>>(out.data);
    const auto outcome = emu_test::finish();
    CHECK(outcome.error != cudaSuccess);
    CHECK(contains(outcome.report, "race"));
    CHECK(contains(outcome.report, "test_tensor_core.cu:" + std::to_string(kRaceLine)));
}

TEST_CASE("WMMA load, mma and store give A B + C for every layout, f16 and bf16", "[emu][tensor][wmma]")
{
    for (bool c_row : {true, false}) {
        check_wmma<__half, wmma::row_major, wmma::row_major>(c_row);
        check_wmma<__half, wmma::col_major, wmma::row_major>(c_row);
        check_wmma<__half, wmma::row_major, wmma::col_major>(c_row);
        check_wmma<__half, wmma::col_major, wmma::col_major>(c_row);
        check_wmma<__nv_bfloat16, wmma::row_major, wmma::col_major>(c_row);
        check_wmma<__nv_bfloat16, wmma::col_major, wmma::row_major>(c_row);
    }
    static_assert(wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major>::num_elements == 16);
    static_assert(wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major>::num_elements == 8);
    static_assert(wmma::fragment<wmma::accumulator, 16, 16, 16, float>::num_elements == 8);
    static_assert(wmma::fragment<wmma::accumulator, 16, 16, 16, __half>::num_elements == 8);
}

TEST_CASE("WMMA fragments hold every element once, in an order that is not row by row", "[emu][tensor][wmma]")
{
    std::vector<float> iota(256);
    for (int i = 0; i < 256; ++i) iota[i] = static_cast<float>(i);
    DeviceArray<float> din(iota), out(256);
    wmma_positions<<<1, 32>>>(din.data, out.data);
    REQUIRE(emu_test::finish().ok());
    const auto h = out.download();
    std::vector<int> seen(256, 0);
    int in_place = 0;
    for (int s = 0; s < 256; ++s) {
        ++seen[static_cast<int>(h[s])];
        if (h[s] == static_cast<float>(s)) ++in_place;
    }
    for (int p = 0; p < 256; ++p) CHECK(seen[p] == 1);
    CHECK(in_place < 8);   // neither lane-major nor anything close to it
    // Nor the layout of mma.m16n8k16's accumulators, which some GPUs use for WMMA.
    int as_mma = 0;
    for (int lane = 0; lane < 32; ++lane) {
        for (int i = 0; i < 4; ++i) {
            const Pos p = isa_c(lane, i);
            if (h[lane * 8 + i] == static_cast<float>(p.row * 16 + p.col)) ++as_mma;
        }
    }
    CHECK(as_mma < 8);
}

TEST_CASE("WMMA load with a leading dimension that is not a multiple of 16 bytes is reported", "[emu][tensor][wmma]")
{
    DeviceArray<__half> a(16 * 16 + 64);
    DeviceArray<float> out(32);
    wmma_bad_ldm<<<1, 32>>>(a.data, out.data);
    const auto outcome = emu_test::finish();
    CHECK(outcome.error != cudaSuccess);
    CHECK(contains(outcome.report, "ldm = 12"));
}
