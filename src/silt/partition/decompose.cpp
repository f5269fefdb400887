#include "silt/partition/decompose.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "silt/core/error.hpp"

namespace silt::partition {

std::vector<Index> balanced_cuts(const std::vector<double>& w, int m, Index min_width) {
  const Index n = Index(w.size());
  if (m < 1 || min_width < 1 || static_cast<long long>(m) * min_width > n)
    throw Error(
        fmt::format("cannot cut {} cells into {} pieces of at least {} cells", n, m, min_width));
  std::vector<double> prefix(size_t(n) + 1, 0.0);
  for (Index k = 0; k < n; ++k) prefix[size_t(k) + 1] = prefix[size_t(k)] + w[size_t(k)];
  const double total = prefix.back();
  std::vector<Index> cuts(size_t(m) + 1, 0);
  cuts[size_t(m)] = n;
  for (int t = 1; t < m; ++t) {
    const double target = total * t / m;
    // The cut whose prefix weight is nearest the target.
    const auto it = std::lower_bound(prefix.begin(), prefix.end(), target);
    Index c = std::min(Index(it - prefix.begin()), n);
    if (c > 0 && target - prefix[size_t(c) - 1] < prefix[size_t(c)] - target) --c;
    const Index lo = cuts[size_t(t) - 1] + min_width, hi = n - (m - t) * min_width;
    cuts[size_t(t)] = std::clamp(c, lo, hi);
  }
  return cuts;
}

namespace {

struct Factor {
  int px, py;
  long long cost;  // halo cells per layer
};

Factor choose_factors(Index nx, Index ny, int parts, int halo, Shape shape) {
  Factor best{0, 0, std::numeric_limits<long long>::max()};
  for (int px = 1; px <= parts; ++px) {
    if (parts % px != 0) continue;
    const int py = parts / px;
    if (shape == Shape::strips && px != 1) continue;
    if (shape == Shape::blocks && px == 1 && parts > 1) continue;
    if (static_cast<long long>(px) * halo > nx || static_cast<long long>(py) * halo > ny) continue;
    const long long cost =
        2 * (static_cast<long long>(px - 1) * ny + static_cast<long long>(py - 1) * nx);
    if (cost < best.cost) best = Factor{px, py, cost};  // ties keep the smaller px: strips first
  }
  if (best.px == 0)
    throw Error(fmt::format(
        "cannot split a {} x {} grid into {} {} with a halo of {} cells (each part must own at "
        "least {} cells across every cut)",
        nx, ny, parts,
        shape == Shape::strips   ? "strips"
        : shape == Shape::blocks ? "2D blocks"
                                 : "parts",
        halo, halo));
  return best;
}

}  // namespace

Decomposition split(Index nx, Index ny, const std::vector<std::uint8_t>& active,
                    const SplitOptions& o) {
  if (nx <= 0 || ny <= 0) throw Error(fmt::format("cannot split a {} x {} grid", nx, ny));
  if (o.parts < 1) throw Error(fmt::format("cannot split a grid into {} parts", o.parts));
  if (o.halo < 1) throw Error(fmt::format("halo width {} (must be >= 1)", o.halo));
  if (!active.empty() && active.size() != size_t(nx) * size_t(ny))
    throw Error(fmt::format("active mask has {} values for a {} x {} grid", active.size(), nx, ny));
  const Factor f = choose_factors(nx, ny, o.parts, o.halo, o.shape);
  auto work = [&](Index i, Index j) {
    return active.empty() || active[size_t(j) * size_t(nx) + size_t(i)] ? 1.0 : kInactiveWork;
  };
  std::vector<double> row(size_t(ny), 0.0), col(size_t(nx), 0.0);
  for (Index j = 0; j < ny; ++j)
    for (Index i = 0; i < nx; ++i) {
      const double w = work(i, j);
      row[size_t(j)] += w;
      col[size_t(i)] += w;
    }

  Decomposition d;
  d.nx = nx;
  d.ny = ny;
  d.halo = o.halo;
  d.px = f.px;
  d.py = f.py;
  d.x_cuts = balanced_cuts(col, f.px, o.halo);
  d.y_cuts = balanced_cuts(row, f.py, o.halo);
  for (int by = 0; by < f.py; ++by)
    for (int bx = 0; bx < f.px; ++bx) {
      Subdomain s;
      s.id = by * f.px + bx;
      s.bx = bx;
      s.by = by;
      s.cells = Box2{d.x_cuts[size_t(bx)], d.x_cuts[size_t(bx) + 1], d.y_cuts[size_t(by)],
                     d.y_cuts[size_t(by) + 1]};
      for (Index j = s.cells.j0; j < s.cells.j1; ++j)
        for (Index i = s.cells.i0; i < s.cells.i1; ++i) s.work += work(i, j);
      for (int dj = -1; dj <= 1; ++dj)
        for (int di = -1; di <= 1; ++di) {
          const int nbx = bx + di, nby = by + dj;
          const bool inside = nbx >= 0 && nbx < f.px && nby >= 0 && nby < f.py;
          s.neighbour[size_t(direction(di, dj))] = inside ? nby * f.px + nbx : -1;
        }
      d.parts.push_back(s);
    }
  return d;
}

const Subdomain& Decomposition::owner(Index i, Index j) const {
  if (i < 0 || j < 0 || i >= nx || j >= ny)
    throw Error(fmt::format("cell ({}, {}) is outside the {} x {} grid", i, j, nx, ny));
  const int bx = int(std::upper_bound(x_cuts.begin(), x_cuts.end(), i) - x_cuts.begin()) - 1;
  const int by = int(std::upper_bound(y_cuts.begin(), y_cuts.end(), j) - y_cuts.begin()) - 1;
  return parts[size_t(by * px + bx)];
}

double Decomposition::imbalance() const {
  double total = 0, most = 0;
  for (const Subdomain& s : parts) {
    total += s.work;
    most = std::max(most, s.work);
  }
  return total > 0 ? most * double(parts.size()) / total : 1.0;
}

long long Decomposition::halo_cells_per_layer() const {
  return 2 * (static_cast<long long>(px - 1) * ny + static_cast<long long>(py - 1) * nx);
}

std::string Decomposition::describe() const {
  return fmt::format("{} {} x {} ({}), halo {} (exchanged every {} step{}), imbalance {:.3f}",
                     px == 1 ? "strips" : "blocks", px, py,
                     px == 1 ? fmt::format("rows cut at {}", fmt::join(y_cuts, ","))
                             : fmt::format("x cut at {}; y cut at {}", fmt::join(x_cuts, ","),
                                           fmt::join(y_cuts, ",")),
                     halo, halo, halo == 1 ? "" : "s", imbalance());
}

}  // namespace silt::partition
