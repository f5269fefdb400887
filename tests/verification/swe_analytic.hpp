// Analytic solutions of classic shallow-water problems and the error norms and convergence orders
// the verification tests report (docs/verification-swe.md).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "swe_scene_builder.hpp"

namespace silt::swe::verify {

/// Depth and velocity at one point.
struct HU {
  double h, u;
};

/// Ritter (1892): dam of depth h0 at x0 released onto a dry bed at t = 0; frictionless, flat.
/// Rarefaction -c0 t < x - x0 < 2 c0 t with h = (2 c0 - xi)^2 / (9 g), u = 2 (c0 + xi) / 3.
inline HU ritter(double x, double t, double x0, double h0, double g) {
  const double c0 = std::sqrt(g * h0), xi = (x - x0) / t;
  if (xi <= -c0) return {h0, 0.0};
  if (xi >= 2 * c0) return {0.0, 0.0};
  const double c = (2 * c0 - xi) / 3;
  return {c * c / g, 2 * (c0 + xi) / 3};
}

/// Stoker (1957): dam break onto still water of depth hr < hl. A left-going rarefaction, a middle
/// state (hm, um) and a right-going shock of speed S; hm solves
///   2 (cl - sqrt(g hm)) = (hm - hr) sqrt(g (hm + hr) / (2 hm hr)).
class Stoker {
 public:
  Stoker(double hl, double hr, double x0, double g) : hl_(hl), hr_(hr), x0_(x0), g_(g) {
    const double cl = std::sqrt(g * hl);
    auto f = [&](double hm) {
      return 2 * (cl - std::sqrt(g * hm)) - (hm - hr) * std::sqrt(g * (hm + hr) / (2 * hm * hr));
    };
    double lo = hr, hi = hl;  // f(hr) > 0 > f(hl)
    for (int k = 0; k < 200; ++k) {
      const double mid = 0.5 * (lo + hi);
      (f(mid) > 0 ? lo : hi) = mid;
    }
    hm_ = 0.5 * (lo + hi);
    um_ = 2 * (cl - std::sqrt(g * hm_));
    shock_ = hm_ * um_ / (hm_ - hr);
  }
  double middle_depth() const { return hm_; }
  double middle_velocity() const { return um_; }
  double shock_speed() const { return shock_; }
  HU operator()(double x, double t) const {
    const double cl = std::sqrt(g_ * hl_), xi = (x - x0_) / t;
    const double cm = std::sqrt(g_ * hm_);
    if (xi <= -cl) return {hl_, 0.0};
    if (xi <= um_ - cm) {
      const double c = (2 * cl - xi) / 3;
      return {c * c / g_, 2 * (cl + xi) / 3};
    }
    if (xi <= shock_) return {hm_, um_};
    return {hr_, 0.0};
  }

 private:
  double hl_, hr_, x0_, g_, hm_ = 0, um_ = 0, shock_ = 0;
};

/// Thacker (1981) planar surface oscillating in a paraboloid (SWASHES 4.2.2): bed
/// z = -h0 (1 - r^2 / a^2) around (xc, yc); the surface stays a plane and the wet region a disk of
/// radius a whose centre circles at radius eta; frictionless.
struct Thacker {
  double a = 1.0, h0 = 0.1, eta = 0.5, xc = 2.0, yc = 2.0, g = 9.81;
  double omega() const { return std::sqrt(2 * g * h0) / a; }
  double period() const { return 2 * M_PI / omega(); }
  double bed(double x, double y) const {
    const double r2 = (x - xc) * (x - xc) + (y - yc) * (y - yc);
    return -h0 * (1 - r2 / (a * a));
  }
  double depth(double x, double y, double t) const {
    const double w = omega();
    const double s = eta * h0 / (a * a) *
                     (2 * (x - xc) * std::cos(w * t) + 2 * (y - yc) * std::sin(w * t) - eta);
    return std::max(0.0, s - bed(x, y));
  }
  double u(double t) const { return -eta * omega() * std::sin(omega() * t); }
  double v(double t) const { return eta * omega() * std::cos(omega() * t); }
};

/// A square float64 basin of n x n cells over [0, side]^2 holding Thacker's solution at t = 0.
inline Scene thacker_scene(const std::string& name, Index n, double side, const Thacker& th) {
  Scene s = scenes::make_scene(name, n, n, side / double(n), Precision::f64);
  s.velocity_x.assign(s.depth.size(), 0.0);
  s.velocity_y.assign(s.depth.size(), 0.0);
  scenes::for_cells(s, [&](Index, Index, double x, double y, size_t k) {
    s.bed[k] = th.bed(x, y);
    s.depth[k] = th.depth(x, y, 0.0);
    s.velocity_x[k] = th.u(0.0);
    s.velocity_y[k] = th.v(0.0);
  });
  return s;
}

/// One row of a convergence table.
struct Row {
  std::string name;
  int cells;       // cells along the resolved direction
  double dx;       // m
  double l1_h;     // m
  double l1_hu;    // m^2/s (negative: not reported)
  double order_h;  // log2 of the error ratio to the previous (coarser) row; NaN for the first
  double order_hu;
};

/// Fills the orders of rows that double the resolution one after the other.
inline void fill_orders(std::vector<Row>& rows) {
  for (size_t k = 0; k < rows.size(); ++k) {
    rows[k].order_h = rows[k].order_hu = NAN;
    if (k == 0) continue;
    const double r = std::log2(rows[k - 1].dx / rows[k].dx);
    rows[k].order_h = std::log2(rows[k - 1].l1_h / rows[k].l1_h) / r;
    if (rows[k].l1_hu >= 0) rows[k].order_hu = std::log2(rows[k - 1].l1_hu / rows[k].l1_hu) / r;
  }
}

/// Prints rows as Markdown table rows (case, cells, dx, L1 h, order, L1 hu, order).
inline void print_rows(const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    auto num = [](double v, const char* fmt) {
      if (std::isnan(v) || v < 0) return std::string("–");
      char b[64];
      std::snprintf(b, sizeof b, fmt, v);
      return std::string(b);
    };
    std::printf("| %s | %d | %.4g | %s | %s | %s | %s |\n", r.name.c_str(), r.cells, r.dx,
                num(r.l1_h, "%.3e").c_str(), num(r.order_h, "%.2f").c_str(),
                num(r.l1_hu, "%.3e").c_str(), num(r.order_hu, "%.2f").c_str());
  }
  std::fflush(stdout);
}

/// The finest row's L1 errors stay below their bounds (m, m^2/s) and every observed order above
/// min_order: the assertion of each convergence study.
inline void expect_convergence(const std::vector<Row>& rows, double max_l1_h, double max_l1_hu,
                               double min_order) {
  ASSERT_FALSE(rows.empty());
  EXPECT_LT(rows.back().l1_h, max_l1_h);
  EXPECT_LT(rows.back().l1_hu, max_l1_hu);
  for (size_t k = 1; k < rows.size(); ++k) {
    EXPECT_GT(rows[k].order_h, min_order) << rows[k].cells << " cells";
    EXPECT_GT(rows[k].order_hu, min_order) << rows[k].cells << " cells";
  }
}

}  // namespace silt::swe::verify
