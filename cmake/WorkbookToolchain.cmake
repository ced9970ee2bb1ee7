# Finds the tools the workbook needs. Every missing tool stops configuration with one sentence that
# says what to install; nothing here touches the GPU beyond asking nvidia-smi what it is.

include(WorkbookBackend)     # WORKBOOK_BACKEND: an NVIDIA GPU (nvcc), or the CPU emulator in emu/

if(NOT WORKBOOK_EMULATED)
# --- nvcc ------------------------------------------------------------------------------------------
include(CheckLanguage)
if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS "/usr/local/cuda/bin/nvcc")
  # The CUDA Toolkit's default location is often not on PATH.
  set(CMAKE_CUDA_COMPILER "/usr/local/cuda/bin/nvcc" CACHE FILEPATH "CUDA compiler")
endif()
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(FATAL_ERROR
    "nvcc (the CUDA compiler) was not found: install the CUDA Toolkit 12 or newer "
    "(Debian/Ubuntu: `sudo apt-get install nvidia-cuda-toolkit`, or NVIDIA's packages) and put its "
    "bin/ folder on PATH, or point CUDACXX at nvcc.")
endif()

# --- which GPU architecture to build for ------------------------------------------------------------
# One architecture only, to keep builds fast: the GPU in this machine when there is one, otherwise a
# documented fallback (sm_80: Ampere, the oldest that has cp.async, so every code path compiles).
set(WORKBOOK_FALLBACK_ARCH 80)
set(WORKBOOK_MIN_ARCH 70)      # Volta: independent thread scheduling, *_sync shuffles
set(WORKBOOK_CUDA_ARCH "" CACHE STRING
    "Compute capability to build for, e.g. 90 (empty: the GPU in this machine, else ${WORKBOOK_FALLBACK_ARCH})")

# The GPU in this machine (the first nvidia-smi lists), asked once: its compute capability is the
# default architecture, and its name picks the autotuner's results (cmake/WorkbookTuning.cmake).
set(WORKBOOK_GPU_NAME "")
set(gpu_arch "")
find_program(WORKBOOK_NVIDIA_SMI nvidia-smi)
if(WORKBOOK_NVIDIA_SMI)
  execute_process(COMMAND "${WORKBOOK_NVIDIA_SMI}" --query-gpu=compute_cap,name --format=csv,noheader
                  OUTPUT_VARIABLE smi_out RESULT_VARIABLE smi_rc ERROR_QUIET
                  OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 20)
  if(smi_rc EQUAL 0 AND smi_out MATCHES "^([0-9]+)\\.([0-9]+), *([^\n]*)")
    set(gpu_arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
    set(WORKBOOK_GPU_NAME "${CMAKE_MATCH_3}")
  endif()
endif()
if(WORKBOOK_CUDA_ARCH)
  set(arch "${WORKBOOK_CUDA_ARCH}")
  set(arch_reason "chosen with WORKBOOK_CUDA_ARCH")
else()
  set(arch "${gpu_arch}")
  set(arch_reason "the GPU in this machine: ${WORKBOOK_GPU_NAME}")
  if(NOT arch)
    set(arch "${WORKBOOK_FALLBACK_ARCH}")
    set(arch_reason "no NVIDIA GPU found, so everything is compiled but grading needs a GPU")
  endif()
endif()
if(NOT arch MATCHES "^[0-9]+[af]?$")
  message(FATAL_ERROR "WORKBOOK_CUDA_ARCH='${arch}' is not a compute capability: use digits, e.g. 80 or 90.")
endif()
string(REGEX REPLACE "[af]$" "" arch_number "${arch}")
if(arch_number LESS WORKBOOK_MIN_ARCH)
  message(FATAL_ERROR
    "Compute capability ${arch_number} is older than the workbook's minimum (7.0, Volta): the lessons "
    "rely on independent thread scheduling; use a Volta or newer GPU.")
endif()
if(arch STREQUAL "90")
  # Compute capability 9.0 (Hopper): build sm_90a, which adds the instructions of that chip alone
  # (wgmma, setmaxnreg) that chapter 8's stages 6 and 7 use. The code then runs on 9.0 GPUs only,
  # which is the one this build is for.
  set(arch "90a")
endif()
set(CMAKE_CUDA_ARCHITECTURES "${arch}" CACHE STRING "set by WorkbookToolchain" FORCE)
message(STATUS "Workbook: building for sm_${arch} (${arch_reason})")

enable_language(CUDA)
if(CMAKE_CUDA_COMPILER_VERSION VERSION_LESS 12.0)
  message(FATAL_ERROR "nvcc ${CMAKE_CUDA_COMPILER_VERSION} is too old: the workbook needs the CUDA Toolkit 12 or newer.")
endif()
if(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 13.0 AND arch_number LESS 75)
  message(FATAL_ERROR
    "CUDA ${CMAKE_CUDA_COMPILER_VERSION} cannot build for sm_${arch_number} (it starts at 7.5): "
    "install CUDA 12.x to use this GPU.")
endif()
find_package(CUDAToolkit REQUIRED)

# Line info lets compute-sanitizer and the profilers point at source lines; it does not slow kernels.
# --expt-relaxed-constexpr lets device code call constexpr host functions such as
# std::numeric_limits<float>::infinity(), and --extended-lambda lets a __device__ lambda written in a
# launcher be passed to a kernel: the CPU emulator accepts both, so without these flags code that
# passes there would not compile here.
set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -lineinfo --expt-relaxed-constexpr --extended-lambda")
set(WORKBOOK_CUDA_WARNINGS -Xcompiler=-Wall)
set(WORKBOOK_CUDA_RUNTIME CUDA::cudart)
else()
# --- the CPU backend: g++ and Boost.Context instead of nvcc and a GPU --------------------------------
find_package(Boost 1.66 QUIET CONFIG COMPONENTS context)
if(NOT Boost_FOUND OR NOT TARGET Boost::context)
  message(FATAL_ERROR
    "The CPU backend needs Boost.Context: install it with `sudo apt-get install libboost-context-dev` "
    "(Debian/Ubuntu), or use an NVIDIA GPU with -DWORKBOOK_BACKEND=cuda.")
endif()
set(WORKBOOK_CUDA_WARNINGS "")
set(WORKBOOK_CUDA_RUNTIME emu_runtime)
endif()

# --- Catch2, v3 (Ubuntu 24.04 and newer) or v2 (Debian 12) ------------------------------------------
find_package(Catch2 3 QUIET CONFIG)
if(Catch2_FOUND)
  set(WORKBOOK_CATCH2_MAJOR 3)
else()
  find_package(Catch2 2 QUIET CONFIG)
  if(Catch2_FOUND)
    set(WORKBOOK_CATCH2_MAJOR 2)
  endif()
endif()
if(NOT Catch2_FOUND)
  message(FATAL_ERROR
    "Catch2 (the test framework of the graders) was not found: install it with "
    "`sudo apt-get install catch2` (Debian/Ubuntu), or pass -DCatch2_DIR=<folder with Catch2Config.cmake>.")
endif()
if(WORKBOOK_EMULATED)
  message(STATUS "Workbook: Catch2 ${Catch2_VERSION}, Boost.Context ${Boost_VERSION}, ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}")
else()
  message(STATUS "Workbook: Catch2 ${Catch2_VERSION}, nvcc ${CMAKE_CUDA_COMPILER_VERSION}")
endif()

# --- Python, for the learner's tools (check-chapter table, progress, hints) -----------------------
find_package(Python3 COMPONENTS Interpreter QUIET)
