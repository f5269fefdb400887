// The phases of a step that swe::Batch launches once for all of its members (batch.hpp), each
// member's view in the launch's parameters as the batched tile kernel takes them (fused_step.hpp,
// TileViews): a member's launch does exactly what its own phase does.
#pragma once

#include <vector>

#include "silt/core/exec.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

/// phase_clock of every view in `views` (clock_step.hpp), one block per member, in launches of
/// kTileBatchMax<T> members (CUDA only: silt::Error elsewhere).
template <class T>
void phase_clock_batch(const Exec& exec, const std::vector<SolverView<T>>& views);

}  // namespace silt::swe::detail
