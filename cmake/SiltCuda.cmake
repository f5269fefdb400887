# CUDA backend. SILT_ENABLE_CUDA:
#   AUTO (default)  built when nvcc is found and `nvidia-smi -L` lists a GPU: compiling every library
#                   source with nvcc is most of a build's time, wasted on a machine that cannot run it;
#   ON              built whenever nvcc is found (CI compiles it on machines without a GPU);
#   OFF             never.
# Architectures default to 90 (H100/H200), never `native`, so that a build machine without a GPU
# builds the same code as the GPU machine. The reason for the choice is printed.
set(SILT_ENABLE_CUDA AUTO CACHE STRING "CUDA backend: AUTO (nvcc and a GPU found), ON (nvcc found), OFF")
set_property(CACHE SILT_ENABLE_CUDA PROPERTY STRINGS AUTO ON OFF)
set(SILT_CUDA OFF)
set(silt_cuda_wanted ${SILT_ENABLE_CUDA})
if(SILT_ENABLE_CUDA STREQUAL "AUTO")
  set(silt_gpus "")
  find_program(SILT_NVIDIA_SMI nvidia-smi)
  if(SILT_NVIDIA_SMI)
    execute_process(COMMAND ${SILT_NVIDIA_SMI} -L OUTPUT_VARIABLE silt_gpus ERROR_QUIET
                    OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 20)
  endif()
  if(silt_gpus MATCHES "^GPU 0")
    string(REGEX REPLACE "\n.*" "" silt_gpu0 "${silt_gpus}")
    message(STATUS "CUDA backend wanted: a GPU is present (${silt_gpu0})")
    set(silt_cuda_wanted ON)
  else()
    message(STATUS "CUDA backend not built: no GPU found (nvidia-smi -L lists none); "
                   "-DSILT_ENABLE_CUDA=ON compiles it anyway")
    set(silt_cuda_wanted OFF)
  endif()
endif()
if(silt_cuda_wanted)
  include(CheckLanguage)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(CMAKE_CUDA_EXTENSIONS OFF)
    find_package(CUDAToolkit REQUIRED)
    set(SILT_CUDA ON)
  else()
    message(STATUS "nvcc not found: building the CPU backend only (put nvcc on the PATH for CUDA)")
  endif()
endif()

# Flags every CUDA translation unit of silt gets (AMReX's habit: host/device mistakes are errors).
set(SILT_CUDA_FLAGS --extended-lambda --expt-relaxed-constexpr
    "SHELL:-Werror cross-execution-space-call" --Wext-lambda-captures-this
    "SHELL:-Xcudafe --diag_suppress=esa_on_defaulted_function_ignored")

# silt_backend_sources(target): compile the target's .cpp sources with nvcc when the CUDA backend is
# on, so that its parallel_for calls can launch on the GPU; with g++ and OpenMP otherwise.
function(silt_backend_sources target)
  if(SILT_CUDA)
    get_target_property(srcs ${target} SOURCES)
    get_target_property(dir ${target} SOURCE_DIR)
    foreach(s IN LISTS srcs)
      if(s MATCHES "\\.cpp$")
        set_source_files_properties(${s} TARGET_DIRECTORY ${target} PROPERTIES LANGUAGE CUDA)
      endif()
    endforeach()
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${SILT_CUDA_FLAGS}>)
  endif()
endfunction()
