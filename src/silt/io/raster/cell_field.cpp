#include "silt/io/raster/cell_field.hpp"

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/io/raster/field_cache.hpp"

namespace silt::io {

bool CellField::constant_zero() const {
  for (double v : values)
    if (v != 0.0) return false;
  return nodata.empty();
}

std::string FieldReader::raster_path(const Json* v) const {
  if (!v) return "";
  if (v->is_string()) return src_->resolve_path(v->get<std::string>());
  if (v->is_object() && v->contains("raster") && (*v)["raster"].is_string())
    return src_->resolve_path((*v)["raster"].get<std::string>());
  return "";
}

const Raster& FieldReader::raster(const std::string& path, const std::string& key_path) {
  auto it = cache_.find(path);
  if (it != cache_.end()) return *it->second;
  if (path.rfind(kArrayPrefix, 0) == 0)
    return *cache_.emplace(path, std::make_shared<const Raster>(array_raster(path, key_path)))
                .first->second;
  const auto read = [&] {
    try {
      return read_raster(path);
    } catch (const Error& e) {
      throw Error(fmt::format("{} (raster '{}' of {})", e.what(), key_path, src_->name));
    }
  };
  std::shared_ptr<const Raster> r =
      shared_ ? shared_->raster(path, read) : std::make_shared<const Raster>(read());
  return *cache_.emplace(path, std::move(r)).first->second;
}

Raster FieldReader::array_raster(const std::string& name, const std::string& key_path) const {
  if (!names_array(src_->arrays, name))
    key_error(*src_, key_path,
              fmt::format("names the array '{}', which was not given with the scene", name));
  if (grid_.nx == 0)
    key_error(*src_, key_path,
              fmt::format("is the array '{}': an array has no georeferencing, so the scene needs "
                          "\"grid\": {{\"nx\", \"ny\", \"dx\", \"origin\"}} with it",
                          name));
  const ArrayView& a = src_->arrays->at(name);
  Raster r;
  r.nx = a.cols;
  r.ny = a.rows;
  r.dx = grid_.dx;
  r.x0 = grid_.x0;
  r.y0 = grid_.y0;
  r.values.assign(a.data, a.data + a.rows * a.cols);
  return r;
}

void FieldReader::set_grid(const swe::Grid& grid, std::string origin) {
  grid_ = grid;
  origin_ = std::move(origin);
}

std::string FieldReader::cell_text(Index k) const {
  const Index i = k % grid_.nx, j = k / grid_.nx;
  return fmt::format("cell (i = {}, j = {}) at x = {} m, y = {} m", i, j,
                     grid_.x0 + (i + 0.5) * grid_.dx, grid_.y0 + (j + 0.5) * grid_.dx);
}

void FieldReader::check_matches(const Raster& r, const std::string& path,
                                const std::string& key_path) const {
  const double tol = 1e-6 * grid_.dx;  // georeferencing printed with ~7+ significant digits
  const bool same = r.nx == grid_.nx && r.ny == grid_.ny && std::abs(r.dx - grid_.dx) <= tol &&
                    std::abs(r.x0 - grid_.x0) <= tol && std::abs(r.y0 - grid_.y0) <= tol;
  if (!same)
    key_error(
        *src_, key_path,
        fmt::format("raster '{}' is {} x {} cells of {} m from ({}, {}), but the grid ({}) is "
                    "{} x {} cells of {} m from ({}, {}); rasters must share the grid",
                    path, r.nx, r.ny, r.dx, r.x0, r.y0, origin_, grid_.nx, grid_.ny, grid_.dx,
                    grid_.x0, grid_.y0));
}

void FieldReader::check_crs(const Raster& r, const std::string& path, const std::string& key_path) {
  // A raster without a CRS (an .asc without .prj) is taken to be on the grid's CRS: rasters are
  // already required to share the grid, and most derived inputs carry no CRS of their own.
  if (r.crs_wkt.empty()) return;
  if (crs.empty()) {
    crs = r.crs_wkt;
    crs_raster = path;
    return;
  }
  if (!same_crs(crs, r.crs_wkt))
    key_error(*src_, key_path,
              fmt::format("raster '{}' is in the CRS \"{}\", but raster '{}' is in \"{}\"; the "
                          "scene's rasters must share one CRS (reproject with gdalwarp -t_srs)",
                          path, crs_name(r.crs_wkt), crs_raster, crs_name(crs)));
}

namespace {
// v + gx (x - x0) + gy (y - y0) at every cell centre selected by `inside`.
// Rows in parallel: a 4096 x 4096 scene paints 16.8M cells per field at set-up.
template <class Inside>
void paint(CellField& f, const swe::Grid& g, double v, double gx, double gy, Inside inside) {
#pragma omp parallel for schedule(static)
  for (Index j = 0; j < g.ny; ++j)
    for (Index i = 0; i < g.nx; ++i) {
      const double x = g.x0 + (i + 0.5) * g.dx, y = g.y0 + (j + 0.5) * g.dx;
      if (inside(x, y))
        f.values[static_cast<size_t>(j) * g.nx + i] = v + gx * (x - g.x0) + gy * (y - g.y0);
    }
}
// The first cell (south row first) with data whose value is outside `range`, or -1. In parallel,
// then the lowest index: the error names the same cell as a serial scan would.
Index first_outside(const CellField& f, Range range) {
  const Index n = static_cast<Index>(f.values.size());
  Index first = n;
#pragma omp parallel for schedule(static) reduction(min : first)
  for (Index c = 0; c < n; ++c) {
    if (!f.nodata.empty() && f.nodata[static_cast<size_t>(c)]) continue;
    if (!range.contains(f.values[static_cast<size_t>(c)]) && c < first) first = c;
  }
  return first < n ? first : -1;
}

using Vertices = std::vector<std::pair<double, double>>;

// A patch's outline: at least 3 points [x, y] in m, closed back to the first.
Vertices read_vertices(Keys& p) {
  const Json* v = p.take("vertices");
  if (!v) p.fail("vertices", "is missing (a list of at least 3 points [x, y] in m)");
  if (!v->is_array() || v->size() < 3)
    p.fail("vertices",
           fmt::format("must be a list of at least 3 points [x, y] in m, got {}", show(*v)));
  Vertices out;
  for (size_t k = 0; k < v->size(); ++k) {
    const Json& q = (*v)[k];
    const bool ok = q.is_array() && q.size() == 2 && q[0].is_number() && q[1].is_number() &&
                    std::isfinite(q[0].get<double>()) && std::isfinite(q[1].get<double>());
    if (!ok)
      p.fail("vertices", fmt::format("vertex {} must be a point [x, y] of two numbers (m), got {}",
                                     k, show(q)));
    out.emplace_back(q[0].get<double>(), q[1].get<double>());
  }
  p.resolved("vertices") = *v;
  return out;
}

// Even-odd rule (crossing number): a rotated building, an L-shaped wall. Any orientation; a point
// exactly on an edge may fall either side.
bool inside_polygon(const Vertices& poly, double x, double y) {
  bool in = false;
  for (size_t a = 0, b = poly.size() - 1; a < poly.size(); b = a++) {
    const auto [xa, ya] = poly[a];
    const auto [xb, yb] = poly[b];
    if ((ya > y) != (yb > y) && x < xa + (y - ya) * (xb - xa) / (yb - ya)) in = !in;
  }
  return in;
}

// One layer of an analytic field: value + gx (x - x0) + gy (y - y0) at the cell centres inside
// its shape (the base layer: every cell), painted over the layers before it.
struct Layer {
  enum class Shape { everywhere, rectangle, circle, polygon } shape = Shape::everywhere;
  double value = 0, gx = 0, gy = 0;
  std::pair<double, double> lo, hi;  // rectangle's corners, m
  std::pair<double, double> centre;  // circle's, m
  double radius = 0;                 // m
  Vertices vertices;                 // polygon's
};

// "gradient": [gx, gy] (default none).
void read_gradient(Keys& k, Layer& l) {
  if (k.has("gradient"))
    std::tie(l.gx, l.gy) = k.point("gradient");
  else
    k.resolved("gradient") = Json::array({0.0, 0.0});
}

// {"value", "gradient", "patches"} (value: default `fallback`): its layers, base first, read and
// checked before anything is painted.
std::vector<Layer> read_analytic(Keys& k, double fallback) {
  std::vector<Layer> layers(1);
  layers[0].value = k.number("value", fallback);
  read_gradient(k, layers[0]);
  for (Keys& p : k.objects("patches")) {
    const std::string shape = p.choice("shape", "rectangle", {"rectangle", "circle", "polygon"});
    Layer l;
    l.value = p.number("value");
    read_gradient(p, l);
    if (shape == "rectangle") {
      l.shape = Layer::Shape::rectangle;
      l.lo = p.point("min");
      l.hi = p.point("max");
      if (!(l.hi.first > l.lo.first && l.hi.second > l.lo.second))
        p.fail("max",
               fmt::format("must be above and right of 'min' [{}, {}]", l.lo.first, l.lo.second));
    } else if (shape == "polygon") {
      l.shape = Layer::Shape::polygon;
      l.vertices = read_vertices(p);
    } else {
      l.shape = Layer::Shape::circle;
      l.centre = p.point("center");
      l.radius = p.number("radius", Range::positive());
    }
    p.finish();
    layers.push_back(std::move(l));
  }
  return layers;
}

void paint_layers(CellField& f, const swe::Grid& g, const std::vector<Layer>& layers) {
  for (const Layer& l : layers) {
    const auto &lo = l.lo, &hi = l.hi, &c = l.centre;
    const double r = l.radius;
    switch (l.shape) {
      case Layer::Shape::everywhere:
        paint(f, g, l.value, l.gx, l.gy, [](double, double) { return true; });
        break;
      case Layer::Shape::rectangle:
        paint(f, g, l.value, l.gx, l.gy, [&](double x, double y) {
          return x >= lo.first && x <= hi.first && y >= lo.second && y <= hi.second;
        });
        break;
      case Layer::Shape::polygon:
        paint(f, g, l.value, l.gx, l.gy,
              [&](double x, double y) { return inside_polygon(l.vertices, x, y); });
        break;
      case Layer::Shape::circle:
        paint(f, g, l.value, l.gx, l.gy, [&](double x, double y) {
          return (x - c.first) * (x - c.first) + (y - c.second) * (y - c.second) <= r * r;
        });
        break;
    }
  }
}
}  // namespace

void FieldReader::range_error(const std::string& key_path, const CellField& f, Range range,
                              Index c) const {
  key_error(
      *src_, key_path,
      fmt::format("must be {}, got {} at {}{}", range.text(), f.values[static_cast<size_t>(c)],
                  cell_text(c), f.raster.empty() ? "" : fmt::format(" of raster '{}'", f.raster)));
}

std::string FieldReader::field_key(const Json& value, const std::string& path, double fallback,
                                   Range range, bool bed) const {
  // Doubles as fmt writes them by default: the shortest text that reads back the same bits.
  return fmt::format("{}\n{}\n{} {} {} {} {}\n{} {} {} {} {} {}", value.dump(), path, grid_.nx,
                     grid_.ny, grid_.dx, grid_.x0, grid_.y0, range.lo, range.hi, range.lo_open,
                     range.hi_open, bed, fallback);
}

CellField FieldReader::read(Keys& keys, const std::string& key, double fallback, Range range,
                            bool bed) {
  const Json* v = keys.take(key);
  const std::string kp = keys.key_path(key);
  const size_t cells = static_cast<size_t>(grid_.cells());
  if (!v || v->is_number()) {
    // A constant: its one value is checked (the error names the first cell, as a scan would).
    const double value = v ? v->get<double>() : fallback;
    keys.resolved(key) = v ? *v : Json(fallback);
    CellField f;
    f.values.assign(cells, value);
    if (bed) f.nodata_rule = "reject";
    if (!range.contains(value)) range_error(kp, f, range, 0);
    return f;
  }
  // Read and checked as the scene gives it, then painted or copied from its raster (or found in
  // the shared cache).
  const std::string path = raster_path(v);
  std::string nodata_rule = bed ? "reject" : "";
  double scale = 1.0;  // {"raster": ..., "scale": f}: the raster's values times f (ensembles)
  std::vector<Layer> layers;
  if (v->is_object()) {
    Keys k(*v, kp, *src_, &keys.resolved(key));
    if (k.has("raster")) {
      k.take("raster");
      if (path.empty())
        k.fail("raster", fmt::format("must be a file path, got {}", show((*v)["raster"])));
      k.resolved("raster") = path;
      if (bed) nodata_rule = k.choice("nodata", "reject", {"wall", "reject"});
      if (k.has("scale")) scale = k.number("scale", Range::non_negative());
    } else {
      layers = read_analytic(k, fallback);
    }
    k.finish();
  } else if (!v->is_string()) {
    key_error(*src_, kp,
              fmt::format("must be a number, a raster path or an object {{\"value\", \"patches\"}} "
                          "or {{\"raster\"}}, got {}",
                          show(*v)));
  } else {
    keys.resolved(key) = path;
  }
  const Raster* r = nullptr;
  if (!path.empty()) {
    r = &raster(path, kp);
    check_matches(*r, path, kp);
    check_crs(*r, path, kp);
  }
  const auto make = [&] {
    FieldCache::Checked checked;
    CellField& f = checked.field;
    f.nodata_rule = nodata_rule;
    if (!r) {
      f.values.assign(cells, fallback);
      paint_layers(f, grid_, layers);
    } else {
      f.raster = path;
      f.values = r->values;
      for (Index c = 0; c < r->cells(); ++c)
        if (r->is_nodata(c)) {
          if (f.nodata.empty()) f.nodata.assign(f.values.size(), 0);
          f.nodata[static_cast<size_t>(c)] = 1;
        } else if (scale != 1.0) {
          f.values[static_cast<size_t>(c)] *= scale;
        }
    }
    checked.outside = first_outside(f, range);
    return checked;
  };
  // Arrays given with the scene (Python's) are not files: they stay this reader's own.
  if (!shared_ || path.rfind(kArrayPrefix, 0) == 0) {
    FieldCache::Checked own = make();
    if (own.outside >= 0) range_error(kp, own.field, range, own.outside);
    return std::move(own.field);
  }
  const auto held = shared_->field(field_key(*v, path, fallback, range, bed), make);
  if (held->outside >= 0) range_error(kp, held->field, range, held->outside);
  return held->field;
}

CellField FieldReader::read_unless_zero(Keys& keys, const std::string& key, Range range) {
  const Json* v = keys.take(key);
  if (range.contains(0.0) && (!v || (v->is_number() && v->get<double>() == 0.0))) {
    keys.resolved(key) = v ? *v : Json(0.0);
    return {};
  }
  return read(keys, key, 0.0, range);
}

}  // namespace silt::io
