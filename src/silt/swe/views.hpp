// Non-owning views of the solver's device state, passed by value into its launches (never `this`).
// EdgeView is what an edge needs (the state at the start of the step, the bed, the active mask and
// the boundary tables); a tiled kernel can build its edge fluxes from it with edges.hpp exactly as
// the plain parallel_for path does. SolverView adds the rest of a step: the next state, the
// device-side clock, the CFL scalar, fault flags, series tables and point sources.
#pragma once

#include <cstdint>

#include "silt/core/config.hpp"
#include "silt/core/fault.hpp"
#include "silt/core/span.hpp"
#include "silt/swe/kernels/hazard_k.hpp"
#include "silt/swe/kernels/infiltration_k.hpp"
#include "silt/swe/kernels/series_k.hpp"
#include "silt/swe/kernels/wet_dry_k.hpp"

namespace silt::swe::detail {

/// Slots of the device-side clock (double): the time step is chosen and applied on the device.
enum ClockSlot : int {
  kTime = 0,  // simulated time after the last step, s
  kDt,        // step being taken (0: a no-op step past the target or after a fault), s
  kTarget,    // time advance_to() is heading for, s
  kSteps,     // steps taken (no-op steps not counted)
  kInflow,    // net volume that entered through boundaries, sources and rain, m^3
  kRain,      // rainfall rate during the current step, m/s
  kTMid,      // middle of the current step (where forcing series are sampled), s
  kLastDt,    // last non-zero step, s
  kCflDt,     // last non-zero step as the CFL (and max_dt) chose it, before any clip to a target, s
  kLaunched,  // steps launched, no-op steps included (the cost of a batch that overshoots)
  kRainW,     // weight of the rain bracket's later frame during the current step (ForcingView)
  kRainIn,    // volume of rain that fell on the owned active cells, m^3 (also in kInflow)
  // Of the current step, once in the clock kernel rather than in every thread of the tile kernel
  // (a float64 division and the double values would hold registers in its wet interior):
  kDtDx,       // dt / dx, s/m
  kRainDepth,  // uniform rain falling during the step, kRain * dt, m
  // Steps end once the time reaches this (s), without a step shortened to land on it: where
  // advance_to(t, stop, after) returns early to sample gauges at the end of a step.
  kStopAfter,
  // Gauges sampled on the device (phase_gauge_sample): the next sample time (s; +inf: none) and
  // the rows taken since the host last read them.
  kGaugeNext,
  kGaugeRows,
  kClockSize
};
// After the kClockSize slots the clock holds the flow slots: the net volume (m^3, positive into
// the domain) that has passed each edge of the global grid's boundary since the start (slot
// kClockSize + the edge cell's place in EdgeView::side_seg's layout) and each point source
// (kClockSize + n_edge + its slot, SourceCell::id). Only the part that owns a cell adds to its
// slots, one add per step, so every slot holds the same sum on any split and the parts' clocks
// add up exactly (totals() sums them, then each segment's edges in order). Part of kInflow. The
// edge slots end with the boundary lines' mask edges (EdgeView::mask_key), the source slots hold
// one per cell of an inflow line. After them, one slot per edge of the cross sections
// (sections.hpp), which are not inflows.

/// Edge cells along the four sides of an nx x ny grid (EdgeView::side_seg's length).
inline Index edge_slots(Index nx, Index ny) {
  return 2 * (nx + ny);
}
/// The clock's size with n_edge edge slots, n_sources point sources and n_section cross-section
/// edges.
inline Index clock_size(Index n_edge, Index n_sources, Index n_section) {
  return Index(kClockSize) + n_edge + n_sources + n_section;
}

/// Domain sides, in the order of swe::Side.
enum SideCode : int { kWest = 0, kEast = 1, kSouth = 2, kNorth = 3 };

/// An edge of the model's outer edge that belongs to a boundary segment, seen from its active
/// cell: an edge of the global grid's side, or an edge beside an inactive cell (a mask edge, of a
/// boundary line on a masked domain).
struct BoundaryCell {
  int side;       // SideCode: which edge of the cell
  Index pos;      // position along the global side (j on west/east, i on south/north); -1: mask
  int seg;        // segment index
  int slot = -1;  // a rating segment's cell: its conveyance's place in the step's sums
  Index i = 0, j = 0;  // the cell: global in the Layout, local in a part's tables
  Index flow = 0;      // flow slot: EdgeView::edge_index, or a mask edge's 2 (gnx + gny) + k
};

/// Key of the edge between cells (gi - 1, gj) and (gi, gj) (dir 0) or (gi, gj - 1) and (gi, gj)
/// (dir 1) of a grid gnx cells wide: EdgeView::mask_key's order.
SILT_HD inline long long edge_key(Index gi, Index gj, int dir, Index gnx) {
  return (static_cast<long long>(gj) * (gnx + 1) + gi) * 2 + dir;
}

/// A point source in cell (i, j).
struct SourceCell {
  Index i, j;
  int series;   // discharge series, m^3/s
  double conc;  // concentration of the inflowing water, kg/m^3
  int id;       // the source's index in the scene (its flow slot)
};

template <class T>
struct EdgeView {
  Grid2<const T> h, hu, hv, hc;  // state at the start of the step
  Grid2<const T> z;              // bed relative to the scene's lowest active bed, m
  Grid2<const std::uint8_t> active;
  Index nx = 0, ny = 0;  // cells this view updates and owns: local i in [0, nx), j in [0, ny)
  // Placement in the global grid, for a subdomain of a split run (src/silt/partition/): local cell
  // (i, j) is global cell (i + i0, j + j0) of the gnx x gny grid. The halo ring [-ext, 0) and
  // [n, n + ext) holds real neighbour data on sides shared with another subdomain and inactive
  // cells beyond the global edge, so only the global edges are physical boundaries. One device
  // running the whole grid: i0 = j0 = 0, gnx = nx, gny = ny, ext = 0.
  Index i0 = 0, j0 = 0, gnx = 0, gny = 0, ext = 0;
  T dx, g, dry;
  // Boundary tables of the global grid. side_seg: segment of each edge cell, -1 for a wall, laid
  // out as west [0, gny), east [gny, 2 gny), south [2 gny, 2 gny + gnx), north [2 gny + gnx,
  // 2 gny + 2 gnx).
  const int* side_seg;
  const int* seg_kind;   // BoundaryCode
  const T* seg_value;    // this step: imposed level (kLevel, on z's datum) or discharge Q, m^3/s
  const T* seg_conc;     // concentration of water entering, kg/m^3
  const int* seg_wet;    // this step: wet cells of a discharge segment
  const int* seg_cells;  // active cells of the segment
  // This step: depth (m) or velocity (m/s) of a supercritical inflow; for a rating segment the sum
  // of its cells' conveyances h^(5/3) / n (phase_conveyance_sum, after the clock).
  const T* seg_aux;
  // Mask edges of boundary lines: edges between an active and an inactive cell inside the grid
  // that belong to a segment, by edge_key() ascending; mask edge k is flow slot 2 (gnx + gny) + k.
  const long long* mask_key = nullptr;
  const int* mask_seg = nullptr;
  Index n_mask = 0;
  const T* seg_slope;      // sqrt of a normal-depth segment's bed slope, -
  const int* seg_table;    // a rating segment's stage-discharge table (series index), else -1
  Grid2<const T> manning;  // Manning n, s m^-1/3 (ptr null: frictionless), normal depth, rating
  // Every series and table in one (SolverView::series): k is samples [offset[k], offset[k + 1]).
  const double* series_t;
  const double* series_v;
  const int* series_offset;

  SILT_HD bool is_active(Index i, Index j) const {
    return i >= -ext && j >= -ext && i < nx + ext && j < ny + ext && active(i, j) != 0;
  }
  /// True for the cells this view owns (not its halo).
  SILT_HD bool owns(Index i, Index j) const { return i >= 0 && j >= 0 && i < nx && j < ny; }
  /// Global row-major index of local cell (i, j) (what faults report).
  SILT_HD Index global_index(Index i, Index j) const { return (j + j0) * gnx + (i + i0); }
  SILT_HD CellState<T> cell(Index i, Index j) const {
    return CellState<T>{h(i, j), hu(i, j), hv(i, j), hc(i, j)};
  }
  /// Place of the global edge cell at global position pos along side in side_seg's layout.
  SILT_HD Index edge_index(int side, Index pos) const {
    const Index base = side == kWest    ? 0
                       : side == kEast  ? gny
                       : side == kSouth ? 2 * gny
                                        : 2 * gny + gnx;
    return base + pos;
  }
  /// Segment of the global edge cell at global position pos along side (-1: wall).
  SILT_HD int segment(int side, Index pos) const { return side_seg[edge_index(side, pos)]; }
  /// Index in mask_key of the edge of edge_key() key (-1: none), by bisection: only edges beside
  /// an inactive cell ask.
  SILT_HD Index mask_index(long long key) const {
    Index lo = 0, hi = n_mask;
    while (lo < hi) {
      const Index mid = lo + (hi - lo) / 2;
      if (mask_key[mid] < key)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo < n_mask && mask_key[lo] == key ? lo : -1;
  }
  /// Segment of the mask edge between local cells (i - 1, j) and (i, j) (Dir x: dir 0) or (i, j
  /// - 1) and (i, j) (dir 1); -1: a wall.
  SILT_HD int mask_segment(Index i, Index j, int dir) const {
    if (n_mask == 0) return -1;
    const Index k = mask_index(edge_key(i + i0, j + j0, dir, gnx));
    return k < 0 ? -1 : mask_seg[k];
  }
};

/// Spatial forcing of a step (forcing.hpp): rain rasters and infiltration, laid out as the state
/// (same nx, ny and ring: the state's offset of a cell indexes them).
template <class T>
struct ForcingView {
  // Rain rates of the bracket's frames at times t_a <= t_b, m/s (rain_a null: no rain rasters);
  // the clock blends them with kRainW, linear in time (step: the earlier frame alone).
  const T* rain_a = nullptr;
  const T* rain_b = nullptr;
  double t_a = 0, t_b = 0;            // s
  bool step = false;                  // piecewise constant in time
  double volume_a = 0, volume_b = 0;  // m^3/s of each frame over the owned active cells
  double max_a = 0, max_b = 0;        // m/s: each frame's largest rate over the grid (every part's)
  int model = kNoInfiltration;        // InfiltrationCode
  const T *soil_a = nullptr, *soil_b = nullptr, *soil_c = nullptr;  // SoilCell fields
  const double* F = nullptr;  // cumulative infiltration at the step's start, m
  double* F_new = nullptr;    // and at its end

  /// Rain rate of the cell at offset off this step beyond the uniform rain, m/s.
  SILT_HD double rain_rate(const double* clock, Index off) const {
    if (rain_a == nullptr) return 0.0;
    const double w = clock[kRainW];
    return (1.0 - w) * double(rain_a[off]) + w * double(rain_b[off]);
  }
  /// The largest raster rate of any cell during the bracket, m/s (a blend lies between its frames).
  SILT_HD double rain_rate_max() const {
    if (rain_a == nullptr) return 0.0;
    return step || max_a > max_b ? max_a : max_b;
  }
  /// Infiltration of the cell at offset off after its update (an inactive cell, or a no-op
  /// step, carries F over), on state s.
  SILT_HD void infiltrate(CellState<T>& s, Index off, bool active, double dt, T dry) const {
    if (model == kNoInfiltration) return;
    double f = F[off];
    if (active) {
      const SoilCell<T> soil{soil_a[off], soil_b[off], soil_c ? soil_c[off] : T(0)};
      infiltrate_k(s, f, model, soil, dt, dry);
    }
    F_new[off] = f;
  }
};

/// The hazard fields (hazard.hpp) that the float64 tile kernel accumulates into after a cell's
/// update (TileFeature kTileHazard), laid out as the state (same nx, ny and ring: the state's
/// offset of a cell indexes them). Only the fields of params.fields (HazardFieldBit) are
/// accumulated; the others are null. params.fields 0: the step leaves them to phase_hazard.
template <class T>
struct HazardFold {
  T* max_speed = nullptr;
  T* max_depth_speed = nullptr;
  T* max_conc = nullptr;
  T* max_rating = nullptr;
  double* first_wet = nullptr;
  double* wet_time = nullptr;
  HazardParams<T> params{T(0), 0, 0u};
};

template <class T>
struct SolverView {
  EdgeView<T> e;
  Grid2<T> h_new, hu_new, hv_new, hc_new;  // state at the end of the step
  Grid2<const T> manning;                  // Manning n, s m^-1/3 (ptr null: frictionless)
  Grid2<T> max_depth;                      // m
  double* clock;                           // ClockSlot, then the flow slots
  T* smax;                                 // largest wave speed of the current state, m/s
  FaultView fault;
  double dx, cfl, max_dt, min_dt;  // m, -, s, s
  double speed_floor;              // m/s, see cfl_dt_k
  double active_area;              // m^2 of active cells (rain)
  double z_ref;                    // m: bed datum subtracted from z and imposed levels
  // Rain falls before fluxes see it (muscl: stage 1 rains, stage 2's fluxes take the wetter state),
  // so the clock bounds the step by the rain column's speed too (rain_column_step_k).
  bool rain_before_fluxes;
  // Forcing: every series in one table, series k being samples [offset[k], offset[k + 1]).
  const double* series_t;
  const double* series_v;
  const int* series_offset;
  int rain_series;  // -1: no rain
  int n_seg;
  const int* seg_series;
  const int* seg_aux_series;  // -1: none
  T* seg_value;
  T* seg_aux;
  int* seg_wet;
  const BoundaryCell* flow_cells;  // owned global-edge cells of flow segments (not walls)
  Index n_flow_cells;
  // Owned mask edges of flow segments: their volume is counted by phase_boundary_flow on every
  // path (the tile kernel and the row step count the global edges' inline).
  const BoundaryCell* mask_cells;
  Index n_mask_cells;
  const BoundaryCell* discharge_cells;
  Index n_discharge_cells;
  // Owned cells of rating segments, and each segment's range of conveyance slots: segment s has
  // slots [seg_slot[s], seg_slot[s + 1]), one per cell along it (none unless a rating segment).
  const BoundaryCell* rating_cells;
  Index n_rating_cells;
  const int* seg_slot;
  const SourceCell* sources;
  Index n_sources;
  Index n_edge;  // edge slots: the global grid's (edge_slots()), then its mask edges
  // The discharge series of every point source of the scene, wherever it lies: the clock bounds
  // the step by them on every part alike (one dt for all parts).
  const int* source_series;
  int n_all_sources;
  ForcingView<T> forcing;
  HazardFold<T> hazard;  // set by the engine only where the tile kernel accumulates the hazard

  /// The edge flow slots (indexed by EdgeView::edge_index).
  SILT_HD double* edge_flow() const { return clock + kClockSize; }
  /// The flow slot of the point source src.
  SILT_HD double* source_flow(const SourceCell& src) const {
    return clock + kClockSize + n_edge + src.id;
  }

  /// Rain falling on the cell at offset off during a step of dt s, m.
  SILT_HD T rain_depth(Index off, double dt) const {
    return T((clock[kRain] + forcing.rain_rate(clock, off)) * dt);
  }

  /// Value of forcing series k at time t (0 for k < 0).
  SILT_HD double series(int k, double t) const {
    if (k < 0) return 0.0;
    const int b = series_offset[k];
    return series_value_k(series_t + b, series_v + b, series_offset[k + 1] - b, t);
  }
  /// Range of forcing series k over the times [t0, t1] ({0, 0} for k < 0).
  SILT_HD SeriesRange series_range(int k, double t0, double t1) const {
    if (k < 0) return SeriesRange{0.0, 0.0};
    const int b = series_offset[k];
    return series_range_k(series_t + b, series_v + b, series_offset[k + 1] - b, t0, t1);
  }
};

}  // namespace silt::swe::detail
