// A table over an ensemble's members in one CF-1.8 NetCDF file (an MPM ensemble's measures.nc,
// docs/ensembles.md): a `member` dimension (standard name realization) with the members' names as
// labels, one variable over (member) per column, scalar variables for the columns' statistics
// over the members, and series over (member, frame) padded with NaN where a member has fewer
// frames (one that came to rest earlier).
#pragma once

#include <string>
#include <vector>

namespace silt::io {

struct MemberTable {
  struct Column {
    std::string name, units, long_name;
    std::vector<double> values;  // one per member (NaN: none)
  };
  // A scalar: CF's cell_methods name only a variable's own dimensions, so the statistic is in
  // long_name.
  struct Statistic {
    std::string name, units, long_name;  // "mean of ... over the members"
    double value = 0;
  };
  struct Series {
    std::string name, units, long_name;
    std::vector<std::vector<double>> values;  // [member][frame]
  };
  std::string title;
  std::vector<std::string> members;  // names
  std::vector<Column> columns;
  std::vector<Statistic> statistics;
  std::vector<Series> series;
};

/// Writes `t` to `path` (NetCDF-4). Errors name the file (and a full disk); a build without
/// netCDF-C says so.
void write_member_table_nc(const std::string& path, const MemberTable& t);

}  // namespace silt::io
