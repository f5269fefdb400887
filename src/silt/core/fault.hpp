// Device-side fault flags: kernels record the first fault they see (NaN, negative depth, overflow,
// a particle out of its zone) with the offending index, without any host round trip. The host reads
// the flags once per frame and turns a fault into a silt::Error with cell/particle and step.
#pragma once

#include "silt/core/atomic.hpp"
#include "silt/core/buffer.hpp"
#include "silt/core/config.hpp"

namespace silt {

/// View handed to kernels by value. Slot layout: [0] code (0 = none), [1] index, [2] aux.
struct FaultView {
  int* slot = nullptr;

  /// Records (code, index, aux) unless a fault is already recorded; the first writer wins.
  SILT_HD void raise(int code, Index index, int aux = 0) const {
    if (atomic_cas(slot, 0, code) == 0) {
      slot[1] = index;
      slot[2] = aux;
    }
  }
  SILT_HD bool raised() const { return *reinterpret_cast<volatile int*>(slot) != 0; }
};

struct Fault {
  int code = 0;
  Index index = -1;
  int aux = 0;
  explicit operator bool() const { return code != 0; }
};

class FaultFlags {
 public:
  FaultFlags() = default;
  explicit FaultFlags(const Exec& exec) : buf_(exec, 3, "fault flags") { buf_.zero(); }
  FaultView view() { return FaultView{buf_.data()}; }
  /// Waits for exec's queued work (the read is a blocking copy) and returns the recorded fault.
  Fault read() const {
    int v[3] = {0, -1, 0};
    buf_.download(v, 3);
    return Fault{v[0], v[1], v[2]};
  }
  void clear() { buf_.zero(); }

 private:
  DeviceBuffer<int> buf_;
};

}  // namespace silt
