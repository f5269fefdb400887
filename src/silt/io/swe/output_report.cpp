// The report's maps (io/image/report.hpp), written with the hazard rasters at the end of a run:
// report_max_depth.png and report_hazard_class.png, framed with the CRS's coordinates, a north
// arrow, the legend and a scale bar, the scene's boundaries, inflows and cross sections drawn on
// them.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "silt/io/atomic_file.hpp"
#include "silt/io/image/legend.hpp"
#include "silt/io/image/overlay.hpp"
#include "silt/io/image/report.hpp"
#include "silt/io/swe/output.hpp"

namespace silt::io {

namespace {

// The caption of the coordinates: their units and the CRS's name from its WKT ("m, WGS 84 / UTM
// zone 17N"); degrees for a geographic CRS; "m" without a CRS.
std::string coordinates_caption(const std::string& wkt) {
  if (wkt.empty()) return "x, y in m";
  const bool geographic = wkt.rfind("GEOGCS", 0) == 0 || wkt.rfind("GEOGCRS", 0) == 0;
  const size_t a = wkt.find('"'), b = a == std::string::npos ? a : wkt.find('"', a + 1);
  const std::string name = b == std::string::npos ? "" : ", " + wkt.substr(a + 1, b - a - 1);
  return std::string(geographic ? "degrees" : "m") + name;
}

// A boundary along a side: the side's cells [begin, end) as a segment on the grid's edge.
std::vector<std::array<double, 2>> side_points(const swe::Grid& g, const swe::Boundary& b) {
  const double x1 = g.x0 + double(g.nx) * g.dx, y1 = g.y0 + double(g.ny) * g.dx;
  const double a = double(b.begin) * g.dx, e = double(b.end) * g.dx;
  switch (b.side) {
    case swe::Side::west:
      return {{g.x0, g.y0 + a}, {g.x0, g.y0 + e}};
    case swe::Side::east:
      return {{x1, g.y0 + a}, {x1, g.y0 + e}};
    case swe::Side::south:
      return {{g.x0 + a, g.y0}, {g.x0 + e, g.y0}};
    default:
      return {{g.x0 + a, y1}, {g.x0 + e, y1}};
  }
}

// What the report's maps show of the scene: every boundary (its line, or its side's cells),
// every source (a point, an inflow line or polygon) and cross section, named.
std::vector<MapFeature> scene_features(const swe::Scene& s) {
  std::vector<MapFeature> out;
  for (const swe::Boundary& b : s.boundaries)
    out.push_back(MapFeature{FeatureKind::boundary, b.name,
                             b.line.empty() ? side_points(s.grid, b) : b.line, false});
  for (const swe::PointSource& p : s.sources) {
    if (!p.polygon.empty())
      out.push_back(MapFeature{FeatureKind::inflow, p.name, p.polygon, true});
    else if (!p.line.empty())
      out.push_back(MapFeature{FeatureKind::inflow, p.name, p.line, false});
    else
      out.push_back(MapFeature{FeatureKind::inflow, p.name, {{p.x, p.y}}, false});
  }
  for (const swe::CrossSection& c : s.sections)
    out.push_back(MapFeature{FeatureKind::section, c.name, c.points, false});
  return out;
}

}  // namespace

PngImage report_field_map(const SweJob& job, const std::vector<float>& shade,
                          const std::vector<double>& values, const ReportScale& scale, double t) {
  const swe::Scene& s = job.scene;
  const SweOutputSettings& o = job.outputs;
  const double mpp = s.grid.dx / o.png_scale;
  const MapPlacement at{s.grid.x0, s.grid.y0, mpp, coordinates_caption(o.crs_wkt)};
  PngImage map = render_map(s.grid, shade, s.active, values, scale.show_min, scale.vmax, scale.ramp,
                            o.png_scale);
  draw_features(map, at, scene_features(s));
  return with_map_legend(framed_map(map, at), scale.field, scale.units, scale.vmax, scale.ramp, t,
                         mpp);
}

std::vector<std::string> SweOutputWriter::write_report_maps(const swe::Fields& f, double t) const {
  const SweOutputSettings& o = job_->outputs;
  const swe::Scene& s = job_->scene;
  std::vector<std::string> written;
  if (o.png == PngMap::none || shade_.empty()) return written;
  const double mpp = s.grid.dx / o.png_scale;
  const MapPlacement at{s.grid.x0, s.grid.y0, mpp, coordinates_caption(o.crs_wkt)};
  const auto write = [&](const std::string& name, const PngImage& img) {
    const std::string path = (std::filesystem::path(dir_) / name).string();
    write_atomically(path, [&](const std::string& tmp) { write_png(tmp, img); });
    written.push_back(path);
  };
  // Maximum depth over the run, its colour scale up to the deepest cell.
  const Raster depth = hazard_raster(*job_, f, HazardField::max_depth);
  double top = 0.0;
  for (double v : depth.values)
    if (!std::isnan(v)) top = std::max(top, v);
  top = top > 0.0 ? top : 1.0;
  const double show_min = std::max(job_->scene.hazard.wet_depth, 0.01 * top);
  write("report_max_depth.png",
        report_field_map(*job_, shade_, depth.values,
                         {show_min, top, ColourRamp::blues, "maximum depth", "m"}, t));
  // Hazard classes 1..4; class 0 (not flooded) shows the terrain.
  const Raster cls = hazard_raster(*job_, f, HazardField::hazard_class);
  PngImage map = render_map(s.grid, shade_, s.active, cls.values, 0.5, 4.0,
                            ColourRamp::hazard_classes, o.png_scale);
  draw_features(map, at, scene_features(s));
  std::vector<std::array<double, 3>> colours;
  for (int k = 1; k <= 4; ++k) colours.push_back(ramp_colour(ColourRamp::hazard_classes, k / 4.0));
  write("report_hazard_class.png",
        with_class_legend(framed_map(map, at), "flood hazard (HR, FD2320)",
                          {"low", "moderate", "significant", "extreme"}, colours, mpp));
  return written;
}

}  // namespace silt::io
