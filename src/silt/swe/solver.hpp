// The shallow-water + pollutant solver on one device (CPU or CUDA). The state lives where the Exec
// runs; the time step is chosen and applied on the device, so advance_to() only waits for the
// device once per batch of steps.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/core/exec.hpp"
#include "silt/swe/fields.hpp"
#include "silt/swe/scene.hpp"

namespace silt::swe {

struct Totals {
  double volume = 0;          // m^3 of water in the domain
  double pollutant_mass = 0;  // kg
  double inflow_volume = 0;   // m^3 that entered through boundaries, sources and rain so far
};

/// How a run is cut into subdomains (docs/multi-gpu-swe.md).
enum class SplitShape {
  automatic,  // strips of whole rows unless 2D blocks exchange fewer halo cells
  strips,
  blocks
};

/// A run split over several devices or CPU partitions of this process and, when the process was
/// started by mpirun with several ranks, over the ranks (each rank passing its own execs).
struct Split {
  std::vector<Exec> execs;  // one subdomain per exec here (CPU partitions: Exec::host() repeated)
  int halo = 1;             // k >= 1: halo layers, exchanged every k steps (ghost cell expansion)
  SplitShape shape = SplitShape::automatic;
  // CUDA subdomains step with the tile kernel (fused_step.hpp) over their grown box, interior and
  // edge strips: 43-45 G cell-updates/s on two H200s against 17 G with the plain phases
  // (bench/results/swe-2026-11-29-h200x2.md). false: the plain parallel_for phases, which match a
  // one-device run on the plain phases within 1e-6 on CUDA (tests, the benchmark's baseline).
  // Ignored on the CPU, where a split run is bit for bit equal to one device either way.
  bool fused = true;
  // true: this process's execs only, even under mpirun (partition::World::self()); false: the
  // subdomains of every rank (partition::World::get()).
  bool this_process_only = false;
  // Several CUDA subdomains in one process (no MPI): record each period of 2 k steps (k = halo)
  // once and replay it as one CUDA graph over all their streams, instead of ~10 launches per
  // subdomain and step from the host. Off by default: on two H200s it measured no faster than
  // plain launches (4M cells: 64.0% vs 65.3% efficiency; the step's critical path is on the
  // devices, bench/results/swe-2026-11-29-h200x2.md).
  bool graphs = false;
  // Halos between GPUs of one process copied by a kernel on the receiving GPU that reads the
  // neighbour's cells over NVLink (in-kernel peer reads) instead of copy-engine 2D copies.
  bool halo_kernels = false;
};

/// A device fault of a split run (NaN, negative depth, collapsing time step). Under MPI every rank
/// throws it alike, with the same message, so a caller can end all ranks normally; any other
/// error may be one rank's alone (end the run with partition::World::abort()).
class SplitFault : public Error {
 public:
  using Error::Error;
};

/// The communication of a split run, each part timed on its own with the devices waited for.
struct CommTimes {
  int parts = 1;              // subdomains over all ranks
  double exchange_s = 0;      // one halo exchange of every subdomain, s
  double reduce_s = 0;        // one global reduction of the step's wave speed (the dt), s
  double exchange_bytes = 0;  // received by this process per exchange
};

class Solver {
 public:
  Solver(const Scene& scene, const Exec& exec);
  /// A split run (src/silt/partition/). On the CPU its results equal the single-device run bit
  /// for bit. Under MPI every rank constructs it, and every member below is then collective (all
  /// ranks call it, in the same order); fields() returns the whole grid on rank 0 and only nx, ny
  /// on the other ranks; probe() and totals() return the same values on every rank. A fault on any
  /// rank is reported on every rank, naming the rank, the device, the global cell and the step.
  Solver(const Scene& scene, const Split& split);
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;

  /// Steps until the simulated time reaches t_end exactly (the last dt is clipped on the device).
  /// Throws silt::Error naming the cell (i, j), its position, the step and the time when a NaN,
  /// a negative depth or a collapsing time step appears; the state of the last good check is kept.
  void advance_to(double t_end);
  /// Exactly one step (tests). It is queued without waiting for the device (a benchmark can time
  /// a run of them, then read time()); a fault it raises is reported by the next advance_to().
  void step();
  /// count steps queued together, as step() count times (a split run on several GPUs of one
  /// process replays them as CUDA graphs: see Split::graphs).
  void step(long long count);

  double time() const;
  long long steps() const;
  double last_dt() const;
  const Scene& scene() const;
  const Exec& exec() const;

  Fields fields() const;
  std::vector<Probe> probe(const std::vector<Index>& cells) const;
  Totals totals() const;

  /// Times `repetitions` halo exchanges and global reductions on their own (a split run; zeros on
  /// one device). Collective under MPI. The state is left as it was.
  CommTimes measure_communication(int repetitions);
  /// How the grid is split ("one subdomain" on one device).
  std::string layout() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace silt::swe
