// A frame's particles copied to the host behind the steps (Solver::particles_async). Each part
// packs the asked-for attributes on its stream (Part::pack) into device staging of its own, which
// takes microseconds; a copy stream per device then brings them into a pinned slot of the staging
// pool (core/staging.hpp) while the next frame steps, and an event per part marks them landed.
// ParticlesCopy::get() waits for those events on the writer's thread and reads the slot out in id
// order. On the CPU a part packs straight into the slot. Slots and device staging are kept from
// frame to frame, grown with the count.
#pragma once

#include <memory>
#include <vector>

#include "silt/core/buffer.hpp"
#include "silt/core/device_set.hpp"
#include "silt/core/staging.hpp"
#include "silt/mpm/exchange/exchange.hpp"
#include "silt/mpm/particles_copy.hpp"

namespace silt::mpm {

class FrameCopier {
 public:
  FrameCopier();
  ~FrameCopier();
  FrameCopier(const FrameCopier&) = delete;
  FrameCopier& operator=(const FrameCopier&) = delete;

  /// The parts' particles' asked-for attributes (mpm::attributes), part after part; between
  /// frames, queued behind the steps. Not collective. dense_ids: one part whose ids are exactly
  /// 0 .. n - 1, so that an id-ordered frame is packed in id order on the device.
  ParticlesCopy copy(const Parts& parts, unsigned attributes, bool id_order,
                     bool dense_ids = false);

 private:
  // A CUDA part's packed snapshot and the events around it.
  struct PartStaging {
    DeviceBuffer<float> packed;  // 4-byte values (ints too), held arrays one after the other
    Event packed_ready;          // on the part's stream, after the pack
    Event copied;                // on the copy stream, after the copies out of `packed`
  };
  const Exec& copy_stream(const Exec& part);

  std::vector<Stream> copy_streams_;  // one per CUDA device of the parts
  std::vector<PartStaging> staging_;  // one per part (CUDA)
  StagingPool pool_;
};

}  // namespace silt::mpm
