#include "harness/past_int_range.hpp"

#include <algorithm>
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

LargeCase::~LargeCase()
{
    if (lock_fd_ >= 0) ::close(lock_fd_);   // closing releases the lock
}

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
    if (windows.empty() || first_wrong.first == windows.front().first) return "";
    const std::int64_t first_bad = first_wrong.first + std::max<std::int64_t>(first_wrong.report.first_bad, 0);
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

void expect_windows(Stage& stage, const std::vector<SampledWindow>& windows, const std::string& label)
{
    for (const SampledWindow& w : windows) {
        if (w.report.ok) continue;
        CompareReport report = w.report;
        const std::string cause = sampled_output_cause(windows, w);
        const std::string what = report.nothing_written
                                     ? "none of these elements was written (they still hold the poison)."
                                     : report.message;
        report.nothing_written = false;   // a window, not the whole output: say where it is
        report.message = "in " + w.name + " (positions below count from the window's start): " + what +
                         (cause.empty() ? "" : "\n  likely cause: " + cause);
        stage.expect(report, label);
    }
}

void run_past_int_range(Stage& stage, const Launch& launch, const std::string& label)
{
    try {
        stage.run(launch);
    } catch (StageFailure& failure) {
        if (failure.status == Status::crashed) {
            const bool rejected = failure.message.find("launch was rejected") != std::string::npos;
            failure.message += "\n  This happened on the case " + label + ", after every smaller case passed: " +
                               (rejected ? "a grid size computed from a size held in an int (32 bits) is wrong past "
                                           "2^31 - 1 (negative, or beyond the grid's limit). "
                                         : "an index or a size held in an int (32 bits) is negative past 2^31 - 1, "
                                           "and the address made from it lies outside the array. ") +
                               "Compute sizes and indices in std::int64_t (row * cols, blockIdx.x * blockDim.x).";
        }
        throw;
    }
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
    const std::int64_t crossing = kIntLimit / std::max<std::int64_t>(cols, 1);   // its elements cross 2^31
    for (std::int64_t row : {crossing - width / 2, crossing + 1, (std::int64_t(1) << 24) - 1}) {
        const std::int64_t start = std::clamp<std::int64_t>(row, 0, std::max<std::int64_t>(rows - width, 0));
        if (row < rows) starts.push_back(start);
    }
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    return starts;
}

}   // namespace wb
