// Boundaries, point sources and rainfall of a shallow-water scene.
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <tuple>

#include "silt/core/error.hpp"
#include "silt/io/swe/scene_parts.hpp"
#include "silt/io/time_series.hpp"
#include "silt/swe/boundary_lines.hpp"

namespace silt::io::detail {

Index cell_at(const swe::Grid& g, double x, double y) {
  const double fi = std::floor((x - g.x0) / g.dx), fj = std::floor((y - g.y0) / g.dx);
  if (!(fi >= 0 && fj >= 0 && fi < g.nx && fj < g.ny)) return -1;
  return static_cast<Index>(fj) * g.nx + static_cast<Index>(fi);
}

namespace {

constexpr double kMmPerHourToMetresPerSecond = 1e-3 / 3600.0;

swe::Side side_of(const std::string& s) {
  if (s == "west") return swe::Side::west;
  if (s == "east") return swe::Side::east;
  if (s == "south") return swe::Side::south;
  return swe::Side::north;
}

// A supercritical inflow: the discharge Q (> 0) with the depth or the velocity of the entering
// water (one of them, > 0), both imposed.
void read_supercritical(Keys& b, swe::Boundary& out) {
  const bool depth = b.has("depth"), velocity = b.has("velocity");
  if (depth == velocity)
    b.fail(depth ? "velocity" : "depth",
           fmt::format("boundary '{}' is a supercritical inflow: it needs the discharge and {} "
                       "of \"depth\" (m) or \"velocity\" (m/s)",
                       out.name, depth ? "only one" : "one"));
  out.kind = depth ? swe::BoundaryKind::inflow_depth : swe::BoundaryKind::inflow_velocity;
  try {
    out.series = read_series(b, "discharge", 1.0, Range::positive());
    out.aux = read_series(b, depth ? "depth" : "velocity", 1.0, Range::positive());
  } catch (const Error& e) {
    throw Error(fmt::format("{} (boundary '{}', supercritical inflow)", e.what(), out.name));
  }
}

// A stage-discharge table: [[stage m, discharge m^3/s], ...] inline or a CSV file of the two
// columns; stages increasing strictly, discharges >= 0 and never decreasing.
swe::Series read_rating(Keys& b, const std::string& name) {
  const Json* v = b.take("rating");
  if (!v)
    b.fail("rating", fmt::format("is missing: boundary '{}' needs its stage-discharge table "
                                 "[[stage m, discharge m^3/s], ...] or a CSV file",
                                 name));
  swe::Series r;
  std::string where = b.key_path("rating");
  if (v->is_string()) {
    const std::string path = b.source().resolve_path(v->get<std::string>());
    try {
      r = read_series_csv(path);
    } catch (const Error& e) {
      b.fail("rating",
             fmt::format("boundary '{}': {} (columns: stage m, discharge m^3/s)", name, e.what()));
    }
    b.resolved("rating") = path;
    where = path;
  } else if (v->is_array()) {
    for (size_t k = 0; k < v->size(); ++k) {
      const Json& row = (*v)[k];
      if (!row.is_array() || row.size() != 2 || !row[0].is_number() || !row[1].is_number())
        b.fail("rating",
               fmt::format("boundary '{}': row {} must be [stage m, discharge m^3/s]", name, k));
      r.t.push_back(row[0].get<double>());
      r.value.push_back(row[1].get<double>());
    }
    b.resolved("rating") = *v;
  } else {
    b.fail("rating", fmt::format("boundary '{}': must be [[stage m, discharge m^3/s], ...] or a "
                                 "CSV file path",
                                 name));
  }
  if (r.t.size() < 2)
    b.fail("rating", fmt::format("boundary '{}': the stage-discharge table needs at least 2 rows, "
                                 "has {}",
                                 name, r.t.size()));
  for (size_t k = 0; k < r.t.size(); ++k) {
    auto bad = [&](const std::string& why) {
      b.fail("rating", fmt::format("boundary '{}': row {} (stage {} m, discharge {} m^3/s) of {}: "
                                   "{}",
                                   name, k, r.t[k], r.value[k], where, why));
    };
    if (!std::isfinite(r.t[k]) || !std::isfinite(r.value[k]) || r.value[k] < 0)
      bad("stage and discharge must be finite, the discharge >= 0");
    if (k > 0 && !(r.t[k] > r.t[k - 1]))
      bad(fmt::format("the stages must increase strictly (the row before has {} m)", r.t[k - 1]));
    if (k > 0 && r.value[k] < r.value[k - 1])
      bad(
          fmt::format("the discharge must not decrease as the stage rises (the row below has {} "
                      "m^3/s)",
                      r.value[k - 1]));
  }
  return r;
}

// Where a boundary lies: cells along one side (side + range), or a line along the model's outer
// edge (line), laid on the grid once the scene's mask is known (read_swe_forcing).
void read_place(Keys& b, size_t index, const swe::Grid& g, swe::Boundary& out) {
  if (b.has("line")) {
    if (b.has("side") || b.has("range"))
      b.fail(b.has("side") ? "side" : "range",
             "cannot be given with \"line\": a boundary is a line in map coordinates or a range "
             "along one side of the grid");
    out.line = b.points("line");
    out.name = b.string("name", fmt::format("line_{}", index));
    return;
  }
  const std::string side = b.choice("side", "", {"west", "east", "south", "north"});
  if (!b.has("side"))
    b.fail("side",
           "is missing (\"west\", \"east\", \"south\" or \"north\"; or a \"line\" [[x, y], "
           "...] along the model's outer edge)");
  out.side = side_of(side);
  out.name = b.string("name", fmt::format("{}_{}", side, index));
  // Cells along the side: j for west/east (coordinate y), i for south/north (coordinate x).
  const bool along_y = out.side == swe::Side::west || out.side == swe::Side::east;
  const Index n = along_y ? g.ny : g.nx;
  const double origin = along_y ? g.y0 : g.x0;
  if (b.has("range")) {
    const auto [a, z] = b.point("range");
    if (!(z > a))
      b.fail("range", fmt::format("must be [from, to] with to > from, got [{}, {}]", a, z));
    // Cells whose centre lies in [a, z], clamped to the side in double before the cast (a range
    // far outside the grid would overflow Index).
    const double first = std::max(0.0, std::ceil((a - origin) / g.dx - 0.5));
    const double last = std::min<double>(n, std::floor((z - origin) / g.dx - 0.5) + 1);
    if (!(last > first))
      b.fail("range", fmt::format("[{}, {}] covers no cell centre of the {} side (cells span {} to "
                                  "{} m)",
                                  a, z, side, origin, origin + n * g.dx));
    out.begin = static_cast<Index>(first);
    out.end = static_cast<Index>(last);
  } else {
    out.begin = 0;
    out.end = n;
    b.resolved("range") = Json::array({origin, origin + n * g.dx});
  }
}

swe::Boundary read_boundary(Keys& b, size_t index, const swe::Grid& g) {
  swe::Boundary out;
  read_place(b, index, g, out);
  const std::string type = b.choice("type", "",
                                    {"wall", "open", "discharge", "supercritical", "level",
                                     "critical", "normal_depth", "rating"});
  if (!b.has("type"))
    b.fail("type",
           "is missing (\"wall\", \"open\", \"discharge\", \"supercritical\", \"level\", "
           "\"critical\", \"normal_depth\" or \"rating\")");
  if (type == "wall") {
    out.kind = swe::BoundaryKind::wall;
  } else if (type == "open") {
    out.kind = swe::BoundaryKind::open;
  } else if (type == "discharge") {
    out.kind = swe::BoundaryKind::discharge;
    out.series = read_series(b, "discharge", 1.0, Range::any());
  } else if (type == "supercritical") {
    read_supercritical(b, out);
  } else if (type == "level") {
    out.kind = swe::BoundaryKind::level;
    out.series = read_series(b, "level", 1.0, Range::any());
  } else if (type == "critical") {
    out.kind = swe::BoundaryKind::critical;
  } else if (type == "normal_depth") {
    out.kind = swe::BoundaryKind::normal_depth;
    if (!b.has("slope"))
      b.fail("slope", fmt::format("is missing: boundary '{}' (normal depth) needs the bed slope "
                                  "(m/m, > 0) of the reach it continues",
                                  out.name));
    out.slope = b.number("slope", Range::positive());
  } else {
    out.kind = swe::BoundaryKind::rating;
    out.rating = read_rating(b, out.name);
  }
  // Water enters only through these: the concentration it carries.
  if (type == "open" || type == "discharge" || type == "supercritical" || type == "level")
    out.concentration = b.number("concentration", 0.0, Range::non_negative());
  return out;
}

// Manning's normal depth needs a roughness on every active cell of the segment.
void check_roughness(Keys& b, const swe::Boundary& bd, const std::vector<swe::BoundaryEdge>& edges,
                     const swe::Scene& s) {
  const swe::Grid& g = s.grid;
  for (const swe::BoundaryEdge& e : edges) {
    const size_t c = size_t(e.j) * size_t(g.nx) + size_t(e.i);
    if (!s.active.empty() && !s.active[c]) continue;
    const double n = s.manning.empty() ? 0.0 : s.manning[c];
    if (!(n > 0))
      b.fail("type", fmt::format("normal_depth: boundary '{}' needs Manning n > 0 on its cells "
                                 "('manning'), cell (i = {}, j = {}) has {}",
                                 bd.name, e.i, e.j, n));
  }
}

const char* side_word(int side) {
  static const char* const names[] = {"west", "east", "south", "north"};
  return names[side];
}

// A boundary's edges: a line laid on the model's outer edge (its errors under 'line'), or its
// cells along a side; then no edge taken twice (overlap names both boundaries and the edge).
std::vector<swe::BoundaryEdge> place_boundary(
    Keys& b, size_t k, const swe::Scene& s, const swe::Boundary& bd,
    std::map<std::tuple<Index, Index, int>, size_t>& taken) {
  std::vector<swe::BoundaryEdge> edges;
  try {
    edges = swe::boundary_edges(s.grid, s.active, bd, k);
  } catch (const Error& e) {
    b.fail("line", e.what());
  }
  for (const swe::BoundaryEdge& e : edges) {
    // An edge between two cells inside the grid has two names: the inactive neighbour's too.
    Index i = e.i, j = e.j;
    int side = e.side;
    if (side == 1) ++i, side = 0;
    if (side == 3) ++j, side = 2;
    const auto [it, fresh] = taken.insert({{i, j, side}, k});
    if (fresh) continue;
    const swe::Boundary& o = s.boundaries[it->second];
    b.fail(bd.line.empty() ? "range" : "line",
           fmt::format("boundary {} '{}' overlaps boundary '{}' (boundary {}) on the {} edge of "
                       "cell ({}, {}) (boundaries must not share an edge)",
                       k, bd.name, o.name, it->second, side_word(e.side), e.i, e.j));
  }
  return edges;
}

}  // namespace

void read_swe_forcing(Keys& root, const FieldReader& fields, swe::Scene& s) {
  const swe::Grid& g = fields.grid();
  std::vector<Keys> bs = root.objects("boundaries");
  std::map<std::tuple<Index, Index, int>, size_t> taken;  // (i, j, west or south edge): boundary
  for (size_t k = 0; k < bs.size(); ++k) {
    swe::Boundary b = read_boundary(bs[k], k, g);
    for (const auto& o : s.boundaries)
      if (o.line.empty() && b.line.empty() && o.side == b.side && o.begin < b.end &&
          b.begin < o.end)
        bs[k].fail("range", fmt::format("overlaps boundary '{}' on the same side (cells {}..{} and "
                                        "{}..{})",
                                        o.name, o.begin, o.end - 1, b.begin, b.end - 1));
    for (const auto& o : s.boundaries)
      if (o.name == b.name) bs[k].fail("name", fmt::format("\"{}\" is used twice", b.name));
    const std::vector<swe::BoundaryEdge> edges = place_boundary(bs[k], k, s, b, taken);
    if (b.kind == swe::BoundaryKind::normal_depth) check_roughness(bs[k], b, edges, s);
    bs[k].finish();
    s.boundaries.push_back(std::move(b));
  }
  std::vector<Keys> ps = root.objects("sources");
  for (size_t k = 0; k < ps.size(); ++k) {
    Keys& p = ps[k];
    swe::PointSource src;
    src.name = p.string("name", fmt::format("source_{}", k));
    if (p.has("line") || p.has("polygon")) {
      const bool is_line = p.has("line");
      const char* key = is_line ? "line" : "polygon";
      for (const char* other : {"x", "y", "line"})
        if (p.has(other) && std::string(other) != key)
          p.fail(other, fmt::format("cannot be given with \"{}\": a source is a point (x, y), an "
                                    "inflow line or an inflow polygon",
                                    key));
      auto& pts = is_line ? src.line : src.polygon;
      pts = p.points(key);
      if (!pts.empty()) {  // a line's first point, a polygon's mean point (its station)
        src.x = src.line.empty() ? 0.0 : pts.front()[0];
        src.y = src.line.empty() ? 0.0 : pts.front()[1];
        for (const auto& q : src.polygon) {
          src.x += q[0] / double(pts.size());
          src.y += q[1] / double(pts.size());
        }
      }
      try {
        if (src.polygon.empty())
          swe::line_cells(g, s.active, src, k);
        else
          swe::polygon_cells(g, s.active, src, k);
      } catch (const Error& e) {
        p.fail(key, e.what());
      }
      src.discharge = read_series(p, "discharge", 1.0, Range::any());
      src.concentration = p.number("concentration", 0.0, Range::non_negative());
      p.finish();
      s.sources.push_back(std::move(src));
      continue;
    }
    src.x = p.number("x");
    src.y = p.number("y");
    const Index c = cell_at(g, src.x, src.y);
    if (c < 0)
      p.fail("x", fmt::format("({}, {}) is outside the grid [{}, {}] x [{}, {}]", src.x, src.y,
                              g.x0, g.x0 + g.nx * g.dx, g.y0, g.y0 + g.ny * g.dx));
    if (!s.active.empty() && !s.active[c])
      p.fail("x", fmt::format("({}, {}) lies in an inactive (nodata) cell", src.x, src.y));
    src.discharge = read_series(p, "discharge", 1.0, Range::any());
    src.concentration = p.number("concentration", 0.0, Range::non_negative());
    p.finish();
    s.sources.push_back(std::move(src));
  }
  if (root.has("rainfall_mm_h")) {
    // Rain rates are customarily given in mm/h; the solver takes m/s.
    s.rainfall =
        read_series(root, "rainfall_mm_h", kMmPerHourToMetresPerSecond, Range::non_negative());
  } else {
    root.take("rainfall_mm_h");
    root.resolved("rainfall_mm_h") = 0.0;
  }
}

}  // namespace silt::io::detail
