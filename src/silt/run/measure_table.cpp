#include "silt/run/measure_table.hpp"

#include <fmt/format.h>

#include <cmath>

namespace silt::run {

std::string csv_number(double v) {
  return std::isnan(v) ? std::string("nan") : fmt::format("{:.17g}", v);
}

std::string quoted_settings(const io::EnsembleMember& m) {
  std::string settings;
  for (const std::string& a : m.settings) settings += (settings.empty() ? "" : " ") + a;
  std::string quoted;
  for (char c : settings) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return "\"" + quoted + "\"";
}

MeasureStats measure_stats(const io::EnsembleOutputs& o, const MemberValues& v) {
  const CellStats s = cell_stats(v, o.mean, o.std, o.percentiles);
  MeasureStats out;
  if (o.mean) {
    out.names.push_back("mean");
    out.values.push_back(s.mean);
  }
  if (o.std) {
    out.names.push_back("std");
    out.values.push_back(s.std);
  }
  for (std::size_t k = 0; k < o.percentiles.size(); ++k) {
    out.names.push_back(fmt::format("p{:02}", o.percentiles[k]));
    out.values.push_back(s.percentiles[k]);
  }
  return out;
}

std::string measure_stats_csv(const std::vector<MeasureText>& names, const MeasureStats& s) {
  std::string csv = "measure,units";
  for (const std::string& n : s.names) csv += "," + n;
  csv += "\n";
  for (std::size_t k = 0; k < names.size(); ++k) {
    csv += fmt::format("{},{}", names[k].name, names[k].units);
    for (const std::vector<double>& v : s.values) csv += "," + csv_number(v[k]);
    csv += "\n";
  }
  return csv;
}

io::MemberTable measure_member_table(const std::string& title, const io::Ensemble& e,
                                     const std::vector<MeasureText>& names, const MemberValues& v,
                                     const MeasureStats& s) {
  io::MemberTable t;
  t.title = title;
  for (const io::EnsembleMember& m : e.members) t.members.push_back(m.name);
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
  return t;
}

}  // namespace silt::run
