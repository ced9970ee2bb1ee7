/// @file cub.cuh
/// @brief The CPU backend's CUB stand-in (DeviceReduce only).
#pragma once
#include "cub/device/device_reduce.cuh"
