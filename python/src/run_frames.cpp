// Simulation.run(): the run layer's frame loop (silt/run/frame_loop.hpp), the one `silt run`
// drives, with the GIL released and Ctrl-C as its stop signal.
#include <csignal>

#include "bindings.hpp"
#include "silt/partition/world.hpp"
#include "silt/run/checkpoint_policy.hpp"
#include "silt/run/frame_loop.hpp"
#include "silt/run/output_dir.hpp"
#include "silt/run/progress.hpp"

namespace silt::python {

void check_run_options(const RunOut& out, double start, double end) {
  run::CheckpointPolicy(out.checkpoint_every, "checkpoint_every").check_run(start, end);
  if (out.dir.empty() && !out.checkpoint_every.empty())
    throw nb::value_error("run: checkpoint_every needs an output folder (out=...)");
  if (!out.dir.empty())
    run::claim_output_dir(out.dir, out.restart     ? run::OutputMode::restart
                                   : out.overwrite ? run::OutputMode::overwrite
                                                   : run::OutputMode::fresh);
}

void run_frames(run::Job& job, const RunOut& out, double end) {
  Interrupt interrupted;
  run::LoopOptions o;
  o.checkpoint_every = out.checkpoint_every;
  o.checkpoint_option = "checkpoint_every";
  if (!out.dir.empty()) o.checkpoint_path = out.dir + "/checkpoint.silt";
  o.stop = [&interrupted] {
    return interrupted() ? SIGINT : 0;
  };
  o.writes = !out.dir.empty();
  run::Hooks nobody_watches;
  run::Progress quiet(end, true);
  {
    nb::gil_scoped_release unlocked;
    run::run_frames(job, partition::World::self(), o, nobody_watches, quiet);
  }
  interrupted.raise_if_interrupted();
}

}  // namespace silt::python
