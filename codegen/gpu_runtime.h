// Probing the CUDA driver at run time, without a link dependency on it.
#pragma once

#include <string>

namespace tetune {

/**
 * Whether the NVIDIA driver library (libcuda.so.1) loads with dlopen, cuInit(0)
 * succeeds and cuDeviceGetCount reports at least one device. When not, *why
 * (if given) says which step failed. The probe runs once per process.
 */
bool cuda_device_available(std::string *why = nullptr);

}  // namespace tetune
