#include "silt/run/ensemble_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "silt/core/error.hpp"
#include "silt/io/atomic_file.hpp"
#include "silt/io/image/map.hpp"
#include "silt/io/netcdf_axis.hpp"
#include "silt/io/raster/raster.hpp"
#include "silt/io/swe/output.hpp"
#include "silt/run/measure_table.hpp"
#include "silt/run/swe_measures.hpp"

namespace silt::run {

namespace fs = std::filesystem;

namespace {

constexpr const char* kHazardClassNames[] = {"low", "moderate", "significant", "extreme"};

struct FieldText {
  const char* units;
  const char* what;           // "maximum water depth over the run"
  const char* standard_name;  // of a member's value ("" : none)
};

FieldText text_of(io::EnsembleField f) {
  switch (f) {
    case io::EnsembleField::max_depth:
      return {"m", "maximum water depth over the run", "flood_water_thickness"};
    case io::EnsembleField::max_speed:
      return {"m s-1", "maximum flow speed over the run", "flood_water_speed"};
    default:
      return {"m", "maximum water level (bed + depth) over the run, where wet", ""};
  }
}

// The maps of the report: 2D rasters, written as files of every format and as (y, x) variables.
struct Maps {
  io::Raster base;
  std::vector<io::Raster> maps;
  void add(const std::string& name, const std::string& units, const std::string& long_name,
           std::vector<double> values) {
    io::Raster r = base;
    r.variable = name;
    r.units = units;
    r.long_name = long_name;
    r.values = std::move(values);
    maps.push_back(std::move(r));
  }
};

MemberValues member_values(const std::vector<MemberResult>& results, std::size_t field) {
  MemberValues v;
  for (const MemberResult& r : results) v.push_back(r.maxima[field]);
  return v;
}

// The members' values of one array of their results (`of`: a field's maxima, the hazard
// classes) where the results hold them: no copy.
template <class Of>
MemberColumns member_columns(const std::vector<MemberResult>& results, Of of) {
  MemberColumns v;
  for (std::size_t m = 0; m < results.size(); ++m) {
    const std::vector<double>& x = of(results[m]);
    if (m == 0) v.cells = x.size();
    if (x.size() != v.cells)
      throw Error(fmt::format("ensemble report: member {} has {} values, member 0 has {}", m,
                              x.size(), v.cells));
    v.member.push_back(x.data());
  }
  return v;
}

void add_field_stats(Maps& maps, const io::EnsembleOutputs& o, io::EnsembleField f,
                     const MemberColumns& v) {
  const std::string name = io::to_string(f);
  const FieldText t = text_of(f);
  const CellStats s = cell_stats(v, o.mean, o.std, o.percentiles);
  if (o.mean)
    maps.add(name + "_mean", t.units, std::string("ensemble mean of the ") + t.what, s.mean);
  if (o.std)
    maps.add(name + "_std", t.units,
             std::string("ensemble standard deviation (population, ddof = 0) of the ") + t.what,
             s.std);
  for (std::size_t k = 0; k < o.percentiles.size(); ++k)
    maps.add(fmt::format("{}_p{:02}", name, o.percentiles[k]), t.units,
             fmt::format("ensemble {}th percentile (linear, as NumPy) of the {}", o.percentiles[k],
                         t.what),
             s.percentiles[k]);
}

std::string depth_name(double d) {
  return fmt::format("p_depth_above_{:g}m", d);
}

// Every map in each raster format (the .prj beside ESRI ASCII), atomically.
void write_map_files(const Maps& maps, const io::EnsembleOutputs& o, const std::string& out,
                     std::vector<std::string>& written) {
  const std::string prj = maps.base.crs_wkt.empty() ? "" : io::crs_to_prj(maps.base.crs_wkt);
  for (const io::Raster& r : maps.maps)
    for (io::RasterFormat format : o.formats) {
      if (format == io::RasterFormat::nc) continue;
      const std::string path =
          (fs::path(out) / (r.variable + "." + io::extension_of(format))).string();
      io::write_atomically(path, [&](const std::string& tmp) { io::write_raster(tmp, r, format); });
      written.push_back(path);
      if (format == io::RasterFormat::asc && !prj.empty()) {
        io::write_text_atomically(io::prj_path_of(path), prj);
        written.push_back(io::prj_path_of(path));
      }
    }
}

// The probability maps as report PNGs (io/swe/output.hpp, report_field_map): report_<map>.png
// over the terrain, from 0 (the terrain shows) to every member, when the scene asks for PNG maps
// and this build writes PNG.
void write_probability_pngs(const io::SweJob& job, const Maps& maps, std::size_t members,
                            const std::string& out, std::vector<std::string>& written) {
  if (job.outputs.png == io::PngMap::none || !io::png_available()) return;
  const std::vector<float> shade = io::hillshade(job.scene.grid, job.scene.bed, job.scene.active);
  for (const io::Raster& r : maps.maps) {
    const bool depth = r.variable.rfind("p_depth_above_", 0) == 0;
    if (!depth && r.variable.rfind("p_hazard_", 0) != 0) continue;
    const std::string what =
        depth ? fmt::format("max depth > {}", r.variable.substr(14, r.variable.size() - 15) + " m")
              : "hazard " + r.variable.substr(9) + " or worse";
    const io::ReportScale scale{0.5 / double(std::max<std::size_t>(members, 1)), 1.0,
                                io::ColourRamp::heat, "share of members: " + what, ""};
    const std::string path = (fs::path(out) / ("report_" + r.variable + ".png")).string();
    io::write_atomically(path, [&](const std::string& tmp) {
      io::write_png(tmp, io::report_field_map(job, shade, r.values, scale, job.run.end_time));
    });
    written.push_back(path);
  }
}

// ensemble.nc: the 2D maps (the depth exceedances along depth_threshold instead), then every
// member's maxima along `member`.
void write_netcdf(const Maps& maps, const std::vector<std::vector<double>>& above,
                  const io::Ensemble& e, const std::vector<MemberResult>& results,
                  const std::string& path) {
  io::RasterSeries s;
  s.grid = maps.base;
  for (const io::Raster& r : maps.maps)
    if (r.variable.rfind("p_depth_above_", 0) != 0) s.statics.push_back(r);
  std::vector<std::vector<double>> values;
  for (const io::Raster& r : s.statics) values.push_back(r.values);
  io::write_atomically(path, [&](const std::string& tmp) {
    io::create_netcdf_series(tmp, s);
    io::write_netcdf_statics(tmp, s, values);
    io::NetcdfAxis member;
    member.name = "member";
    member.units = "1";
    member.standard_name = "realization";
    member.long_name = "ensemble member (the row of members.csv)";
    member.integer = true;
    std::vector<io::Raster> vars;
    std::vector<std::vector<std::vector<double>>> per_member;
    for (std::size_t m = 0; m < e.members.size(); ++m) {
      member.values.push_back(double(m));
      member.labels.push_back(e.members[m].name);
    }
    for (std::size_t fi = 0; fi < e.outputs.fields.size(); ++fi) {
      const FieldText t = text_of(e.outputs.fields[fi]);
      io::Raster r = maps.base;
      r.variable = "member_" + io::to_string(e.outputs.fields[fi]);
      r.units = t.units;
      r.standard_name = t.standard_name;
      r.long_name = std::string("each member's ") + t.what;
      r.cell_methods = "time: maximum";
      vars.push_back(r);
      per_member.push_back(member_values(results, fi));
    }
    if (e.outputs.hazard_classes) {
      io::Raster r = maps.base;
      r.variable = "member_hazard_class";
      r.units = "1";
      r.long_name =
          "each member's flood hazard class of its maximum hazard rating (0 not flooded, 1 low, 2 "
          "moderate, 3 significant, 4 extreme)";
      vars.push_back(r);
      MemberValues classes;
      for (const MemberResult& m : results) classes.push_back(m.hazard_class);
      per_member.push_back(std::move(classes));
    }
    io::add_netcdf_axis(tmp, s, member, vars, per_member);
    if (above.empty()) return;
    io::NetcdfAxis depth;
    depth.name = "depth_threshold";
    depth.units = "m";
    depth.long_name = "depth the maximum water depth is compared with";
    depth.values = e.outputs.exceedance_depths;
    io::Raster p = maps.base;
    p.variable = "p_depth_above";
    p.units = "1";
    p.long_name = "fraction of the members whose maximum water depth exceeds depth_threshold";
    io::add_netcdf_axis(tmp, s, depth, {p}, {above});
  });
}

// measures.csv (a row per member: member, name, its measures), measures_stats.csv and, with
// "nc" among the formats, measures.nc (swe_measures.hpp, measure_table.hpp).
void write_measures(const io::SweJob& job, const io::Ensemble& e,
                    const std::vector<MemberResult>& results, const std::string& out,
                    std::vector<std::string>& written) {
  const std::vector<MeasureText> names = swe_measure_names(job, members_track_hazard(e.outputs));
  std::string csv = "member,name";
  for (const MeasureText& t : names) csv += "," + t.column();
  csv += "\n";
  MemberValues v;
  for (std::size_t m = 0; m < results.size(); ++m) {
    if (results[m].measures.size() != names.size())  // check_members() makes them alike
      throw Error(fmt::format("{}: {} measures for {} columns of measures.csv", member_where(e, m),
                              results[m].measures.size(), names.size()));
    csv += fmt::format("{},{}", m, e.members[m].name);
    for (double x : results[m].measures) csv += "," + csv_number(x);
    csv += "\n";
    v.push_back(results[m].measures);
  }
  const MeasureStats s = measure_stats(e.outputs, v);
  const auto write = [&](const std::string& name, const std::string& text) {
    written.push_back((fs::path(out) / name).string());
    io::write_text_atomically(written.back(), text);
  };
  write("measures.csv", csv);
  write("measures_stats.csv", measure_stats_csv(names, s));
  if (std::count(e.outputs.formats.begin(), e.outputs.formats.end(), io::RasterFormat::nc) == 0)
    return;
  written.push_back((fs::path(out) / "measures.nc").string());
  const std::string title = fmt::format("silt ensemble '{}': per-member measures", e.path);
  io::write_member_table_nc(written.back(), measure_member_table(title, e, names, v, s));
}

}  // namespace

std::vector<std::string> write_ensemble_report(const io::SweJob& grid, const io::Ensemble& e,
                                               const std::vector<MemberResult>& results,
                                               const std::string& out) {
  const io::EnsembleOutputs& o = e.outputs;
  Maps maps{io::output_grid(grid), {}};
  std::vector<std::vector<double>> above;
  for (std::size_t fi = 0; fi < o.fields.size(); ++fi) {
    const MemberColumns v = member_columns(
        results,
        [fi](const MemberResult& r) -> const std::vector<double>& { return r.maxima[fi]; });
    add_field_stats(maps, o, o.fields[fi], v);
    if (o.fields[fi] != io::EnsembleField::max_depth) continue;
    above = exceedance(v, o.exceedance_depths);
    for (std::size_t k = 0; k < above.size(); ++k)
      maps.add(depth_name(o.exceedance_depths[k]), "1",
               fmt::format("fraction of the members whose maximum water depth exceeds {} m",
                           o.exceedance_depths[k]),
               above[k]);
  }
  if (o.hazard_classes) {
    // Class c or worse: the class value above c - 0.5 (0 never flooded, 1 low .. 4 extreme).
    const auto classes = [](const MemberResult& r) -> const std::vector<double>& {
      return r.hazard_class;
    };
    const auto p = exceedance(member_columns(results, classes), {0.5, 1.5, 2.5, 3.5});
    for (std::size_t c = 0; c < 4; ++c)
      maps.add(fmt::format("p_hazard_{}", kHazardClassNames[c]), "1",
               fmt::format("fraction of the members whose flood hazard class (of the maximum "
                           "hazard rating) is {} or worse",
                           kHazardClassNames[c]),
               p[c]);
  }
  std::vector<std::string> written;
  write_map_files(maps, o, out, written);
  write_probability_pngs(grid, maps, results.size(), out, written);
  for (io::RasterFormat f : o.formats)
    if (f == io::RasterFormat::nc) {
      const std::string path = (fs::path(out) / "ensemble.nc").string();
      write_netcdf(maps, above, e, results, path);
      written.push_back(path);
    }
  write_measures(grid, e, results, out, written);
  write_members_csv(e, results, out);
  written.push_back((fs::path(out) / "members.csv").string());
  return written;
}

void write_members_csv(const io::Ensemble& e, const std::vector<MemberResult>& results,
                       const std::string& out) {
  std::string csv = "member,name,end_time_s,steps,wall_s,settings\n";
  for (std::size_t m = 0; m < e.members.size(); ++m) {
    const MemberResult& r = results[m];
    csv += fmt::format("{},{},{:.9g},{},{:.3f},{}\n", m, e.members[m].name, r.time, r.steps,
                       r.wall_s, quoted_settings(e.members[m]));
  }
  io::write_text_atomically((fs::path(out) / "members.csv").string(), csv);
}

}  // namespace silt::run
