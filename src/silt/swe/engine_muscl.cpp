// The engine's second-order step (physics.scheme = "muscl"; kernels/muscl_k.hpp, muscl_step.hpp):
// dt from U^n as in the first-order step, Heun's first stage into the intermediate state U*, the
// second into the next state, then the plain phases (boundary flow as the mean of the two stages'
// fluxes, point sources on the final state, the CFL speed). On CUDA (the first order's rule,
// fused_step_available) each stage is one tile kernel (muscl_tile.hpp), the final one with the
// CFL speed where no point source follows it; SolverOptions::plain_phases keeps the plain phases. Several parts: ghost cell expansion
// by stages, each reading two layers beyond the cells it updates; a state whose halo holds fewer
// than two valid layers is exchanged first (halo k: stage 1 updates k - 2 layers of the halo,
// stage 2 k - 4, or U* is exchanged when k < 4), without overlap.
#include <algorithm>

#include "silt/swe/engine_parts.hpp"
#include "silt/swe/muscl_step.hpp"
#include "silt/swe/muscl_tile.hpp"
#include "silt/swe/phases.hpp"

namespace silt::swe::detail {

template <class T>
void Engine<T>::launch_muscl_step() {
  // Halo layers of U^n valid, exchanged first when fewer than 2; one part has no halo to keep and
  // updates its owned cells (r1 = r2 = 0).
  const Index valid = exchange_->stage_layers(cur_);
  exchange_->agree_on_dt();
  advance_clocks();
  const Index r1 = valid - 2;  // stage 1 updates r1 halo layers: U* is valid there
  muscl_stage(r1);
  const Index valid_star = exchange_->star_layers(r1);
  const Index r2 = std::min(valid_star - 2, valid);  // stage 2 reads U* 2 layers out, U^n in place
  muscl_final(r2);
  finish_muscl_parts();
  accumulate_sections(/*second_order=*/true);  // the mean of the stages' fluxes, as the update
  accumulate_hazard();
  accumulate_step_peaks();
  exchange_->keep_layers(r2);
  cur_ = 1 - cur_;
}

// Whether the final stage's tile kernel reduces the CFL speed: on the tile path, where no point
// source changes the state after it.
template <class T>
bool Engine<T>::tile_cfl(const SolverView<T>& v) const {
  return path_ == Path::tile && v.n_sources == 0;
}

template <class T>
void Engine<T>::muscl_stage(Index r) {
  for (auto& p : parts_) {
    activate(p->exec);
    if (path_ == Path::tile)
      phase_muscl_tile_stage(p->exec, p->stage_view(cur_), grown(*p, r), "swe.muscl.tile_stage");
    else
      phase_muscl_stage(p->exec, p->stage_view(cur_), grown(*p, r), "swe.muscl.stage");
  }
}

template <class T>
void Engine<T>::muscl_final(Index r) {
  for (auto& p : parts_) {
    activate(p->exec);
    const SolverView<T> v = p->view(cur_, 1 - cur_);
    if (path_ == Path::tile)
      phase_muscl_tile_final(p->exec, v, p->edge_view(2), grown(*p, r), tile_cfl(v),
                             "swe.muscl.tile_final");
    else
      phase_muscl_final(p->exec, v, p->edge_view(2), grown(*p, r), "swe.muscl.final");
  }
}

template <class T>
void Engine<T>::finish_muscl_parts() {
  for (auto& p : parts_) {
    activate(p->exec);
    const SolverView<T> v = p->view(cur_, 1 - cur_);
    if (v.n_flow_cells > 0) {
      // The step's boundary volume: dt times the mean of the two stages' fluxes, as the update.
      phase_boundary_flow(p->exec, v, 0.5, Scheme::muscl);
      SolverView<T> star = v;
      star.e = p->edge_view(2);
      phase_boundary_flow(p->exec, star, 0.5, Scheme::muscl);
    }
    if (v.n_mask_cells > 0) {  // the boundary lines' edges beside inactive cells, likewise
      phase_boundary_flow(p->exec, v, 0.5, Scheme::muscl, /*mask=*/true);
      SolverView<T> star = v;
      star.e = p->edge_view(2);
      phase_boundary_flow(p->exec, star, 0.5, Scheme::muscl, /*mask=*/true);
    }
    if (v.n_sources > 0) phase_sources(p->exec, v);
    if (!tile_cfl(v)) phase_cfl_step(p->exec, v);  // else the final stage's tile kernel did
    if (coupled()) phase_step_scalars(*p, 1 - cur_);
  }
}

// The MUSCL-Hancock step (physics.scheme = "muscl_hancock"; kernels/muscl_hancock_k.hpp): dt
// from U^n, one launch a part (slopes, predictor, fluxes, update, infiltration, maximum depth, the
// boundary volume of its flow edges on the grid's edge, and the CFL speed where no point source
// follows), then the plain phases. Several parts: ghost cell expansion as one muscl stage, since
// the step reads two layers beyond the cells it updates (an edge flux reads both cells' predicted
// faces, a predicted cell its slopes, a slope its neighbours): U^n is exchanged first when its
// halo holds fewer than two valid layers, and halo k updates k - 2 of them.
template <class T>
void Engine<T>::launch_hancock_step() {
  const Index valid = exchange_->stage_layers(cur_);
  exchange_->agree_on_dt();
  advance_clocks();
  const Index r = valid - 2;  // the halo layers the step updates: valid after it
  hancock_update(r);
  finish_hancock_parts();
  accumulate_sections();  // the step's edge fluxes (hancock_)
  accumulate_hazard();
  accumulate_step_peaks();
  exchange_->keep_layers(r);
  cur_ = 1 - cur_;
}

template <class T>
void Engine<T>::hancock_update(Index r) {
  for (auto& p : parts_) {
    activate(p->exec);
    const SolverView<T> v = p->view(cur_, 1 - cur_);
    if (path_ == Path::tile)
      phase_hancock_tile(p->exec, v, grown(*p, r), tile_cfl(v), "swe.muscl_hancock.tile");
    else
      phase_hancock(p->exec, v, grown(*p, r), "swe.muscl_hancock");
  }
}

template <class T>
void Engine<T>::finish_hancock_parts() {
  for (auto& p : parts_) {
    activate(p->exec);
    const SolverView<T> v = p->view(cur_, 1 - cur_);
    // The boundary lines' edges beside inactive cells (the grid's edge: counted in the update).
    if (v.n_mask_cells > 0)
      phase_boundary_flow(p->exec, v, 1.0, Scheme::muscl_hancock, /*mask=*/true);
    if (v.n_sources > 0) phase_sources(p->exec, v);
    if (!tile_cfl(v)) phase_cfl_step(p->exec, v);
    if (coupled()) phase_step_scalars(*p, 1 - cur_);
  }
}

#define SILT_SWE_ENGINE_MUSCL(T)                   \
  template void Engine<T>::launch_muscl_step();    \
  template void Engine<T>::launch_hancock_step();  \
  template void Engine<T>::hancock_update(Index);  \
  template void Engine<T>::finish_hancock_parts(); \
  template void Engine<T>::muscl_stage(Index);     \
  template void Engine<T>::muscl_final(Index);     \
  template void Engine<T>::finish_muscl_parts();   \
  template bool Engine<T>::tile_cfl(const SolverView<T>&) const;
SILT_SWE_ENGINE_MUSCL(float)
SILT_SWE_ENGINE_MUSCL(double)
#undef SILT_SWE_ENGINE_MUSCL

}  // namespace silt::swe::detail
