// mpm::Solver's parts, emission and what may allocate between frames (solver_impl.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "silt/core/error.hpp"
#include "silt/mpm/exchange/kernels.hpp"
#include "silt/mpm/mesh/sdf.hpp"
#include "silt/mpm/solver_impl.hpp"

namespace silt::mpm {

namespace {
/// Steps per iteration of a frame graph's device-side loop (the body repeated), so the loop's
/// per-iteration cost is shared by two steps (bench/results/mpm-2026-11-29-h200.md).
constexpr int kGraphStepsPerIteration = 2;

/// Parts over all ranks, and the indices of this process's among them.
int part_total(const std::vector<Exec>& execs, const partition::World& w) {
  return w.distributed() ? w.size() : int(execs.size());
}
std::vector<int> local_indices(const std::vector<Exec>& execs, const partition::World& w) {
  if (w.distributed()) return {w.rank()};
  std::vector<int> g(execs.size());
  for (std::size_t k = 0; k < g.size(); ++k) g[k] = int(k);
  return g;
}
}  // namespace

Solver::Impl::Impl(const Scene& s, const std::vector<Exec>& execs, const SolverOptions& o,
                   const partition::World& w)
    : scene(s),
      options(o),
      world(w),
      nparts(part_total(execs, w)),
      global(local_indices(execs, w)),
      emitter(scene),
      balancer(scene, nparts, global, w, o.balance_tolerance) {
  validate(scene);
  // Mesh colliders' distance fields, built once here for every part (mpm/mesh/sdf.hpp).
  for (const std::string& w : build_mesh_colliders(scene, options.stop))
    if (options.log) options.log("warning: " + w);
  scene_colliders = scene.colliders;
  if (execs.empty()) throw Error("MPM: no device given");
  if (nparts > kMaxParts)
    throw Error(fmt::format("MPM on several parts: {} parts, at most {}", nparts, kMaxParts));
  if (nparts > 1 && scene.g2p2g)
    throw Error(fmt::format(
        "MPM scene '{}': g2p2g runs on one part only (the fused kernel has no place for the "
        "shared-block reduction); set g2p2g to false",
        scene.name));
  if (nparts > 1 && scene.contact.enabled())
    throw Error(fmt::format(
        "MPM scene '{}': the key 'contact' (a velocity field per body) runs on one part only (the "
        "part exchange does not carry the first body's grid); run it as one part",
        scene.name));
  poll_stop(options.stop, fmt::format("the set-up of MPM scene '{}'", scene.name));
  make_parts(execs);
  exchange = make_exchange(parts, world);
  if (!options.cuda_graph || !scene.cuda_graphs || !exchange->records_graphs())
    exchange->use_plain_steps();
  poll_stop(options.stop, fmt::format("the set-up of MPM scene '{}'", scene.name));
  emit(0.0);
  counts = balancer.counts(parts);
}

void Solver::Impl::make_parts(const std::vector<Exec>& execs) {
  const bool cuda = execs.front().is_cuda();
  for (const Exec& e : execs)
    if (e.is_cuda() != cuda) throw Error("MPM on several parts: CPU and CUDA parts mixed");
  if (world.distributed() && execs.size() != 1)
    throw Error(fmt::format(
        "MPM on several MPI ranks: each rank drives one part ({} devices given on rank {})",
        execs.size(), world.rank()));
  // One stream per device: parts on one GPU run their phases in turn on it. Capture (the frame
  // graphs) needs a stream other than the legacy one.
  std::vector<int> devices;
  for (const Exec& e : execs)
    if (cuda && std::find(devices.begin(), devices.end(), e.device) == devices.end()) {
      devices.push_back(e.device);
      streams.emplace_back(e);
    }
  for (std::size_t k = 0; k < execs.size(); ++k) {
    Exec e = execs[k];
    const std::string dev = cuda ? fmt::format("cuda device {}", e.device) : std::string("cpu");
    std::string where = dev;
    if (world.distributed())
      where = fmt::format("MPI rank {}, {}", world.rank(), dev);
    else if (!cuda && execs.size() > 1)
      where = fmt::format("cpu partition {}", k);
    else if (cuda && devices.size() < execs.size())
      where = fmt::format("{}, part {}", dev, k);
    if (cuda)
      e = streams[std::size_t(std::find(devices.begin(), devices.end(), e.device) -
                              devices.begin())]
              .exec();
    activate(e);
    try {
      parts.push_back(std::make_unique<Part>(scene, e, std::move(where)));
    } catch (const Error& err) {
      throw Error(nparts == 1 ? std::string(err.what())
                              : fmt::format("{} [part {} of {}]", err.what(), global[k], nparts));
    }
  }
}

void Solver::Impl::emit(double t) {
  std::vector<Emission> due = emitter.take_due_emissions(t);
  std::size_t n = 0;
  for (const Emission& piece : due)
    n += piece.copies_of < 0 ? piece.given.count() : emitter.sample(piece.copies_of).count();
  if (n == 0) return;
  if (nparts > 1 && balancer.axis() < 0) {
    // The first particles of a split run choose its axis and cuts: on the host.
    distribute(emitter.expand(std::move(due)), t, "emitted");
    return;
  }
  check_capacity(n, t, "emitted");
  total_particles += (long long)n;
  // A repeating source's copies are made on the devices: with several parts, each part copies
  // the rows of the sample that lie in its piece; host particles go to the parts of their pieces.
  std::vector<std::vector<Emission>> mine(parts.size());
  for (Emission& piece : due) {
    if (nparts == 1) {
      mine[0].push_back(std::move(piece));
      continue;
    }
    if (piece.copies_of >= 0) {
      const std::vector<std::vector<int>>& rows = rows_of_sample(piece.copies_of);
      for (std::size_t k = 0; k < parts.size(); ++k)
        if (!rows[k].empty())
          mine[k].push_back(Emission{{}, piece.copies_of, piece.first_id, rows[k]});
      continue;
    }
    std::vector<NewParticles> split = by_part(piece.given);
    for (std::size_t k = 0; k < parts.size(); ++k)
      if (split[k].count() > 0) mine[k].push_back(Emission{std::move(split[k]), -1, 0, {}});
  }
  each([&](Part& p, int k) { p.add_emissions(mine[std::size_t(k)], emitter); });
}

const std::vector<std::vector<int>>& Solver::Impl::rows_of_sample(int s) {
  if (sample_rows.size() < scene.sources.size()) sample_rows.resize(scene.sources.size());
  SampleRows& c = sample_rows[std::size_t(s)];
  if (c.axis == balancer.axis() && c.cuts == balancer.cuts() && !c.rows.empty()) return c.rows;
  const SourceSample& from = emitter.sample(s);
  NewParticles probe;
  probe.x = from.x;
  probe.material.assign(from.count(), 0);
  const std::vector<int> at = balancer.pieces(probe);
  c.rows.assign(parts.size(), {});
  for (std::size_t i = 0; i < at.size(); ++i)
    for (std::size_t k = 0; k < parts.size(); ++k)
      if (at[i] == global[k]) c.rows[k].push_back(int(i));
  c.axis = balancer.axis();
  c.cuts = balancer.cuts();
  return c.rows;
}

void Solver::Impl::check_capacity(std::size_t n, double t, const char* how) const {
  if (scene.max_particles > 0 && total_particles + (long long)n > scene.max_particles)
    throw Error(
        fmt::format("MPM scene '{}': particle capacity overflow at t = {} s: {} particles "
                    "needed ({} present + {} {}), max_particles is {}",
                    scene.name, t, total_particles + (long long)n, total_particles, n, how,
                    scene.max_particles));
}

void Solver::Impl::distribute(NewParticles all, double t, const char* how) {
  const std::size_t n = all.count();
  if (n == 0) return;
  check_capacity(n, t, how);
  total_particles += (long long)n;
  std::vector<NewParticles> piece_of;
  if (nparts == 1)
    piece_of.push_back(std::move(all));
  else
    piece_of = by_part(all);
  each([&](Part& p, int k) {
    try {
      p.add(piece_of[std::size_t(k)]);
    } catch (const Error& e) {
      throw Error(name_part(e, k));
    }
  });
}

std::vector<NewParticles> Solver::Impl::by_part(const NewParticles& all) {
  std::vector<NewParticles> out(parts.size());
  const std::vector<int> piece = balancer.pieces(all);
  for (std::size_t i = 0; i < all.count(); ++i) {
    const auto at = std::find(global.begin(), global.end(), piece[i]);
    if (at != global.end()) out[std::size_t(at - global.begin())].push_back(all, i);
  }
  return out;
}

void Solver::Impl::agree_rebuild() {
  // A part that was handed particles or whose grid moved asked for a rebuild: all rebuild.
  if (nparts == 1) return;
  double any = 0;
  for (auto& p : parts)
    if (p->read_control().since_rebuild >= scene.rebuild_period) any = 1;
  if (world.distributed()) world.allreduce_max_sum(&any, 1, 1);
  if (any > 0)
    for (auto& p : parts) p->request_rebuild();
}

void Solver::Impl::prepare(bool emit_new, bool for_frame) {
  using Clock = std::chrono::steady_clock;
  const auto ms_since = [](Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  auto t0 = Clock::now();
  if (emit_new) {
    const double t = parts.front()->read_control().time;
    emit(t);
    log(balancer.balance(parts, t));  // between frames only, never at a pause inside one
    counts = balancer.counts(parts);
    host_time.emit_ms += ms_since(t0);
    t0 = Clock::now();
  }
  each([&](Part& p, int k) {
    try {
      p.prepare();  // grows the grid: may run out of device memory
    } catch (const Error& e) {
      throw Error(name_part(e, k));
    }
  });
  exchange->prepare();
  agree_rebuild();
  host_time.prepare_ms += ms_since(t0);
  if (for_frame) {
    t0 = Clock::now();
    if (prepare_graphs()) {
      host_time.record_ms += ms_since(t0);
      ++host_time.recordings;
    }
  }
}

bool Solver::Impl::prepare_graphs() {
  if (!options.cuda_graph || !scene.cuda_graphs || graph_failed || !exchange->records_graphs())
    return false;
  // The graphs bake in every part's pointers (peer grids included) and particle counts.
  long long key = exchange->storage_key();
  for (auto& p : parts) key = key * 1000003LL + p->storage_key();
  if (key == graph_key && !graphs.empty()) return false;
  try {
    if (exchange->one_stream())
      record_stream_graph();
    else
      record_part_graphs();
    graph_key = key;
  } catch (const Error& e) {
    graph_failed = true;
    graphs.clear();
    exchange->use_plain_steps();
    log(fmt::format("MPM: CUDA graphs unavailable, using plain launches ({})", e.what()));
  }
  return true;
}

void Solver::Impl::record_part_graphs() {
  Exchange* x = exchange.get();
  const bool again = graphs.size() == parts.size();
  if (!again) graphs.clear();
  each([&](Part& p, int k) {
    Part* pp = &p;
    const LoopGraph::Pre decide = [x, k](const StepHandles& h) {
      x->graph_decide(k, h);
    };
    const LoopGraph::Phase rebuild = [x, k] {
      x->graph_rebuild(k);
    };
    const LoopGraph::Pre step = [x, pp, k](const StepHandles& h) {
      pp->p2g();
      x->graph_grid_update(k, h);
      pp->g2p();
    };
    if (!again)
      graphs.push_back(
          std::make_unique<LoopGraph>(p.exec(), decide, rebuild, step, kGraphStepsPerIteration));
    else if (graphs[std::size_t(k)]->record_again(decide, rebuild, step, kGraphStepsPerIteration))
      ++host_time.graph_updates;
  });
}

void Solver::Impl::record_stream_graph() {
  // Parts that share one stream (several parts on one GPU): one graph whose phases are those of
  // the plain step, part after part (stream order is their synchronisation, as in step_plain),
  // the rebuild in the graph's IF node. Every part's dt kernel sets the loop's conditionals from
  // the values the parts agreed just before, so all set the same.
  const LoopGraph::Pre decide = [this](const StepHandles& h) {
    exchange->agree(true);
    each([&](Part& p, int) { p.decide(h, true); });
  };
  const LoopGraph::Phase rebuild = [this] {
    each([](Part& p, int) { p.rebuild(); });
  };
  const LoopGraph::Pre step = [this](const StepHandles&) {
    each([](Part& p, int) { p.p2g(); });
    exchange->after_p2g();
    each([&](Part&, int k) { exchange->grid_update(k); });
    each([](Part& p, int) { p.g2p(); });
  };
  activate(parts.front()->exec());
  if (graphs.size() != 1) {
    graphs.clear();
    graphs.push_back(std::make_unique<LoopGraph>(parts.front()->exec(), decide, rebuild, step,
                                                 kGraphStepsPerIteration));
  } else if (graphs.front()->record_again(decide, rebuild, step, kGraphStepsPerIteration)) {
    ++host_time.graph_updates;
  }
}

}  // namespace silt::mpm
