#include "silt/mpm/rebuild.hpp"

#include "silt/core/atomic.hpp"
#include "silt/core/parallel_for.hpp"
#include "silt/mpm/kernels/bspline_k.hpp"

namespace silt::mpm {

namespace {

/// A slot whose block holds particles but got no number: the grid is full (the overflow is raised
/// after the neighbours are inserted, so that a full hash table is reported first).
constexpr int kHomeOverflow = -2;

/// Stencil base of the particle at x (same arithmetic as P2G and G2P, so the binning and the
/// free-zone test agree with the transfers bit for bit).
SILT_HD SILT_FORCEINLINE void particle_home(const float* x, const float origin[3], float inv_dx,
                                            int hb[3]) {
  const BSplineQ<float> s =
      bspline_quadratic(Vec3f{x[0], x[1], x[2]}, Vec3f{origin[0], origin[1], origin[2]}, inv_dx);
  home_block(s.base, hb);
}
/// particle_home, and the particle's nearest node (stencil base + 1) in near.
SILT_HD SILT_FORCEINLINE void particle_home(const float* x, const float origin[3], float inv_dx,
                                            int hb[3], int near[3]) {
  const BSplineQ<float> s =
      bspline_quadratic(Vec3f{x[0], x[1], x[2]}, Vec3f{origin[0], origin[1], origin[2]}, inv_dx);
  home_block(s.base, hb);
  for (int a = 0; a < 3; ++a) near[a] = s.base[a] + 1;
}

/// Copies particle i of `from` to slot j of `to`.
SILT_HD SILT_FORCEINLINE void copy_particle(const ParticleView& from, Index i,
                                            const ParticleView& to, Index j) {
  for (int k = 0; k < 3; ++k) {
    to.x[3 * j + k] = from.x[3 * i + k];
    to.v[3 * j + k] = from.v[3 * i + k];
  }
  for (int k = 0; k < 9; ++k) {
    to.c[9 * j + k] = from.c[9 * i + k];
    to.f[9 * j + k] = from.f[9 * i + k];
  }
  to.plastic[j] = from.plastic[i];
  to.material[j] = from.material[i];
  to.id[j] = from.id[i];
  to.block[j] = from.block[i];
}

/// Blocks a loop over the numbered blocks covers: the capacity on CUDA (the blocks past
/// num_blocks return at once; the count is on the device), on the host the numbered blocks
/// themselves (StepControl is host memory, final once the numbering loops have run).
Index numbered_blocks(const Exec& exec, const GridView& g, const StepControl* ctl) {
  if (exec.is_cuda()) return g.capacity;
  return ctl->num_blocks < 0 ? 0 : (ctl->num_blocks < g.capacity ? ctl->num_blocks : g.capacity);
}

}  // namespace

int rebuild_launch_count() {
  // clear, mark, neighbours, number, table, zero_grid, bin, offsets, scatter, copy_back, check.
  return 11;
}

namespace {

/// What the particle kernels of a rebuild read, copied into their lambdas by value.
struct ParticleBinning {
  BlockHashView hash;
  float origin[3];  // m, the grid's origin
  float inv_dx;     // 1/m
  Index n;          // particles
  const int* gate;  // &StepControl::rebuild
};

ParticleBinning particle_binning(const RebuildArgs& args, GridView g, StepControl* ctl) {
  return ParticleBinning{g.hash,
                         {args.geo.origin[0], args.geo.origin[1], args.geo.origin[2]},
                         args.geo.inv_dx,
                         args.particles,
                         &ctl->rebuild};
}

/// 1-2: the blocks holding particles, numbered first.
void clear_and_mark(const Exec& exec, ParticleBinning pb, ParticleView p, GridView g,
                    StepControl* ctl, FaultView fault) {
  const Index slots = static_cast<Index>(pb.hash.mask) + 1;
  const Index cap = g.capacity;
  // 1. Empty table; counters.
  gated_for(
      exec, "mpm.rebuild.clear", slots, pb.gate, SILT_LAMBDA(Index i) {
        pb.hash.keys[i] = kEmptyKey;
        pb.hash.values[i] = -1;
        if (i == 0) {
          ctl->num_blocks = 0;
          ctl->sort_cursor = 0;
          ctl->sort_now = ctl->rebuild_serial % kSortEvery == 0 ? 1 : 0;
          ctl->sorts += ctl->sort_now;
          ++ctl->rebuild_serial;
        }
      });
  // 2. Each particle's home block, numbered by the particle that inserts it, so that blocks are
  //    numbered in about the order of the particles (kept in block order by the sort): the sorted
  //    order stays spatially coherent from one rebuild to the next, and the warps running at one
  //    time touch neighbouring blocks, which share cache lines in L2.
  gated_for(
      exec, "mpm.rebuild.mark", pb.n, pb.gate, SILT_LAMBDA(Index i) {
        int hb[3];
        particle_home(p.x + 3 * i, pb.origin, pb.inv_dx, hb);
        const BlockKey key = pack_block(hb[0], hb[1], hb[2]);
        bool fresh = false;
        const int slot = pb.hash.insert(key, &fresh);
        if (slot < 0) {
          fault.raise(kFaultHashFull, slots, 0);
          return;
        }
        if (!fresh) return;
        const int b = atomic_fetch_add(&ctl->num_blocks, 1);
        if (b >= cap) {
          pb.hash.values[slot] = kHomeOverflow;
          return;
        }
        pb.hash.values[slot] = b;
        g.block_key[b] = key;
      });
}

/// 3-4: the neighbour-only blocks (the free zone), numbered after the blocks holding particles.
void neighbours_and_number(const Exec& exec, int dims, GridView g, StepControl* ctl,
                           FaultView fault) {
  const int* gate = &ctl->rebuild;
  const Index slots = static_cast<Index>(g.hash.mask) + 1;
  const Index cap = g.capacity;
  const BlockHashView hash = g.hash;
  // 3. The 26 neighbours of every occupied block: the free zone (8, in the plane, in 2D).
  const int reach_z = dims == 3 ? 1 : 0;
  gated_for(
      exec, "mpm.rebuild.neighbours", slots, gate, SILT_LAMBDA(Index i) {
        if (hash.values[i] == -1) return;  // empty, or no particles: not numbered yet
        int bx, by, bz;
        unpack_block(hash.keys[i], bx, by, bz);
        for (int dz = -reach_z; dz <= reach_z; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              if (dx == 0 && dy == 0 && dz == 0) continue;
              if (hash.insert(pack_block(bx + dx, by + dy, bz + dz)) < 0) {
                fault.raise(kFaultHashFull, slots, 0);
                return;
              }
            }
      });
  // 4. Dense numbers for the neighbour-only blocks, after the blocks holding particles.
  gated_for(
      exec, "mpm.rebuild.number", slots, gate, SILT_LAMBDA(Index i) {
        const BlockKey k = hash.keys[i];
        if (k == kEmptyKey || hash.values[i] >= 0) return;
        if (hash.values[i] == kHomeOverflow) {  // counted in num_blocks already
          fault.raise(kFaultBlockOverflow, cap, 0);
          hash.values[i] = -1;
          return;
        }
        const int b = atomic_fetch_add(&ctl->num_blocks, 1);
        if (b >= cap) {
          fault.raise(kFaultBlockOverflow, cap, 0);
          hash.values[i] = -1;
          return;
        }
        hash.values[i] = b;
        g.block_key[b] = k;
      });
}

/// 5-6: every block's neighbours (the free zone) and its accumulators cleared.
void link_blocks(const Exec& exec, GridView g, StepControl* ctl) {
  const int* gate = &ctl->rebuild;
  const Index blocks = numbered_blocks(exec, g, ctl);
  const BlockHashView hash = g.hash;
  // 5. Neighbour table; per-block counters.
  gated_for(
      exec, "mpm.rebuild.table", blocks, gate, SILT_LAMBDA(Index b) {
        if (b >= ctl->num_blocks) return;
        int bx, by, bz;
        unpack_block(g.block_key[b], bx, by, bz);
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int slot = hash.find(pack_block(bx + dx, by + dy, bz + dz));
              g.neighbours[27 * b + neighbour_slot(dx, dy, dz)] = slot < 0 ? -1 : hash.values[slot];
            }
        g.block_count[b] = 0;
        for (int c = 0; c < kBlockNodes; ++c) g.cell_count[kBlockNodes * b + c] = 0;
      });
  // 6. Grid accumulators start from zero (the grid update re-zeroes them after every step).
  const Index nodes = blocks * kBlockNodes;
  gated_for(
      exec, "mpm.rebuild.zero_grid", nodes, gate, SILT_LAMBDA(Index node) {
        if (node / kBlockNodes >= ctl->num_blocks) return;
        // The step's accumulator (the other one, where there are two, may still be read by
        // other GPUs: mpm/exchange/kernels.hpp clears it after their barrier).
        clear_node_sums(g, ctl->accum_parity, node);
      });
}

/// 7: each particle's block and its rank within the cell of its nearest node.
void bin_particles(const Exec& exec, ParticleBinning pb, ParticleView p, GridView g) {
  // 7. Bin: block of each particle and its rank within the block (counting sort, pass 1).
  gated_for(
      exec, "mpm.rebuild.bin", pb.n, pb.gate, SILT_LAMBDA(Index i) {
        int hb[3], near[3];
        particle_home(p.x + 3 * i, pb.origin, pb.inv_dx, hb, near);
        const int slot = pb.hash.find(pack_block(hb[0], hb[1], hb[2]));
        const int b = slot < 0 ? -1 : pb.hash.values[slot];
        p.block[i] = b;
        if (b < 0) return;  // only after an overflow, which is already raised
        atomic_fetch_add(&g.block_count[b], 1);
        // The cell of the nearest node within the home block, and the rank within that cell.
        const int c = node_in_block(near[0] - kBlockEdge * hb[0], near[1] - kBlockEdge * hb[1],
                                    near[2] - kBlockEdge * hb[2]);
        p.rank[i] = kBlockNodes * atomic_fetch_add(&g.cell_count[kBlockNodes * b + c], 1) + c;
      });
}

/// 8-9: on the rebuilds that sort, the particles into block order, by cell within a block.
void sort_particles(const Exec& exec, const RebuildArgs& args, ParticleView p, ParticleView s,
                    GridView g, StepControl* ctl) {
  const Index n = args.particles;
  // 8. Each block's range in the sorted order: one fetch-add per occupied block reserves its
  //    particles' slots (equivalent to an exclusive scan of the counts, in atomic order).
  gated_for(
      exec, "mpm.rebuild.offsets", numbered_blocks(exec, g, ctl), &ctl->sort_now,
      SILT_LAMBDA(Index b) {
        if (b >= ctl->num_blocks) return;
        const int count = g.block_count[b];
        g.block_offset[b] = count > 0 ? atomic_fetch_add(&ctl->sort_cursor, count) : 0;
        // Cell order: each cell's first slot within the block.
        int* cc = g.cell_count + kBlockNodes * b;
        int sum = 0;
        for (int c = 0; c < kBlockNodes; ++c) {
          const int n_c = cc[c];
          cc[c] = sum;
          sum += n_c;
        }
      });
  // 9. Scatter into block order, then copy back so every kernel keeps its pointers.
  gated_for(
      exec, "mpm.rebuild.scatter", n, &ctl->sort_now, SILT_LAMBDA(Index i) {
        const int b = p.block[i];
        if (b < 0) {
          copy_particle(p, i, s, i);
          return;
        }
        const int c = p.rank[i] % kBlockNodes, r = p.rank[i] / kBlockNodes;
        copy_particle(p, i, s, g.block_offset[b] + g.cell_count[kBlockNodes * b + c] + r);
      });
  gated_for(
      exec, "mpm.rebuild.copy_back", n, &ctl->sort_now,
      SILT_LAMBDA(Index i) { copy_particle(s, i, p, i); });
}

}  // namespace

void enqueue_rebuild(const Exec& exec, const RebuildArgs& args, ParticleView p, ParticleView s,
                     GridView g, StepControl* ctl, FaultView fault) {
  const int* gate = &ctl->rebuild;
  if (!exec.is_cuda() && *gate == 0) return;  // host backend: the flag is host memory
  const ParticleBinning pb = particle_binning(args, g, ctl);
  clear_and_mark(exec, pb, p, g, ctl, fault);
  neighbours_and_number(exec, args.dims, g, ctl, fault);
  link_blocks(exec, g, ctl);
  bin_particles(exec, pb, p, g);
  sort_particles(exec, args, p, s, g, ctl);
  // 10. After an overflow some particles or neighbours have no block: the rest of the step must
  //     not run (the host reports the overflow at the end of the frame).
  const auto check = SILT_LAMBDA(Index) {
    ctl->sort_now = 0;  // the sort kernels of a plain launch sequence skip the next steps
    if (fault.raised()) ctl->active = 0, ctl->rebuild = 0, ctl->more = 0;
  };
  if (exec.is_cuda())
    gated_for(exec, "mpm.rebuild.check", 1, gate, check);
  else
    check(0);  // the host reached this only with the gate set; no OpenMP team for one item
}

}  // namespace silt::mpm
