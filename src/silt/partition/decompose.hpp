// Domain decomposition of a 2D grid into subdomains for several devices or ranks (paper 001:
// split the domain, each GPU updates its part, halos carry the neighbours' cells). The cuts form a
// px x py tensor product: strips stacked along y (px = 1, each strip whole rows, so its halo rows
// are contiguous in memory) unless 2D blocks exchange fewer halo cells. Cuts balance the work of
// active cells (inactive DEM cells cost little: no fluxes). Every subdomain owns at least `halo`
// cells across each cut, so a halo of width k comes from the direct neighbour alone.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "silt/core/config.hpp"
#include "silt/core/parallel_for.hpp"

namespace silt::partition {

enum class Shape {
  automatic,  // strips unless blocks exchange fewer halo cells per layer
  strips,     // px = 1: whole rows
  blocks      // the 2D px x py (px > 1) with the fewest halo cells
};

/// Direction index of a neighbour offset (di, dj), each in {-1, 0, 1}: (di + 1) + 3 (dj + 1).
/// 4 is the subdomain itself.
constexpr int direction(int di, int dj) {
  return (di + 1) + 3 * (dj + 1);
}
constexpr int kDirections = 9;
constexpr int kSelf = 4;

struct Subdomain {
  int id = 0;  // index in Decomposition::parts: by * px + bx
  int bx = 0, by = 0;
  Box2 cells{};     // owned cells, global indices [i0, i1) x [j0, j1)
  double work = 0;  // weighted cell count (see work_weight)
  /// Neighbour id per direction(di, dj), -1 beyond the global edge; [kSelf] = id.
  std::array<int, kDirections> neighbour{};

  Index nx() const { return cells.i1 - cells.i0; }
  Index ny() const { return cells.j1 - cells.j0; }
  /// True when the side at offset (di, dj) (one of them 0) is shared with a neighbour.
  bool shared(int di, int dj) const { return neighbour[size_t(direction(di, dj))] >= 0; }
  bool contains(Index i, Index j) const {
    return i >= cells.i0 && i < cells.i1 && j >= cells.j0 && j < cells.j1;
  }
};

struct Decomposition {
  Index nx = 0, ny = 0;  // global grid
  int halo = 1;          // halo width k (layers), also the minimum cut width
  int px = 1, py = 1;
  std::vector<Index> x_cuts, y_cuts;  // px + 1 and py + 1 increasing cut positions
  std::vector<Subdomain> parts;

  int size() const { return int(parts.size()); }
  /// The subdomain owning global cell (i, j).
  const Subdomain& owner(Index i, Index j) const;
  /// Largest work over the mean work (1: perfect balance).
  double imbalance() const;
  /// Halo cells exchanged per layer (both directions of every shared side; corners excluded).
  long long halo_cells_per_layer() const;
  /// "2 x 1 blocks of ...": one line for logs.
  std::string describe() const;
};

/// Work of one cell: 1 for an active cell, kInactiveWork for an inactive one (it is read and
/// copied but computes no flux).
constexpr double kInactiveWork = 0.1;

struct SplitOptions {
  int parts = 1;
  int halo = 1;  // k >= 1
  Shape shape = Shape::automatic;
};

/// Splits an nx x ny grid (active: nx * ny flags, row-major from the south-west; empty: all
/// active). Throws silt::Error when the grid cannot hold that many parts with cuts at least `halo`
/// cells wide.
Decomposition split(Index nx, Index ny, const std::vector<std::uint8_t>& active,
                    const SplitOptions& options);

/// Cuts [0, n) into m pieces of roughly equal weight (w: n weights), each at least min_width
/// long; returns the m + 1 cut positions. Throws when m * min_width > n.
std::vector<Index> balanced_cuts(const std::vector<double>& w, int m, Index min_width);

}  // namespace silt::partition
