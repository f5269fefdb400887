// Boundaries, point sources and rainfall of a shallow-water scene.
#include <fmt/format.h>

#include <cmath>

#include "silt/core/error.hpp"
#include "silt/io/swe_scene_parts.hpp"
#include "silt/io/time_series.hpp"

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

swe::Boundary read_boundary(Keys& b, size_t index, const swe::Grid& g) {
  swe::Boundary out;
  const std::string side = b.choice("side", "", {"west", "east", "south", "north"});
  if (!b.has("side")) b.fail("side", "is missing (\"west\", \"east\", \"south\" or \"north\")");
  out.side = side_of(side);
  out.name = b.string("name", fmt::format("{}_{}", side, index));
  const std::string type = b.choice("type", "", {"wall", "open", "discharge", "level"});
  if (!b.has("type")) b.fail("type", "is missing (\"wall\", \"open\", \"discharge\" or \"level\")");
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
  if (type == "wall") {
    out.kind = swe::BoundaryKind::wall;
  } else if (type == "open") {
    out.kind = swe::BoundaryKind::open;
  } else if (type == "discharge") {
    out.kind = swe::BoundaryKind::discharge;
    out.series = read_series(b, "discharge", 1.0, Range::any());
  } else {
    out.kind = swe::BoundaryKind::level;
    out.series = read_series(b, "level", 1.0, Range::any());
  }
  if (type != "wall") out.concentration = b.number("concentration", 0.0, Range::non_negative());
  return out;
}

}  // namespace

void read_swe_forcing(Keys& root, const FieldReader& fields, swe::Scene& s) {
  const swe::Grid& g = fields.grid();
  std::vector<Keys> bs = root.objects("boundaries");
  for (size_t k = 0; k < bs.size(); ++k) {
    swe::Boundary b = read_boundary(bs[k], k, g);
    for (const auto& o : s.boundaries)
      if (o.side == b.side && o.begin < b.end && b.begin < o.end)
        bs[k].fail("range", fmt::format("overlaps boundary '{}' on the same side (cells {}..{} and "
                                        "{}..{})",
                                        o.name, o.begin, o.end - 1, b.begin, b.end - 1));
    for (const auto& o : s.boundaries)
      if (o.name == b.name) bs[k].fail("name", fmt::format("\"{}\" is used twice", b.name));
    bs[k].finish();
    s.boundaries.push_back(std::move(b));
  }
  std::vector<Keys> ps = root.objects("sources");
  for (size_t k = 0; k < ps.size(); ++k) {
    Keys& p = ps[k];
    swe::PointSource src;
    src.name = p.string("name", fmt::format("source_{}", k));
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
