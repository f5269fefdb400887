// Each boundary's, source's and cross section's largest discharge of a step, tracked on the device
// (Solver::track_step_peaks): after every step one launch (two with a series of more than 64
// slots) sums each series' flow slots (the volumes since the start, Totals::flows) and compares
// the change over the step's dt with the peak, with no host wait; the host reads the peaks when asked (step_peaks()). One part in one process,
// as the device gauges: the slots of a series are then all in its clock.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/swe/engine_parts.hpp"
#include "silt/swe/phases.hpp"

namespace silt::swe::detail {

namespace {

// Above this many slots in a series, its sum after each step is split: chunks of kPeakChunk slots
// summed in parallel (phase_flow_chunks), then each series' chunks (a whole grid side of 4096
// cells: 128 chunks). Below it one launch does all (one thread per series).
constexpr Index kPeakChunk = 32;
constexpr size_t kPeakDirect = 64;

// Each series' flow slots (indices after kClockSize) in the order totals() adds them: each
// boundary's grid edges then its mask edges, each source's cells, each section's edges.
std::vector<std::vector<Index>> series_slots(const Scene& scene, const Layout& l) {
  const Index n_grid_edge = edge_slots(scene.grid.nx, scene.grid.ny), n_edge = l.n_edge();
  const Index n_src = Index(l.source_of.size());
  std::vector<std::vector<Index>> out(scene.boundaries.size() + scene.sources.size() +
                                      scene.sections.size());
  for (Index k = 0; k < n_grid_edge; ++k)
    if (l.side_seg[size_t(k)] >= 0) out[size_t(l.side_seg[size_t(k)])].push_back(k);
  for (Index k = n_grid_edge; k < n_edge; ++k)
    out[size_t(l.mask_seg[size_t(k - n_grid_edge)])].push_back(k);
  const size_t first_source = scene.boundaries.size();
  for (Index k = 0; k < n_src; ++k)
    out[first_source + size_t(l.source_of[size_t(k)])].push_back(n_edge + k);
  const size_t first_section = first_source + scene.sources.size();
  const SectionEdges& sec = l.sections;
  for (size_t s = 0; s + 1 < sec.offset.size(); ++s)
    for (Index k = sec.offset[s]; k < sec.offset[s + 1]; ++k)
      out[first_section + s].push_back(n_edge + n_src + k);
  return out;
}

}  // namespace

template <class T>
bool Engine<T>::track_step_peaks(const StepPeaks& from) {
  if (dec_.size() != 1 || world_.distributed()) return false;
  const std::vector<std::vector<Index>> slots = series_slots(scene_, layout_);
  const size_t n = slots.size();
  if ((!from.q.empty() && from.q.size() != n) || from.q.size() != from.time.size())
    throw Error(
        fmt::format("swe scene '{}': {} step peaks for {} boundaries, sources and "
                    "sections (internal)",
                    scene_.name, from.q.size(), n));
  size_t longest = 0;
  for (const std::vector<Index>& x : slots) longest = std::max(longest, x.size());
  // Direct: series[] offsets into slot[]; chunked: chunk[] offsets into slot[], series[] into
  // the chunks.
  peaks_.chunked = longest > kPeakDirect;
  std::vector<Index> slot, chunk{0}, series{0};
  for (const std::vector<Index>& x : slots) {
    for (size_t k = 0; peaks_.chunked && k < x.size(); k += size_t(kPeakChunk)) {
      slot.insert(slot.end(), x.begin() + long(k),
                  x.begin() + long(std::min(x.size(), k + size_t(kPeakChunk))));
      chunk.push_back(Index(slot.size()));
    }
    if (!peaks_.chunked) slot.insert(slot.end(), x.begin(), x.end());
    series.push_back(peaks_.chunked ? Index(chunk.size()) - 1 : Index(slot.size()));
  }
  std::vector<double> state(3 * n);
  for (size_t s = 0; s < n; ++s) {
    state[3 * s + 1] = from.q.empty() ? 0.0 : from.q[s];
    state[3 * s + 2] = from.q.empty() ? std::numeric_limits<double>::quiet_NaN() : from.time[s];
  }
  Part<T>& p = *parts_.front();
  activate(p.exec);
  const auto upload = [&](const std::vector<Index>& v, const char* label) {
    DeviceBuffer<Index> b(p.exec, std::max<Index>(1, Index(v.size())), label);
    if (!v.empty()) b.upload(v);
    return b;
  };
  peaks_.series = Index(n);
  peaks_.chunks = Index(chunk.size()) - 1;
  peaks_.slot = upload(slot, "swe.peak_slots");
  peaks_.chunk = upload(chunk, "swe.peak_chunks");
  peaks_.series_offset = upload(series, "swe.peak_series");
  peaks_.partial =
      DeviceBuffer<double>(p.exec, std::max<Index>(1, peaks_.chunks), "swe.peak_partial");
  peaks_.state = DeviceBuffer<double>(p.exec, std::max<Index>(1, 3 * Index(n)), "swe.peak_state");
  if (n > 0) peaks_.state.upload(state);
  peaks_.on = true;
  accumulate_step_peaks(/*seed=*/true);
  return true;
}

// After each step (launch_step, launch_muscl_step) and, seeding, when tracking begins or a restore
// replaced the volumes.
template <class T>
void Engine<T>::accumulate_step_peaks(bool seed) {
  if (!peaks_.on || peaks_.series == 0) return;
  Part<T>& p = *parts_.front();
  activate(p.exec);
  if (peaks_.chunked) {
    phase_flow_chunks(p.exec, p.clock.data(), peaks_.slot.data(), peaks_.chunk.data(),
                      peaks_.chunks, peaks_.partial.data());
    phase_flow_peaks(p.exec, p.clock.data(), peaks_.partial.data(), nullptr,
                     peaks_.series_offset.data(), peaks_.series, peaks_.state.data(), seed);
  } else {
    phase_flow_peaks(p.exec, p.clock.data(), nullptr, peaks_.slot.data(),
                     peaks_.series_offset.data(), peaks_.series, peaks_.state.data(), seed);
  }
}

template <class T>
StepPeaks Engine<T>::step_peaks() const {
  StepPeaks out;
  if (!peaks_.on) return out;
  const Part<T>& p = *parts_.front();
  activate(p.exec);
  const size_t n = size_t(peaks_.series);
  std::vector<double> state(3 * n);
  if (n > 0) peaks_.state.download(state.data(), Index(state.size()));
  for (size_t s = 0; s < n; ++s) {
    out.q.push_back(state[3 * s + 1]);
    out.time.push_back(state[3 * s + 2]);
  }
  return out;
}

#define SILT_SWE_ENGINE_PEAKS(T)                               \
  template bool Engine<T>::track_step_peaks(const StepPeaks&); \
  template void Engine<T>::accumulate_step_peaks(bool);        \
  template StepPeaks Engine<T>::step_peaks() const;
SILT_SWE_ENGINE_PEAKS(float)
SILT_SWE_ENGINE_PEAKS(double)
#undef SILT_SWE_ENGINE_PEAKS

}  // namespace silt::swe::detail
