// swe::Solver's insides (solver.cpp: stepping and reading; solver_edit.cpp: the scene changed
// between steps). Internal to silt::swe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "silt/swe/engine.hpp"
#include "silt/swe/solver.hpp"

namespace silt::swe {

// The scene is kept here (the engine refers to it) and the engine holds the state of its parts in
// the precision the scene asks for. On CUDA the engine steps with the tile kernel of fused_step.hpp
// unless SolverOptions::plain_phases; on the CPU with the plain parallel_for phases, which stay the
// tile kernel's test oracle.
struct Solver::Impl {
  Scene scene;
  Exec exec;
  Split split;
  SolverOptions options;
  std::unique_ptr<detail::EngineBase> engine;
  // The scene's values as given where a change between steps replaced them (solver_edit.cpp):
  // restore() puts them back, since a checkpoint holds the scene's. The boundaries and sources
  // are kept from the start (small); the others from their first change.
  std::vector<Boundary> scene_boundaries;
  std::vector<PointSource> scene_sources;
  std::optional<double> scene_gravity;
  std::optional<Series> scene_rainfall;
  std::optional<RainRaster> scene_rain;
  std::optional<std::vector<double>> scene_bed;
  // The last change ("a series was replaced", "gravity was set", ...) and its time (< 0: none
  // since the start or the last restore): state() refuses then.
  std::string changed;
  double changed_at = -1;
  // sample_gauges()'s cells and interval, set again on a rebuilt engine.
  std::vector<Index> gauge_cells;
  double gauge_interval = 0;
  std::vector<GaugeRow> pending_rows;  // rows of an engine that a rebuild replaced
  bool track_peaks = false;            // track_step_peaks() on: again on a rebuilt engine

  /// The state now, without state()'s refusal (a change in progress).
  RestartState current_state() const;
  /// A new engine for the scene as it is now, continuing from s (a change the engine's tables
  /// cannot take in place: the bed, the rain, gravity). The same steps as a checkpoint's restart.
  void rebuild(const RestartState& s);
  /// Records a change at the current time (state() refuses from now on).
  void note_change(std::string what);
};

}  // namespace silt::swe
