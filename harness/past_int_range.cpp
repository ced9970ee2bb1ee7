#include "harness/past_int_range.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace wb {

LargeCase::LargeCase(std::size_t bytes, const std::string& label)
{
    if (!emulated()) {
        std::error_code error;
        const std::filesystem::path lock =
            std::filesystem::temp_directory_path(error) / "cuda-kernel-workbook-large-case.lock";
        lock_fd_ = error ? -1 : ::open(lock.c_str(), O_RDWR | O_CREAT, 0666);
        if (lock_fd_ >= 0) ::flock(lock_fd_, LOCK_EX);   // without the file: no lock, the memory test alone
    }
    allowed_ = device_memory_allows(bytes + (std::size_t(3) << 30), label);
}

bool LargeCase::fits(std::size_t bytes, const std::string& label) const
{
    if (!allowed_) return false;
    return device_memory_allows(bytes + (std::size_t(3) << 30), label);   // the same 4 GiB to spare
}

LargeCase::~LargeCase()
{
    if (lock_fd_ >= 0) ::close(lock_fd_);   // closing releases the lock
}

void for_each_large_size(const std::vector<LargeSize>& sizes, const std::function<void(std::size_t k)>& check)
{
    if (sizes.empty()) return;
    const LargeCase large(sizes.front().bytes, sizes.front().label);
    if (!large) return;
    std::vector<std::size_t> runnable = {0};
    for (std::size_t k = 1; k < sizes.size(); ++k) {
        if (large.fits(sizes[k].bytes, sizes[k].label)) runnable.push_back(k);
    }
    for (const std::size_t k : runnable) check(k);
}

namespace {

/// Where an index wraps at 2^32, and what to do: said by every cause of that wrap.
const std::string kUnsignedWrap =
    "blockIdx.x * blockDim.x multiplies two unsigned ints, and the product wraps at 2^32 before it is stored in "
    "a std::int64_t (convert first: static_cast<std::int64_t>(blockIdx.x) * blockDim.x); an index, an offset "
    "or a size kept in an unsigned int or std::uint32_t wraps there too.";

}   // namespace

std::string sampled_output_cause(const std::vector<SampledWindow>& windows, const SampledWindow& first_wrong)
{
    const bool nothing_anywhere = std::all_of(windows.begin(), windows.end(), [](const SampledWindow& w) {
        return w.report.untouched == w.report.count && w.report.count > 0;
    });
    if (nothing_anywhere) {
        return "nothing was written anywhere in this output, although smaller sizes came out right: a size (or "
               "the element count) converted to int, which is negative past 2^31 - 1. Keep sizes and indices in "
               "std::int64_t.";
    }
    if (windows.empty()) return "";
    if (first_wrong.first == windows.front().first) {
        // Wrong at the start, right in the middle, wrong again past 2^32: the threads of the elements from
        // 2^32 on took an index modulo 2^32 and worked on the first elements a second time.
        const std::int64_t end = windows.back().first + windows.back().count;
        const std::int64_t overlap = end - kUintLimit;   // the first elements that such threads reach again
        bool middle_seen = false, middle_right = true, past_wrong = false;
        for (const SampledWindow& w : windows) {
            if (w.first >= overlap && w.first + w.count <= kUintLimit) middle_seen = true, middle_right &= w.report.ok;
            if (w.first + w.count > kUintLimit && !w.report.ok) past_wrong = true;
        }
        if (overlap > 0 && middle_seen && middle_right && past_wrong) {
            return "the first " + std::to_string(overlap) +
                   " elements and those past index 2^32 are wrong, the ones between right: the threads of the "
                   "elements from 2^32 on computed their index modulo 2^32 and worked on the first elements again. " +
                   kUnsignedWrap;
        }
        return "";
    }
    const std::int64_t first_bad = first_wrong.first + std::max<std::int64_t>(first_wrong.report.first_bad, 0);
    if (first_bad >= kUintLimit) {
        return "every element checked below index 2^32 is right and the first wrong one is at " +
               std::to_string(first_bad) + ": an index computed in unsigned 32-bit arithmetic wraps at 2^32. " +
               kUnsignedWrap;
    }
    if (first_bad >= kIntLimit) {
        return "every element checked below index 2^31 is right and the first wrong one is at " +
               std::to_string(first_bad) +
               ": an index (row * cols, or blockIdx.x * blockDim.x) computed in 32 bits wraps at 2^31; compute "
               "it in std::int64_t.";
    }
    return "the start of the output is right and from about element " + std::to_string(first_bad) +
           " on it is not: the grid does not reach the end of a large output (a block count capped, e.g. at "
           "65535, without a grid-stride loop, or an index computed in 32 bits).";
}

std::string window_failure_message(const SampledWindow& w, const std::string& cause)
{
    const CompareReport& report = w.report;
    std::string what =
        report.nothing_written ? "none of these elements was written (they still hold the poison)." : report.message;
    if (!cause.empty() && !report.cause.empty()) {   // where the window lies says more than what it holds
        const std::string own = "\n  likely cause: " + report.cause;
        if (const std::size_t at = what.find(own); at != std::string::npos) what.erase(at, own.size());
    }
    return "in " + w.name + " (positions below count from the window's start): " + what +
           (cause.empty() ? "" : "\n  likely cause: " + cause);
}

void expect_windows(Stage& stage, const std::vector<SampledWindow>& windows, const std::string& label,
                    const std::string& chapter_cause)
{
    for (const SampledWindow& w : windows) {
        if (w.report.ok) continue;
        const std::string cause = chapter_cause.empty() ? sampled_output_cause(windows, w) : chapter_cause;
        CompareReport report = w.report;
        report.message = window_failure_message(w, cause);
        if (!cause.empty()) report.cause = cause;
        report.nothing_written = false;   // a window, not the whole output: say where it is
        stage.expect(report, label);
    }
}

void run_past_int_range(Stage& stage, const Launch& launch, const std::string& label, bool past_uint)
{
    try {
        stage.run(launch);
    } catch (StageFailure& failure) {
        if (failure.status == Status::crashed && past_uint) {
            failure.message += "\n  This happened on the case " + label +
                               ", after the case past 2^31 came out right: an index computed in unsigned 32-bit "
                               "arithmetic wraps at 2^32 (blockIdx.x * blockDim.x multiplies two unsigned ints; "
                               "convert first: static_cast<std::int64_t>(blockIdx.x) * blockDim.x), or a buffer of "
                               "your own is allocated too small for this size.";
        } else if (failure.status == Status::crashed) {
            const bool rejected = failure.message.find("launch was rejected") != std::string::npos;
            failure.message += "\n  This happened on the case " + label + ", after every smaller case passed: " +
                               (rejected ? "a grid size computed from a size held in an int (32 bits) is wrong past "
                                           "2^31 - 1 (negative, or beyond the grid's limit). "
                                         : "an index or a size held in an int (32 bits) is negative past 2^31 - 1, "
                                           "and the address made from it lies outside the array. ") +
                               "Compute sizes and indices in std::int64_t (row * cols, blockIdx.x * blockDim.x). "
                               "If they are: a buffer of your own allocated too small shows only at such a size.";
        }
        throw;
    }
}

std::string row_offset_wrap_cause(std::int64_t first_wrong_row, std::int64_t row_length, const std::string& unit,
                                  const std::string& input)
{
    if (row_length < 1 || first_wrong_row < 1) return "";
    for (const int bits : {32, 31}) {
        const std::int64_t limit = std::int64_t(1) << bits;
        const std::int64_t straddling = limit / row_length;   // its elements reach index 2^bits (or start there)
        if (first_wrong_row != straddling && first_wrong_row != straddling + 1) continue;
        const std::string length = std::to_string(row_length);
        return "every " + unit + " checked before " + unit + " " + std::to_string(first_wrong_row) +
               " is right, and it is the first " + unit + " that reads past element 2^" + std::to_string(bits) +
               " of " + input + " (" + unit + " r reads elements r * " + length + " on): the " + unit + " offset " +
               unit + " * " + length + " wraps at 2^" + std::to_string(bits) + ", computed in " +
               (bits == 32 ? "unsigned 32-bit arithmetic (unsigned sizes or " + unit + " index)" : "an int") +
               ". Compute it in std::int64_t.";
    }
    return "";
}

std::vector<SumMarker> sum_markers(std::int64_t n)
{
    std::vector<SumMarker> markers = {{0, "the first element"},
                                      {(std::int64_t(1) << 24) + 3, "past 65535 blocks of 256 threads"},
                                      {std::int64_t(65535) * 1024 + 5, "past 65535 blocks of 1024 threads"},
                                      {(std::int64_t(1) << 30) + 7, "past 2^30"},
                                      {kIntLimit - 1, "2^31 - 1, the largest index an int holds"},
                                      {kIntLimit, "2^31, the first index past the int range"},
                                      {kIntLimit + (std::int64_t(1) << 27) + 1, "past 2^31"}};
    if (n > kUintLimit + (std::int64_t(1) << 27) + 4) {
        markers.push_back({kUintLimit - 1, "2^32 - 1, the largest index an unsigned int holds"});
        markers.push_back({kUintLimit, "2^32, the first index past the unsigned range"});
        markers.push_back({kUintLimit + (std::int64_t(1) << 27) + 1, "past 2^32"});
    }
    markers.push_back({n - 3, "in the last 3 elements, the tail of a float4 loop"});
    markers.push_back({n - 1, "the last element"});
    return markers;
}

double place_sum_markers(float* x, const std::vector<SumMarker>& markers, cudaStream_t stream)
{
    std::vector<float> values(markers.size());
    for (std::size_t k = 0; k < markers.size(); ++k) {
        values[k] = std::ldexp(1.0f, static_cast<int>(k));
        WB_CUDA_CHECK(cudaMemcpyAsync(x + markers[k].index, &values[k], sizeof(float), cudaMemcpyHostToDevice, stream));
    }
    WB_CUDA_CHECK(cudaStreamSynchronize(stream));   // values must outlive the copies
    return std::ldexp(1.0, static_cast<int>(markers.size())) - 1.0;
}

std::string sum_markers_label(std::int64_t n, std::size_t markers, bool with_y)
{
    return "n = " + as_powers_of_two(n) + ", " + (with_y ? "x 0 but at " : "every input 0 but ") +
           std::to_string(markers) + " marked elements summing to " + std::to_string((std::int64_t(1) << markers) - 1) +
           (with_y ? ", y 1" : "") + (n > kUintLimit ? " (past the unsigned 32-bit range)" : " (past the int range)");
}

namespace {

/// The result of the large sum when every index is taken modulo 2^32 (as blockIdx.x * blockDim.x is):
/// the elements from 2^32 on are never read, and the first n - 2^32 are read a second time in their place.
double sum_with_index_mod_2_32(const std::vector<SumMarker>& markers, std::int64_t n)
{
    double sum = 0.0;
    for (std::size_t k = 0; k < markers.size(); ++k) {
        const std::int64_t index = markers[k].index;
        const int times = index >= kUintLimit ? 0 : (index < n - kUintLimit ? 2 : 1);
        sum += times * std::ldexp(1.0, static_cast<int>(k));
    }
    return sum;
}

}   // namespace

std::string sum_markers_cause(const std::vector<SumMarker>& markers, std::int64_t n, double got)
{
    const double all = std::ldexp(1.0, static_cast<int>(markers.size())) - 1.0;
    if (std::string guard = guard_read_cause(all, got); !guard.empty()) return guard;
    if (n > kUintLimit && got == sum_with_index_mod_2_32(markers, n)) {
        return "the result is exactly what an index taken modulo 2^32 gives: no element from index 2^32 on was "
               "read, and the first n - 2^32 elements were read a second time in their place. " +
               kUnsignedWrap;
    }
    if (!(got >= 0.0 && got <= all && got == std::floor(got))) {
        return "the result is not a sum of some of the marked elements (each holds a power of 2, every other element "
               "0): elements were counted more than once, or values read from outside the input (an index held in "
               "an int turns negative past 2^31 - 1 and reads memory before the array).";
    }
    const auto bits = static_cast<std::uint32_t>(got);
    std::vector<std::size_t> lost;
    std::string names;
    for (std::size_t k = 0; k < markers.size(); ++k) {
        if ((bits >> k) & 1u) continue;
        lost.push_back(k);
        names += std::string(names.empty() ? "" : "; ") + "index " + std::to_string(markers[k].index) + " (" +
                 markers[k].where + ")";
    }
    std::string cause = "values were lost: every element is 0 but " + std::to_string(markers.size()) +
                        " marked ones that hold 1, 2, 4, ..., so the result names those it lacks: " + names + ".\n  ";
    const bool suffix =
        !lost.empty() && lost.back() == markers.size() - 1 && lost.size() == markers.size() - lost.front();
    if (lost.size() == markers.size()) {
        return cause +
               "Nothing was added: n converted to int (a kernel parameter, a loop bound), which is negative "
               "past 2^31 - 1. Keep sizes and indices in std::int64_t.";
    }
    if (suffix && markers[lost.front()].index == kIntLimit) {
        return cause +
               "Every marked element below index 2^31 was added and none past it: an index "
               "(blockIdx.x * blockDim.x + threadIdx.x, or i += stride) computed in 32 bits wraps at 2^31. "
               "Compute it in std::int64_t.";
    }
    if (suffix && markers[lost.front()].index == kUintLimit) {
        return cause +
               "Every marked element below index 2^32 was added and none past it: an index computed in unsigned "
               "32-bit arithmetic (blockIdx.x * blockDim.x, an unsigned loop counter) wraps at 2^32. Compute it in "
               "std::int64_t, converting before the product: static_cast<std::int64_t>(blockIdx.x) * blockDim.x.";
    }
    if (suffix) {
        return cause + "The elements up to index " + std::to_string(markers[lost.front() - 1].index) +
               " were added and none from index " + std::to_string(markers[lost.front()].index) +
               " on: the grid does not reach the end of a large input (a block count capped, e.g. at 65535, without "
               "a grid-stride loop, or an index computed in 32 bits).";
    }
    return cause +
           "Elements inside the input were skipped while later ones were added: an index or a stride that "
           "wraps in 32 bits, a loop that steps over part of the input, or a plain += on out[0] from several "
           "blocks that loses updates (a race).";
}

std::string as_powers_of_two(std::int64_t value)
{
    std::string text;
    for (int bit = 62; bit >= 10; --bit) {
        if (!((value >> bit) & 1)) continue;
        text += (text.empty() ? "2^" : " + 2^") + std::to_string(bit);
    }
    const std::int64_t rest = value & 1023;
    if (text.empty()) return std::to_string(value);
    return rest == 0 ? text : text + " + " + std::to_string(rest);
}

std::string with_commas(std::int64_t value)
{
    std::string digits = std::to_string(value);
    const std::size_t first = value < 0 ? 1 : 0;   // after a minus sign
    for (auto i = static_cast<std::int64_t>(digits.size()) - 3; i > static_cast<std::int64_t>(first); i -= 3)
        digits.insert(static_cast<std::size_t>(i), ",");
    return digits;
}

std::vector<std::int64_t> row_windows_past_int_range(std::int64_t rows, std::int64_t cols, std::int64_t width)
{
    std::vector<std::int64_t> starts = spread_windows(rows, width, 16);
    const std::int64_t crossing = kIntLimit / std::max<std::int64_t>(cols, 1);         // its elements cross 2^31
    const std::int64_t crossing_uint = kUintLimit / std::max<std::int64_t>(cols, 1);   // and 2^32
    for (std::int64_t row : {crossing - width / 2, crossing + 1, crossing_uint - width / 2, crossing_uint + 1,
                             (std::int64_t(1) << 24) - 1}) {
        const std::int64_t start = std::clamp<std::int64_t>(row, 0, std::max<std::int64_t>(rows - width, 0));
        if (row < rows) starts.push_back(start);
    }
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    return starts;
}

}   // namespace wb
