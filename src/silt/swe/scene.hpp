// The shallow-water problem as plain, validated data: what io/ parses from a scene file and what
// the solver consumes. SI units throughout. Cell (i, j) has its centre at (x0 + (i + 0.5) dx, y0 +
// (j + 0.5) dx); row j = 0 is the southern row; cell fields are stored row-major with index j * nx
// + i.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "silt/core/config.hpp"
#include "silt/swe/kernels/hazard_k.hpp"

namespace silt::swe {

enum class Precision { f32, f64 };
/// The finite-volume scheme (physics.scheme): first-order Roe (paper 001), or MUSCL reconstruction
/// with hydrostatic reconstruction and Heun's two stages (kernels/muscl_k.hpp), second order in
/// smooth flow, first order at wet/dry fronts; or the same reconstruction with one MUSCL-Hancock
/// stage (kernels/muscl_hancock_k.hpp: a half-step predictor of the face states, then one update),
/// second order in smooth flow in one stage.
enum class Scheme { first_order, muscl, muscl_hancock };
enum class Side { west, east, south, north };
enum class BoundaryKind {
  wall,          // reflective: no flow through the edge
  open,          // transmissive outflow: zero-gradient ghost state
  discharge,     // imposed inflow discharge hydrograph (total m^3/s across the segment); the depth
                 // from the outgoing characteristic (subcritical) or the critical depth
  level,         // imposed water-surface elevation time series (m)
  inflow_depth,  // supercritical inflow: discharge (m^3/s) and depth (m) both imposed
  inflow_velocity,  // supercritical inflow: discharge (m^3/s) and velocity (m/s) both imposed
  critical,         // critical outflow (free overfall): Froude 1 at the edge
  normal_depth,     // outflow at Manning's normal depth for a bed slope (uniform flow)
  rating            // outflow by a stage-discharge table
};

/// The kind's name in scenes and messages ("wall", ..., "normal_depth", "rating"); the two
/// supercritical inflows are discharge boundaries with a depth or a velocity.
inline const char* boundary_kind_name(BoundaryKind k) {
  static const char* const names[] = {"wall",
                                      "open",
                                      "discharge",
                                      "level",
                                      "discharge with depth",
                                      "discharge with velocity",
                                      "critical",
                                      "normal_depth",
                                      "rating"};
  return names[int(k)];
}

/// True for the kinds with a time series of their own (discharge or level).
inline bool boundary_has_series(BoundaryKind k) {
  return k == BoundaryKind::discharge || k == BoundaryKind::level ||
         k == BoundaryKind::inflow_depth || k == BoundaryKind::inflow_velocity;
}

/// Piecewise-linear time series: value(t) interpolates between samples and holds the end values
/// outside [t.front(), t.back()]. Times in s, strictly increasing.
struct Series {
  std::vector<double> t;
  std::vector<double> value;
  bool empty() const { return t.empty(); }
};

/// A segment of the domain edge with one boundary condition. Edges not covered by any segment are
/// walls. Either cells [begin, end) along one side of the grid (cells along west/east counted by
/// j, along south/north by i), or, with `line`, a polyline in map coordinates laid on the edges of
/// the model's outer edge (between an active cell and the outside of the grid or an inactive
/// cell) that it runs along within half a cell (boundary_lines.hpp); side, begin and end are then
/// unused.
struct Boundary {
  std::string name;
  Side side = Side::west;
  Index begin = 0;  // first cell along the side
  Index end = 0;    // one past the last cell along the side
  BoundaryKind kind = BoundaryKind::wall;
  Series series;               // discharge (m^3/s, into the domain) or level (m)
  double concentration = 0.0;  // pollutant concentration of water entering here, kg/m^3
  Series aux = {};             // inflow_depth: depth (m); inflow_velocity: velocity (m/s)
  double slope = 0.0;          // normal_depth: bed (energy) slope, m/m (> 0)
  Series rating = {};  // rating: t = stage (m, the bed's datum), value = discharge (m^3/s, >= 0)
  std::vector<std::array<double, 2>> line = {};  // x, y, m; empty: side + range
};

/// A point inflow (or outflow, if negative) into the cell containing (x, y), or, with `line`, an
/// inflow line: the discharge split among the active cells the polyline crosses in proportion to
/// its length in each, or, with `polygon`, an inflow area (a source area): the discharge spread
/// evenly over the active cells whose centres lie inside it (boundary_lines.hpp).
struct PointSource {
  std::string name;
  double x = 0.0, y = 0.0;     // m (a line: its first point; a polygon: the mean of its points)
  Series discharge;            // m^3/s
  double concentration = 0.0;  // kg/m^3 of the inflowing water
  std::vector<std::array<double, 2>> line = {};     // x, y, m; empty: not a line
  std::vector<std::array<double, 2>> polygon = {};  // x, y, m; empty: not a polygon
  bool is_point() const { return line.empty() && polygon.empty(); }
};

/// A cross-section line (outputs.cross_sections) across which the solver accumulates the volume
/// that passes (sections.hpp): a polyline in map coordinates, m. Positive discharge crosses it
/// from its right to its left looking from its first point to its last.
struct CrossSection {
  std::string name;
  std::vector<std::array<double, 2>> points;  // x, y, m; at least 2
};

struct Grid {
  Index nx = 0, ny = 0;
  double dx = 1.0;            // m, square cells
  double x0 = 0.0, y0 = 0.0;  // lower-left corner of the grid, m
  Index cells() const { return nx * ny; }
};

/// Hazard outputs (swe/kernels/hazard_k.hpp): accumulated after every step when enabled. The
/// fields are held (fields(), checkpoints) whenever enabled; only those of `fields` change.
struct HazardSettings {
  bool enabled = false;
  double wet_depth = 0.01;  // m: a cell is flooded above this depth (first wetting, duration)
  int debris = 0;           // HazardDebris: how the debris factor of the hazard rating is chosen
  unsigned fields = kHazardAllFields;  // HazardFieldBit: those the run's readers need
  /// Whether a step accumulates anything.
  bool accumulates() const { return enabled && fields != 0; }
};

/// Rainfall that varies in space and time: rates on the grid (already resampled) at frame times,
/// linear in time between frames or, with `step`, each frame's rates held until the next; before
/// the first frame and after the last the end frames hold, as for every series.
struct RainRaster {
  std::vector<double> t;                  // s, strictly increasing
  std::vector<std::vector<double>> rate;  // m/s, nx * ny per frame (>= 0)
  std::vector<std::string> source;        // where each frame came from (messages)
  bool step = false;
  bool empty() const { return t.empty(); }
};

enum class InfiltrationModel { none, green_ampt, horton };

/// Infiltration (swe/kernels/infiltration_k.hpp), per cell: Green-Ampt a = Ks (m/s), b = psi
/// dtheta (m); Horton a = fc, b = f0 (m/s), c = k (1/s). Empty vectors when model is none.
struct Infiltration {
  InfiltrationModel model = InfiltrationModel::none;
  std::vector<double> a, b, c;
  bool enabled() const { return model != InfiltrationModel::none; }
};

struct Scene {
  std::string name;
  Grid grid;
  // Cell fields, nx * ny each (row-major from the south-west corner).
  std::vector<double> bed;            // bed elevation z, m
  std::vector<double> depth;          // initial water depth h, m (>= 0)
  std::vector<double> velocity_x;     // initial u, m/s (empty: at rest)
  std::vector<double> velocity_y;     // initial v, m/s (empty: at rest)
  std::vector<double> manning;        // Manning's n, s m^-1/3 (empty: frictionless)
  std::vector<double> concentration;  // initial pollutant concentration C, kg/m^3 (empty: 0)
  std::vector<std::uint8_t>
      active;  // 0: outside the domain (DEM nodata), acts as a wall (empty: all active)

  std::vector<Boundary> boundaries;
  std::vector<PointSource> sources;
  std::vector<CrossSection> sections;  // discharge accumulated across them (output only)
  Series rainfall;                     // uniform rainfall rate, m/s (empty: none)
  RainRaster rain;                     // rainfall rasters, added to `rainfall` (empty: none)
  Infiltration infiltration;

  double gravity = 9.81;  // m/s^2
  Scheme scheme = Scheme::first_order;
  // Courant number of the 2D unsplit scheme: first order stable and positive <= 0.5; muscl
  // positive <= 0.25 (its face depths reach 3/2 of the cell's), its default
  double cfl = 0.45;
  double dry_depth = 1e-5;  // m: below this a cell is dry (no velocity, no outflow)
  double max_dt = std::numeric_limits<double>::infinity();  // s
  double min_dt = 1e-9;  // s: a step below this is reported as a collapsing time step
  Precision precision = Precision::f32;
  HazardSettings hazard;
};

}  // namespace silt::swe
