#include "silt/run/mpm_ensemble_report.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <limits>

#include "silt/io/atomic_file.hpp"
#include "silt/io/member_table_netcdf.hpp"
#include "silt/run/measure_table.hpp"

namespace silt::run {

namespace fs = std::filesystem;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// values[m][k]: member m's measure k (NaN for a member that did not finish).
MemberValues measure_values(const std::vector<MpmMemberResult>& results) {
  MemberValues v;
  for (const MpmMemberResult& r : results)
    v.push_back(r.done ? r.measures : std::vector<double>(measure_names().size(), kNaN));
  return v;
}

std::string measures_csv(const io::Ensemble& e, const std::vector<MpmMemberResult>& results) {
  std::string csv = "member,name,end_time_s,steps,particles,wall_s,rest_speed_m_s";
  for (const MeasureText& t : measure_names()) csv += "," + t.column();
  csv += ",settings\n";
  for (std::size_t m = 0; m < results.size(); ++m) {
    const MpmMemberResult& r = results[m];
    if (!r.done) continue;
    csv += fmt::format("{},{},{},{},{},{:.3f},{}", m, e.members[m].name, csv_number(r.time),
                       r.steps, r.particles, r.wall_s, csv_number(r.rest_speed));
    for (double v : r.measures) csv += "," + csv_number(v);
    csv += "," + quoted_settings(e.members[m]) + "\n";
  }
  return csv;
}

std::string energy_csv(const io::Ensemble& e, const std::vector<MpmMemberResult>& results) {
  std::string csv = "member,name,frame,time_s,kinetic_energy_J,rms_speed_m_s\n";
  for (std::size_t m = 0; m < results.size(); ++m) {
    const EnergySeries& s = results[m].energy;
    for (std::size_t k = 0; k < s.time.size(); ++k)
      csv += fmt::format("{},{},{},{},{},{}\n", m, e.members[m].name, k + 1, csv_number(s.time[k]),
                         csv_number(s.kinetic_energy[k]), csv_number(s.rms_speed[k]));
  }
  return csv;
}

io::MemberTable table_of(const io::Ensemble& e, const std::vector<MpmMemberResult>& results,
                         const MemberValues& v, const MeasureStats& s) {
  io::MemberTable t = measure_member_table(
      fmt::format("silt MPM ensemble '{}': per-member measures", e.path), e, measure_names(), v, s);
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
  const MeasureStats s = measure_stats(e.outputs, v);
  write("measures_stats.csv", measure_stats_csv(measure_names(), s));
  write("kinetic_energy.csv", energy_csv(e, results));
  if (e.measures.nc) {
    written.push_back((fs::path(out) / "measures.nc").string());
    io::write_member_table_nc(written.back(), table_of(e, results, v, s));
  }
  return written;
}

}  // namespace silt::run
