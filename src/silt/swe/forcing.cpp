#include "silt/swe/forcing.hpp"

#include <algorithm>
#include <limits>

#include "silt/core/parallel_for.hpp"

namespace silt::swe::detail {

// A global cell field (nx * ny, row-major) laid out as the part's state: owned cells and the
// ring's cells inside the grid, zero elsewhere and in inactive cells.
template <class T>
std::vector<T> ForcingBuffers<T>::local(const std::vector<double>& global) const {
  const Index gnx = scene->grid.nx, gny = scene->grid.ny;
  std::vector<T> out(size_t(Grid2<T>::alloc_size(nx, ny, ring)), T(0));
  const Grid2<T> g{out.data(), nx, ny, ring};
  for (Index j = -ring; j < ny + ring; ++j)
    for (Index i = -ring; i < nx + ring; ++i) {
      const Index gi = i + sub.cells.i0, gj = j + sub.cells.j0;
      if (gi < 0 || gj < 0 || gi >= gnx || gj >= gny) continue;
      const size_t k = size_t(gj) * size_t(gnx) + size_t(gi);
      if (active[k]) g(i, j) = T(global[k]);
    }
  return out;
}

template <class T>
void ForcingBuffers<T>::allocate(const Scene& s, const partition::Subdomain& d, Index nx_,
                                 Index ny_, int ring_, const std::vector<std::uint8_t>& act,
                                 const Exec& e) {
  scene = &s;
  sub = d;
  nx = nx_;
  ny = ny_;
  ring = ring_;
  active = act;
  exec = e;
  const Index n = Grid2<T>::alloc_size(nx, ny, ring);
  if (!s.rain.empty()) {
    // Each frame's volume rate over the owned active cells, summed in the order of the cells (the
    // clock counts the rain from them: no reduction over cells in a step).
    const double area = s.grid.dx * s.grid.dx;
    for (const auto& frame : s.rain.rate) {
      double v = 0.0;
      for (Index j = sub.cells.j0; j < sub.cells.j1; ++j)
        for (Index i = sub.cells.i0; i < sub.cells.i1; ++i) {
          const size_t k = size_t(j) * size_t(s.grid.nx) + size_t(i);
          if (active[k]) v += double(T(frame[k])) * area;
        }
      frame_volume.push_back(v);
      // The largest rate over the whole grid (the same on every part: one dt for all), as stored.
      double m = 0.0;
      for (size_t k = 0; k < frame.size(); ++k)
        if (active[k]) m = std::max(m, double(T(frame[k])));
      frame_max.push_back(m);
    }
    rain[0] = DeviceBuffer<T>(exec, n, "swe.rain.frame_a");
    rain[1] = DeviceBuffer<T>(exec, n, "swe.rain.frame_b");
    select(0.0);
  }
  if (s.infiltration.enabled()) {
    model = s.infiltration.model == InfiltrationModel::green_ampt ? kGreenAmpt : kHorton;
    const std::vector<double>* fields[3] = {&s.infiltration.a, &s.infiltration.b,
                                            &s.infiltration.c};
    const char* labels[3] = {"swe.soil.a", "swe.soil.b", "swe.soil.c"};
    for (int k = 0; k < 3; ++k)
      if (!fields[k]->empty()) {
        soil[k] = DeviceBuffer<T>(exec, n, labels[k]);
        soil[k].upload(local(*fields[k]));
      }
    const char* f_labels[3] = {"swe.infiltration.F", "swe.infiltration.F", "swe.checkpoint.F"};
    DeviceBuffer<double>* fs[3] = {&F[0], &F[1], &bk_F};
    for (int k = 0; k < 3; ++k) {
      *fs[k] = DeviceBuffer<double>(exec, n, f_labels[k]);
      parallel_fill(exec, "swe.infiltration.zero", fs[k]->data(), n, 0.0);
    }
  }
}

template <class T>
double ForcingBuffers<T>::select(double t) {
  const std::vector<double>& ts = scene->rain.t;
  const int last = int(ts.size()) - 1;
  int a = 0, b = 0;
  double end = ts[0];
  if (!(t < ts[size_t(last)])) {
    a = b = last;
    end = std::numeric_limits<double>::infinity();
  } else if (!(t < ts[0])) {
    while (!(t < ts[size_t(a + 1)])) ++a;
    b = a + 1;
    end = ts[size_t(b)];
  }
  if (frame_b == a && frame_a != a) {  // the later frame becomes the earlier one: no upload
    std::swap(rain[0], rain[1]);
    std::swap(frame_a, frame_b);
  }
  if (frame_a != a) {
    rain[0].upload(local(scene->rain.rate[size_t(a)]));
    frame_a = a;
  }
  if (frame_b != b) {
    rain[1].upload(local(scene->rain.rate[size_t(b)]));
    frame_b = b;
  }
  return end;
}

template <class T>
ForcingView<T> ForcingBuffers<T>::view(int read, int write) const {
  ForcingView<T> f;
  if (frame_a >= 0) {
    f.rain_a = rain[0].data();
    f.rain_b = rain[1].data();
    f.t_a = scene->rain.t[size_t(frame_a)];
    f.t_b = scene->rain.t[size_t(frame_b)];
    f.step = scene->rain.step;
    f.volume_a = frame_volume[size_t(frame_a)];
    f.volume_b = frame_volume[size_t(frame_b)];
    f.max_a = frame_max[size_t(frame_a)];
    f.max_b = frame_max[size_t(frame_b)];
  }
  f.model = model;
  if (model != kNoInfiltration) {
    f.soil_a = soil[0].data();
    f.soil_b = soil[1].data();
    f.soil_c = soil[2].size() > 0 ? soil[2].data() : nullptr;
    f.F = F[read].data();
    f.F_new = const_cast<double*>(F[write].data());
  }
  return f;
}

template <class T>
void ForcingBuffers<T>::copy(int cur, bool to_backup) {
  if (model == kNoInfiltration) return;
  const double* from = to_backup ? F[cur].data() : bk_F.data();
  double* to = const_cast<double*>(to_backup ? bk_F.data() : F[cur].data());
  parallel_for(
      exec, "swe.infiltration.copy", F[cur].size(), SILT_LAMBDA(Index k) { to[k] = from[k]; });
}

template <class T>
double ForcingBuffers<T>::infiltrated_depth(int cur) const {
  if (!infiltrates()) return 0.0;
  const Grid2<const double> f{F[cur].data(), nx, ny, ring};
  const Index w = nx;
  return parallel_reduce_sum<double>(
      exec, "swe.infiltration.sum", nx * ny,
      SILT_LAMBDA(Index k)->double { return f(k % w, k / w); });
}

template struct ForcingBuffers<float>;
template struct ForcingBuffers<double>;

}  // namespace silt::swe::detail
