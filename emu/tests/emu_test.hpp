// Helpers for the CPU backend's own tests.
#pragma once

#include "harness/catch.hpp"
#include "engine.hpp"

#include <cuda_runtime.h>
#include "emu/grader_api.hpp"

#include <string>
#include <vector>

namespace emu_test {

/// What a launch ended with: the error after synchronising, and the emulator's report for it.
struct Outcome {
    cudaError_t error;
    std::string report;
    bool deadlock;
    bool ok() const { return error == cudaSuccess; }
};

/// Waits for the device and collects the outcome; resets the device after a failure so the next
/// test starts clean.
inline Outcome finish()
{
    cudaError_t error = cudaGetLastError();
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    Outcome outcome{error, emu::last_fault_report(error), emu::last_fault_is_deadlock()};
    if (error != cudaSuccess) cudaDeviceReset();
    return outcome;
}

/// Runs every block in one schedule while alive (0 forward, 1 reverse, 2 random).
struct ScheduleScope {
    explicit ScheduleScope(int schedule) { emu::detail::set_schedule_override(schedule); }
    ~ScheduleScope() { emu::detail::set_schedule_override(-1); }
};

/// Sets which blocks the shared-memory checker watches while alive (0 none, 1 sample, 2 all).
struct CheckScope {
    explicit CheckScope(int mode) { emu::detail::set_check_override(mode); }
    ~CheckScope() { emu::detail::set_check_override(-1); }
};

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// A device array that frees itself.
template <class T>
struct DeviceArray {
    explicit DeviceArray(std::size_t n) : count(n) { REQUIRE(cudaMalloc(&data, n * sizeof(T)) == cudaSuccess); }
    DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) { upload(host); }
    ~DeviceArray() { cudaFree(data); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    void upload(const std::vector<T>& host)
    {
        REQUIRE(cudaMemcpy(data, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
    }
    std::vector<T> download() const
    {
        std::vector<T> host(count);
        REQUIRE(cudaMemcpy(host.data(), data, count * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
        return host;
    }
    T* data = nullptr;
    std::size_t count;
};

}   // namespace emu_test
