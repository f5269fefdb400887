// Per-step control state that lives on the device (paper 000 §3, principle 4: no host-device
// synchronisation inside a step). The time step, the frame clock, the rebuild decision and the
// counters are device scalars: G2P folds the largest particle speed into vmax (speed_max.hpp; a
// separate reduction only where particles were added), one tiny kernel turns it and the largest
// wave speed into dt (cfl_k.hpp) and decides whether this step rebuilds the particle-block
// mapping, and the host reads the whole struct once per frame.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/exec.hpp"
#include "silt/core/fault.hpp"
#include "silt/core/loop_graph.hpp"

namespace silt::mpm {

/// Device fault codes (FaultFlags slot 0); the index slot holds the particle id or a count.
enum FaultCode : int {
  kFaultNone = 0,
  kFaultNaN = 1,            // a particle's position or velocity is not finite (index: its id)
  kFaultHashFull = 2,       // the block hash table has no free slot
  kFaultBlockOverflow = 3,  // more active blocks than the grid's capacity
  kFaultZoneEscape = 4,     // P2G met a node outside its particle's 3x3x3 zone (index: id)
  kFaultStepLimit = 5,      // a frame needed more steps than StepParams::max_steps
  kFaultBadDt = 6,          // dt was not a positive finite number
  kFaultBarrier = 7,        // a cross-GPU barrier timed out (mpm/exchange/kernels.hpp)
  kFaultFixedRange = 8,     // a fixed-point P2G share or node sum out of range (fixed_sums.hpp;
                            // index: node, block * 64 + node in block; aux: channel)
};

struct StepControl {
  double time = 0;         // s, simulated time at the end of the current step
  double frame_end = 0;    // s, end of the frame being advanced (+inf for single steps)
  float dt = 0;            // s, the current step's time step
  float dt_prev = 0;       // s, the previous step's time step (F is advanced with it in P2G)
  float vmax = 0;          // m/s, largest particle speed (G2P's max, reset by a running dt kernel)
  float cmax = 0;          // m/s, fastest wave through compressed fluid in the last P2G (reset
                           // likewise); the dt kernel uses it where above StepParams::wave_speed
  float dt_limit_min = 0;  // s, smallest stable (CFL) dt met in the frame
  float dt_min = 0, dt_max = 0;  // s, range of the dt used in the frame
  int active = 0;                // 1 while the current step runs (0: the frame is complete)
  int more = 0;                  // 1 when another step is needed after this one
  int rebuild = 0;               // 1 when the current step rebuilds the mapping
  int zone_escape = 0;           // set by G2P: a particle left its free zone, rebuild next step
  int since_rebuild = 0;         // steps since the last rebuild
  int steps = 0;                 // steps in the frame
  int rebuilds = 0;              // rebuilds in the frame
  int forced_rebuilds = 0;       // rebuilds in the frame that the free-zone guard asked for
  int unstable_steps = 0;        // steps in the frame whose fixed dt exceeded the CFL limit
  int num_blocks = 0;            // active blocks after the last rebuild
  int paused = 0;                // 1 when the frame stopped early for the host to grow the grid
  int sort_cursor = 0;           // rebuild scratch: next free slot of the counting sort
  int sort_now = 0;              // 1 while the current rebuild also sorts (rebuild kernels)
  int sorts = 0;                 // rebuilds in the frame that sorted the particles
  int rebuild_serial = 0;        // rebuilds ever run (never reset): picks the rebuilds that sort
  int serial = 0;                // steps ever run (never reset): tells the host a step ran
  int accum_parity = 0;  // which P2G accumulator the current step uses (GridView::accum_alt)
  /// What the parts of a split run agreed on (mpm/exchange/exchange.hpp); zero on one part.
  struct Agreed {
    // Set before each plain step (the agreement) or, with one synchronisation per step
    // (StepParams::lagged), at the barrier after P2G for the next step's decisions:
    int pause = 0;  // another part needs to grow its grid: pause with it
    int halt = 0;   // another part has a fault: end the frame without stepping
    // What the lagged step decides from (the plain agreement keeps vmax and cmax current too):
    float vmax = 0;  // m/s, largest particle speed of every part's G2P before that barrier
    float cmax = 0;  // m/s, fastest compressed-fluid wave of every part's P2G before it
    int escape = 0;  // some part's free-zone guard fired: rebuild at the next step
  } agreed;
};

/// Time-step settings, copied into the dt kernel by value.
struct StepParams {
  float dx = 0;              // m
  float cfl = 0.5f;          // particle-velocity CFL number, -
  float elastic_cfl = 0.5f;  // elastic-wave CFL number, -
  float wave_speed = 0;      // m/s, fastest elastic wave among the materials present
  float max_dt = 1e-3f;      // s
  float fixed_dt = 0;        // s; > 0 disables the adaptive dt
  int rebuild_period = 8;    // steps between rebuilds (1: every step)
  int max_steps = 1 << 20;   // per frame; more means a collapsed dt
  /// The frame pauses before a step when the last rebuild left more active blocks than this (3/4
  /// of the grid's capacity): the host grows the grid between two steps and resumes, so a scene
  /// that spreads quickly does not overflow mid-frame.
  int grow_blocks = 0x7fffffff;
  /// Several GPUs with one synchronisation per step (mpm/exchange/kernels.hpp): the step decides
  /// from the values agreed at the last barrier (StepControl::agreed) and never from this part's
  /// own flags alone, so every part takes the same decision without meeting first; an adaptive dt
  /// is left to the grid update, after the barrier.
  int lagged = 0;
};

/// The frame graph's handles the dt kernel sets (loop: the frame's WHILE node; branch: the IF
/// node around the rebuild); zero when the step runs from plain launches.
using StepHandles = LoopHandles;

/// Starts a frame or a single step on the device: frame_end = time + span (span <= 0: +inf, no
/// clipping), clears the frame counters. Stream-ordered, no host wait.
void begin_frame(const Exec& exec, StepControl* ctl, double span);
/// Continues a paused frame (after the host grew the grid): keeps its end and counters.
void resume_frame(const Exec& exec, StepControl* ctl);

/// Reduces the largest particle speed (m/s) into ctl->vmax; v holds 3 floats per particle. Only
/// needed where particles were added since the last G2P (which folds the speeds in itself).
void reduce_max_speed(const Exec& exec, const float* v, Index n, StepControl* ctl);

/// The dt kernel: dt from the largest speed and the wave speed (or fixed), clipped to the frame
/// end; rebuild decision (period reached or free-zone guard raised); clock and counters; graph
/// handles. When it starts a step it resets vmax for that step's G2P.
void launch_dt_kernel(const Exec& exec, StepControl* ctl, const StepParams& params,
                      const StepHandles& handles, FaultView fault);

}  // namespace silt::mpm
