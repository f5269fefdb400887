// Compilation-environment switches. This is the only file in silt that looks at __CUDACC__ or
// __CUDA_ARCH__; everything else uses the SILT_ macros below.
#pragma once

#if defined(__CUDACC__)
// Translation unit compiled by nvcc: kernels can be launched from here.
#define SILT_HAS_CUDA 1
#define SILT_HD __host__ __device__
#define SILT_DEVICE __device__
#define SILT_FORCEINLINE __forceinline__
// Extended lambda usable on host and device (needs nvcc --extended-lambda). nvcc restricts where
// such a lambda may appear: the enclosing function must be public (not a private or protected
// member) and the lambda must not capture `this`; copy members into locals first.
#define SILT_LAMBDA [=] __host__ __device__
#else
#define SILT_HAS_CUDA 0
#define SILT_HD
#define SILT_DEVICE
#define SILT_FORCEINLINE inline __attribute__((always_inline))
#define SILT_LAMBDA [=]
#endif

#if defined(__CUDA_ARCH__)
// Device compilation pass of nvcc.
#define SILT_DEVICE_PASS 1
#else
#define SILT_DEVICE_PASS 0
#endif

// Pragma helper so that OpenMP directives can sit inside macros and SILT_HD functions.
#define SILT_PRAGMA(x) _Pragma(#x)

namespace silt {
/// Index type for cells, particles and blocks. 32 bits keep GPU index arithmetic cheap; 2^31 - 1
/// elements per launch is far beyond one GPU's memory for our state sizes.
using Index = int;
}  // namespace silt
