// What a shallow-water run writes: rasters of the chosen fields at each output time
// (<field>_<kkkk>.<asc|tif|nc>, k = frame index, or every field in one fields.nc with frames along
// its time axis, appended frame by frame; each .asc with its CRS in <field>_<kkkk>.prj
// when the CRS is known; values at outputs.precision), PNG maps (<field>_<kkkk>.png), frames.csv (frame
// index -> time), gauges.csv (time series at named points) and resolved_scene.json. Rasters and
// PNGs are written under a temporary name and renamed, so a crash never leaves a half-written
// file and earlier outputs stay intact.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "silt/io/frame_index.hpp"
#include "silt/io/image/map.hpp"
#include "silt/io/raster/raster.hpp"
#include "silt/io/swe/scene_file.hpp"
#include "silt/swe/fields.hpp"
#include "silt/swe/solver.hpp"

namespace silt::io {

/// One output field on the grid as written: nodata (NaN) on inactive cells, and for level,
/// velocity, u, v and concentration also where the cell is dry (h <= dry_depth), since these
/// are undefined without water.
std::vector<double> derived_field(const swe::Scene& scene, const swe::Fields& f, SweField which);

/// Grid, CRS, precision, nodata and time reference shared by every raster of a run.
Raster output_grid(const SweJob& job);
/// Hazard raster `which` of f (io/swe/output_hazard.cpp) with its name, units and CF metadata;
/// nodata on inactive cells and, for the first wetting time, where the cell was never wet. Empty
/// f: the metadata alone. at_frame: the maxima so far of an output frame (outputs.hazard.every_frame),
/// described as since the start of the run rather than over it.
Raster hazard_raster(const SweJob& job, const swe::Fields& f, HazardField which,
                     bool at_frame = false);
/// The run's NetCDF variable of a hazard raster with every frame: "hazard_<field>_frames" over
/// (time, y, x), beside the end of the run's "hazard_<field>" over (y, x).
inline constexpr const char* kHazardFramesSuffix = "_frames";
/// The NetCDF file of the hazard rasters when NetCDF is written a file per frame.
inline constexpr const char* kNetcdfHazardFile = "hazard.nc";

/// Whether frames read the fields (a raster or a map is asked for); when not,
/// SweOutputWriter::write_frame() takes empty Fields and nothing need leave the device.
bool wants_fields(const SweOutputSettings& outputs);
/// Those the hazard rasters read (at the end of a run, and with every frame when asked).
constexpr unsigned kHazardArrays = swe::arrays::max_depth | swe::arrays::hazard;
/// The stored arrays a frame's files read (swe::arrays): depth for every field (wet or dry),
/// discharge for velocities, pollutant for concentration, max_depth and infiltration for them,
/// kHazardArrays only with outputs.hazard.every_frame; none without files.
unsigned field_arrays_of(const SweOutputSettings& outputs);
/// The NetCDF file of a run (outputs.netcdf = "run"): every field, frames along time.
inline constexpr const char* kNetcdfRunFile = "fields.nc";
/// The files each frame writes (besides its row of frames.csv): per field (and per hazard raster
/// with outputs.hazard.every_frame) one per format, the run's NetCDF file included, and a .prj
/// beside each .asc when the CRS is known; the PNG map.
std::size_t files_per_frame(const SweOutputSettings& outputs);

/// How a report map shows its field: values from show_min to vmax in `ramp` (below show_min,
/// or NaN, the terrain), the colour bar titled "field, units" (units may be empty).
struct ReportScale {
  double show_min = 0, vmax = 1;
  ColourRamp ramp = ColourRamp::blues;
  std::string field, units;
};
/// A map of a flood report (io/image/report.hpp; io/swe/output_report.cpp): `values` (one per
/// cell) over `shade`, the hillshade of the job's bed, with the scene's boundaries, inflows and
/// cross sections, framed with the CRS's coordinates and a north arrow, and the colour bar, the
/// time t (s) and a scale bar below it. report_max_depth.png is one; an ensemble's probability
/// maps are others (run/ensemble_report.cpp).
PngImage report_field_map(const SweJob& job, const std::vector<float>& shade,
                          const std::vector<double>& values, const ReportScale& scale, double t);

class SweOutputWriter {
 public:
  /// Creates out_dir (errors name it when it cannot be created or written). The job must outlive
  /// the writer. first_frame >= 0 (a restart): frames.csv keeps its rows of the frames before it.
  SweOutputWriter(const SweJob& job, std::string out_dir, long first_frame = -1);

  /// Writes frame k (simulated time t, s) from f; returns the paths written. The frame is
  /// complete or absent: when one of its files fails, those already written are removed and
  /// frames.csv does not list it. encode_frame() then commit_frame().
  std::vector<std::string> write_frame(const swe::Fields& f, double t, int k);

  /// A frame's own files, written, and what its commit appends to the run's NetCDF file.
  struct EncodedFrame {
    std::vector<std::string> written;
    std::vector<std::vector<double>> series_values;
  };
  /// Writes frame k's own files (rasters, .prj, the map); safe on several threads at once for
  /// different frames. When one fails, those already written are removed.
  EncodedFrame encode_frame(const swe::Fields& f, double t, int k) const;
  /// Finishes frame k, in frame order: appends it to the run's NetCDF file, then lists it in
  /// frames.csv; returns the paths written. When that fails, the frame's files are removed.
  std::vector<std::string> commit_frame(EncodedFrame e, double t, int k);
  /// Removes the files of a frame that will not be committed.
  static void discard(const EncodedFrame& e);

  /// Writes the hazard rasters of f at the end of the run (time t, s; io/swe/output_hazard.cpp):
  /// hazard_<field>.<asc|tif> (a .prj beside each .asc) and, in NetCDF, variables without time
  /// in the run's fields.nc or in hazard.nc. Returns the paths written.
  std::vector<std::string> write_hazard(const swe::Fields& f, double t);
  /// The report's maps of f (io/swe/output_report.cpp; with PNG maps on, called by write_hazard):
  /// report_max_depth.png and report_hazard_class.png (t: the end of the run, s). Returns the
  /// paths written.
  std::vector<std::string> write_report_maps(const swe::Fields& f, double t) const;

  const std::string& dir() const { return dir_; }
  /// "<dir>/<stem>_<kkkk>.<ext>"
  std::string frame_path(const std::string& stem, int k, const std::string& ext) const;

 private:
  const SweJob* job_;
  std::string dir_;
  RasterSeries series_;       // the NetCDF file of the run (fields.nc), when it is asked for
  std::string series_path_;   // "" when not
  std::vector<float> shade_;  // hillshade of the bed, computed once
  FrameIndex index_;

  void write_files(const swe::Fields& f, double t, int k, EncodedFrame& e) const;
};

/// gauges.csv: "time_s" then <gauge>_h_m, <gauge>_u_m_s, <gauge>_v_m_s, <gauge>_c_kg_m3 per
/// gauge, then <gauge>_level_m (water level h + ground) per gauge, then <gauge>_cell_i,
/// <gauge>_cell_j (the cell read) per gauge with a snap radius, one row per sample (at the end of the step
/// that reached the sample time, stamped with that step's time); each row is flushed so a crash
/// loses at most the row being written. Beside it gauge_points.csv (write_points(): with each frame
/// and at the end of the run; a restart recomputes it from the rows it keeps): per
/// gauge its point, the cell read (i, j) and its ground (bed) elevation, its arrival depth, the
/// arrival time (the first time its depth exceeds the arrival depth, interpolated linearly between
/// the two samples around it; empty until then) and the largest depth and level sampled.
/// One probe per gauge from swe::Solver::probe(job.gauge_cells()): the gauge's cell, or when it is
/// dry the nearest wet cell of its snap_cells (the cell itself when none is wet); *cells (when
/// given) receives the cell each read.
std::vector<swe::Probe> pick_gauges(const SweJob& job, const std::vector<swe::Probe>& probes,
                                    std::vector<Index>* cells = nullptr);

class GaugeCsvWriter {
 public:
  /// keep_rows >= 0 (a restart): appends after the first keep_rows rows the file holds.
  GaugeCsvWriter(const SweJob& job, const std::string& out_dir, long keep_rows = -1);
  ~GaugeCsvWriter();
  GaugeCsvWriter(const GaugeCsvWriter&) = delete;
  GaugeCsvWriter& operator=(const GaugeCsvWriter&) = delete;

  /// probes: swe::Solver::probe(job.gauge_cells()) (pick_gauges() chooses each gauge's).
  void write(double t, const std::vector<swe::Probe>& probes);
  /// gauge_points.csv from the rows so far.
  void write_points() const;
  const std::string& path() const { return path_; }

 private:
  /// What gauge_points.csv says of one gauge, from the samples so far.
  struct Track {
    double last_t = 0, last_h = 0;
    bool sampled = false;
    double arrival = -1;           // s; < 0: not yet
    double max_h = -1, max_t = 0;  // m, s
  };
  void track(size_t g, double t, double h);

  const SweJob* job_;
  std::string path_, points_path_;
  std::FILE* file_ = nullptr;
  size_t gauges_ = 0;
  std::vector<Track> track_;
};

/// The run's water accounting, one row per output frame (io/swe/output_flows.cpp), both files
/// written whole and renamed at each frame:
///   hydrograph.csv: "frame,time_s", then for each boundary that is not a wall and each point
///     source (scene order) "<name>_q_m3_s": the mean discharge into the domain over the interval
///     since the previous frame (out of it: negative; 0 on the first row), then
///     "<name>_volume_m3": the net volume that has passed it since t = 0; then the same two
///     columns per cross section (outputs.cross_sections), positive toward the line's left;
///   mass_balance.csv: "frame,time_s,stored_m3,rain_m3,infiltrated_m3,boundary_net_m3,
///     source_net_m3,residual_m3": the water stored at the frame, the volumes since t = 0 (net:
///     what left counts negative) and stored - stored at frame 0 - (rain + boundaries + sources -
///     infiltrated), round-off or a defect;
///   hydrograph.nc, with "nc" among outputs.formats in builds with netCDF-C: hydrograph.csv's
///     columns as CF timeSeries (io/swe/hydrograph_netcdf.hpp).
struct HydrographSeries;

class FlowTables {
 public:
  /// keep_below >= 0 (a restart): keeps the rows of frames below it that the files hold. The job
  /// must outlive the tables.
  FlowTables(const SweJob& job, const std::string& out_dir, long keep_below = -1);
  ~FlowTables();
  FlowTables(const FlowTables&) = delete;
  FlowTables& operator=(const FlowTables&) = delete;
  /// The rows of frame k at time t (s) from the solver's totals then.
  void write(long k, double t, const swe::Totals& totals);
  const std::string& hydrograph_path() const { return hydro_path_; }
  const std::string& balance_path() const { return balance_path_; }

 private:
  const swe::Scene* scene_;  // the job's: its series (io/swe/hydrograph_series.hpp)
  std::string hydro_path_, balance_path_, hydro_, balance_;
  // The previous row: time and each column's volume; the stored volume of frame 0.
  bool have_previous_ = false;
  double previous_t_ = 0.0;
  std::vector<double> previous_volume_;
  double stored_0_ = 0.0;
  // hydrograph.nc (with "nc" among outputs.formats): every row so far, rewritten at each frame.
  std::string nc_path_;
  std::unique_ptr<HydrographSeries> nc_;
  void add_row(double t, const double* q, const double* v);
};

/// resolved_scene.json: the resolved scene (loadable again as a scene) with a "provenance"
/// object naming the build, the backend, the scene file and the overrides.
std::string write_resolved_scene(const SweJob& job, const std::string& out_dir,
                                 const std::string& build_id, const std::string& backend,
                                 const std::vector<std::string>& overrides = {});

}  // namespace silt::io
