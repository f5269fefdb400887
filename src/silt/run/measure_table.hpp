// The table of an ensemble's per-member measures (docs/ensembles.md, "Outputs" and "MPM sweeps"),
// shared by the shallow-water and MPM reports: the columns' names, a number as measures.csv
// writes it, each column's mean, standard deviation and percentiles over the members
// (measures_stats.csv; NumPy's nanmean, nanstd, nanpercentile 'linear', ensemble_stats.hpp) and
// the columns with their statistics as a CF NetCDF member table (measures.nc).
#pragma once

#include <string>
#include <vector>

#include "silt/io/ensemble_file.hpp"
#include "silt/io/member_table_netcdf.hpp"
#include "silt/run/ensemble_stats.hpp"

namespace silt::run {

struct MeasureText {
  std::string name;  // the variable of measures.nc and the row of measures_stats.csv
  std::string units;
  std::string long_name;
  std::string suffix = "";  // of the column of measures.csv ("": the units)
  /// The column of measures.csv: name_units ("outlet_max_depth_m", "runout_m").
  std::string column() const { return name + "_" + (suffix.empty() ? units : suffix); }
};

/// A number for CSV: every bit (17 digits), "nan" for none.
std::string csv_number(double v);
/// A member's settings ("manning*1.5 rainfall*0.5") as one quoted CSV field.
std::string quoted_settings(const io::EnsembleMember& m);

/// The statistics the ensemble asks for (outputs.mean, std, percentiles): their names ("mean",
/// "std", "p05", ...) and their values over the members, [statistic][measure].
struct MeasureStats {
  std::vector<std::string> names;
  std::vector<std::vector<double>> values;
};
/// v[m][k]: member m's measure k (NaN: none, left out).
MeasureStats measure_stats(const io::EnsembleOutputs& o, const MemberValues& v);
/// measures_stats.csv: "measure,units,<statistics>", a row per measure.
std::string measure_stats_csv(const std::vector<MeasureText>& names, const MeasureStats& s);

/// The member table of measures.nc: a column per measure over the members, a scalar per
/// statistic (no series).
io::MemberTable measure_member_table(const std::string& title, const io::Ensemble& e,
                                     const std::vector<MeasureText>& names, const MemberValues& v,
                                     const MeasureStats& s);

}  // namespace silt::run
