// One part of a shallow-water run (the whole grid, or one subdomain of a split run): the device
// state of its owned cells plus a halo ring of `ring` cells (neighbours' cells on shared sides,
// inactive cells beyond the global edge), the boundary tables restricted to the global edge cells
// it owns, and the point sources in its owned cells and halo (the halo repeats its owner's update,
// sources included; only the owner counts their volume). Its views place it in the global grid
// (EdgeView::i0, j0, gnx, gny, ext), so the phases of phases.hpp step a subdomain exactly as they
// step the whole grid.
#pragma once

#include <cstdint>

#include "silt/core/buffer.hpp"
#include "silt/core/exec.hpp"
#include "silt/core/fault.hpp"
#include "silt/partition/decompose.hpp"
#include "silt/swe/forcing.hpp"
#include "silt/swe/fused_step.hpp"
#include "silt/swe/hazard.hpp"
#include "silt/swe/phases.hpp"
#include "silt/swe/row_step.hpp"
#include "silt/swe/scene.hpp"
#include "silt/swe/sections.hpp"
#include "silt/swe/setup.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

template <class T>
struct Part {
  Part(const Scene& scene, const Layout& layout, const partition::Subdomain& sub, int ring,
       const Exec& exec);

  Grid2<T> grid(const DeviceBuffer<T>& b) const {
    return Grid2<T>{const_cast<T*>(b.data()), nx, ny, ring};
  }
  /// Views of state buffer read (0, 1, or 2: the intermediate state) writing buffer write.
  EdgeView<T> edge_view(int read) const;
  SolverView<T> view(int read, int write) const;
  /// view(read, 1 - read) writing the intermediate state [2] instead (Heun's first stage).
  SolverView<T> stage_view(int read) const;
  /// The hazard accumulation over state `state` (hazard.cpp).
  HazardView<T> hazard_view(int state) const;
  /// The hazard fields as the tile kernel accumulates into them (SolverView::hazard; hazard.cpp).
  HazardFold<T> hazard_fold() const;
  /// The cross sections' edges this part owns, over state `read` (the step's start).
  SectionFlowView<T> section_view(int read) const;
  /// Checkpoint (to_backup) or restore of state, max depth, clock (phase_copy), hazard fields and
  /// cumulative infiltration.
  void copy_state(int cur, bool to_backup);
  /// Storage of the exchanged fields h, hu, hv, hc of buffer `which` (HaloExchange order).
  std::vector<void*> exchanged(int which);

  const Scene* scene;
  const Layout* layout;
  partition::Subdomain sub;
  Index nx, ny;
  int ring;
  // Halo layers its views may read (EdgeView::ext): the ring on a part with neighbours; 0 on the
  // whole grid, whose ring holds only the inactive cells beyond the edge.
  Index ext;
  Exec exec;
  double active_area;  // m^2 of owned active cells (rain inflow)
  // The state: [0] and [1] alternate as the step's start and end; [2] is the second-order
  // scheme's intermediate state U* (Heun's first stage; empty for the first-order scheme).
  DeviceBuffer<T> h[3], hu[3], hv[3], hc[3];
  DeviceBuffer<T> z, manning, max_depth;
  DeviceBuffer<std::uint8_t> active;
  DeviceBuffer<T> bk_h, bk_hu, bk_hv, bk_hc, bk_max_depth;
  DeviceBuffer<double> clock, bk_clock;
  DeviceBuffer<T> smax;
  // Per-step scalars of the global reduction: [0] largest wave speed, [1 + s] wet cells of
  // segment s (discharge boundaries spread Q over the wet cells of the whole segment), then
  // [1 + n_seg + slot] the conveyance of each rating segment's cell (Layout::seg_slot): only its
  // owner adds a non-zero value, so the sum is exact whatever the order.
  DeviceBuffer<double> scalars;
  // One part: the conveyance of each rating segment's cell, summed in slot order
  // (phase_conveyance_sum) as the several parts sum the reduced scalars.
  DeviceBuffer<double> conveyance;
  DeviceBuffer<int> wet_partial;  // this subdomain's wet cells per segment
  FaultFlags fault;
  DeviceBuffer<int> side_seg, seg_kind, seg_series, seg_cells, seg_wet;
  DeviceBuffer<int> seg_aux_series, seg_table;
  DeviceBuffer<T> seg_value, seg_conc, seg_aux, seg_slope;
  DeviceBuffer<BoundaryCell> flow_cells, discharge_cells, rating_cells;  // owned, positions local
  DeviceBuffer<BoundaryCell> mask_cells;  // owned mask edges of flow segments, cells local
  DeviceBuffer<long long> mask_key;       // every mask edge of the grid (EdgeView::mask_key)
  DeviceBuffer<int> mask_seg;
  DeviceBuffer<int> seg_slot;
  DeviceBuffer<SourceCell> sources;         // owned and halo, cells local
  DeviceBuffer<SectionEdge> section_edges;  // owned (the east or north cell), cells local
  DeviceBuffer<int> source_series;          // every source's discharge series (the clock's bound)
  DeviceBuffer<double> series_t, series_v;
  DeviceBuffer<int> series_offset;
  // The tile kernel's tiles holding an active cell (fused_step.hpp, active_tiles) of the whole
  // grid of one CUDA part, and the list over it; empty elsewhere (every tile is launched).
  DeviceBuffer<std::uint32_t> tiles;
  TileList tile_list;
  Index all_tiles = 0;  // the box's tiles, listed or not
  // The cells of the last probe() on this part: their offsets and values on the device (uploaded
  // again only when the cells change), and where each goes in probe()'s answer.
  std::vector<Index> probe_offsets;
  DeviceBuffer<Index> probe_off;
  DeviceBuffer<double> probe_values;
  RowScratch<T> rows;         // the CPU row step's buffers (host parts only)
  HazardBuffers<T> hazard;    // empty unless the scene asks for hazard outputs
  ForcingBuffers<T> forcing;  // rain rasters and infiltration (empty without them)
};

/// The wet count and wave speed a step's global reduction starts from: zeroes the partial wet
/// counts, counts the wet discharge cells of state `read` and packs [smax, wet...] into scalars.
template <class T>
void phase_step_scalars(const Part<T>& p, int read);
/// After the reduction: the global wave speed into smax (before phase_clock).
template <class T>
void phase_unpack_speed(const Part<T>& p);
/// After the reduction, before phase_clock: the global wet counts into seg_wet.
template <class T>
void phase_unpack_wet(const Part<T>& p);
/// After phase_clock: each rating segment's conveyance sum into seg_aux, from the reduced scalars
/// (coupled) or from the cells of the one part.
template <class T>
void phase_rating_conveyance(const Part<T>& p, int read, bool coupled);

}  // namespace silt::swe::detail
