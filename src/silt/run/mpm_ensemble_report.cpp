#include "silt/run/mpm_ensemble_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "silt/io/atomic_file.hpp"
#include "silt/io/member_table_netcdf.hpp"
#include "silt/run/ensemble_stats.hpp"

namespace silt::run {

namespace fs = std::filesystem;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A number for CSV: every bit (17 digits), "nan" for none.
std::string number(double v) {
  return std::isnan(v) ? std::string("nan") : fmt::format("{:.17g}", v);
}

std::string quoted_settings(const io::EnsembleMember& m) {
  std::string settings;
  for (const std::string& a : m.settings) settings += (settings.empty() ? "" : " ") + a;
  std::string quoted;
  for (char c : settings) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return "\"" + quoted + "\"";
}

// values[m][k]: member m's measure k (NaN for a member that did not finish).
MemberValues measure_values(const std::vector<MpmMemberResult>& results) {
  MemberValues v;
  for (const MpmMemberResult& r : results)
    v.push_back(r.done ? r.measures : std::vector<double>(measure_names().size(), kNaN));
  return v;
}

std::string measures_csv(const io::Ensemble& e, const std::vector<MpmMemberResult>& results) {
  std::string csv = "member,name,end_time_s,steps,particles,wall_s,rest_speed_m_s";
  for (const MeasureText& t : measure_names()) csv += fmt::format(",{}_{}", t.name, t.units);
  csv += ",settings\n";
  for (std::size_t m = 0; m < results.size(); ++m) {
    const MpmMemberResult& r = results[m];
    if (!r.done) continue;
    csv += fmt::format("{},{},{},{},{},{:.3f},{}", m, e.members[m].name, number(r.time), r.steps,
                       r.particles, r.wall_s, number(r.rest_speed));
    for (double v : r.measures) csv += "," + number(v);
    csv += "," + quoted_settings(e.members[m]) + "\n";
  }
  return csv;
}

// The statistic names and values: mean, std, pNN (the columns of measures_stats.csv).
struct Stats {
  std::vector<std::string> names;
  std::vector<std::vector<double>> values;  // [statistic][measure]
};

Stats stats_of(const io::Ensemble& e, const MemberValues& v) {
  const CellStats s = cell_stats(v, e.outputs.mean, e.outputs.std, e.outputs.percentiles);
  Stats out;
  if (e.outputs.mean) {
    out.names.push_back("mean");
    out.values.push_back(s.mean);
  }
  if (e.outputs.std) {
    out.names.push_back("std");
    out.values.push_back(s.std);
  }
  for (std::size_t k = 0; k < e.outputs.percentiles.size(); ++k) {
    out.names.push_back(fmt::format("p{:02}", e.outputs.percentiles[k]));
    out.values.push_back(s.percentiles[k]);
  }
  return out;
}

std::string stats_csv(const Stats& s) {
  std::string csv = "measure,units";
  for (const std::string& n : s.names) csv += "," + n;
  csv += "\n";
  for (std::size_t k = 0; k < measure_names().size(); ++k) {
    csv += fmt::format("{},{}", measure_names()[k].name, measure_names()[k].units);
    for (const std::vector<double>& v : s.values) csv += "," + number(v[k]);
    csv += "\n";
  }
  return csv;
}

std::string energy_csv(const io::Ensemble& e, const std::vector<MpmMemberResult>& results) {
  std::string csv = "member,name,frame,time_s,kinetic_energy_J,rms_speed_m_s\n";
  for (std::size_t m = 0; m < results.size(); ++m) {
    const EnergySeries& s = results[m].energy;
    for (std::size_t k = 0; k < s.time.size(); ++k)
      csv += fmt::format("{},{},{},{},{},{}\n", m, e.members[m].name, k + 1, number(s.time[k]),
                         number(s.kinetic_energy[k]), number(s.rms_speed[k]));
  }
  return csv;
}

io::MemberTable table_of(const io::Ensemble& e, const std::vector<MpmMemberResult>& results,
                         const MemberValues& v, const Stats& s) {
  io::MemberTable t;
  t.title = fmt::format("silt MPM ensemble '{}': per-member measures", e.path);
  for (const io::EnsembleMember& m : e.members) t.members.push_back(m.name);
  const std::vector<MeasureText>& names = measure_names();
  for (std::size_t k = 0; k < names.size(); ++k) {
    io::MemberTable::Column c{names[k].name, names[k].units, names[k].long_name, {}};
    for (const std::vector<double>& row : v) c.values.push_back(row[k]);
    t.columns.push_back(std::move(c));
    for (std::size_t j = 0; j < s.names.size(); ++j) {
      const std::string& stat = s.names[j];
      t.statistics.push_back({fmt::format("{}_{}", names[k].name, stat), names[k].units,
                              fmt::format("{} of {} over the members", stat, names[k].long_name),
                              s.values[j][k]});
    }
  }
  io::MemberTable::Series time{"time", "s", "time of the frame", {}};
  io::MemberTable::Series ke{"kinetic_energy", "J", "kinetic energy of the frame", {}};
  io::MemberTable::Series rms{"rms_speed", "m s-1", "rms speed of the frame", {}};
  for (const MpmMemberResult& r : results) {
    time.values.push_back(r.energy.time);
    ke.values.push_back(r.energy.kinetic_energy);
    rms.values.push_back(r.energy.rms_speed);
  }
  t.series = {time, ke, rms};
  return t;
}

}  // namespace

std::vector<std::string> write_mpm_ensemble_report(const io::Ensemble& e,
                                                   const std::vector<MpmMemberResult>& results,
                                                   const std::string& out, bool complete) {
  std::vector<std::string> written;
  const auto write = [&](const std::string& name, const std::string& text) {
    written.push_back((fs::path(out) / name).string());
    io::write_text_atomically(written.back(), text);
  };
  write("measures.csv", measures_csv(e, results));
  if (!complete) return written;
  const MemberValues v = measure_values(results);
  const Stats s = stats_of(e, v);
  write("measures_stats.csv", stats_csv(s));
  write("kinetic_energy.csv", energy_csv(e, results));
  if (e.measures.nc) {
    written.push_back((fs::path(out) / "measures.nc").string());
    io::write_member_table_nc(written.back(), table_of(e, results, v, s));
  }
  return written;
}

}  // namespace silt::run
