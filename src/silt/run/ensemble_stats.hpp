// Ensemble statistics per cell over the members' end-of-run maxima (docs/ensembles.md), computed
// on the host as NumPy computes them, so that a test compares them with NumPy on the members'
// rasters: mean, the population standard deviation (NumPy's std, ddof = 0), percentiles by
// NumPy's default 'linear' method (Hyndman and Fan's definition 7), and the probability that a
// member's value exceeds a threshold. A member's NaN (nodata: an inactive cell, a level where the
// member never wetted the cell) is left out as NumPy's nanmean, nanstd and nanpercentile leave it
// out; a cell where every member is NaN is NaN.
#pragma once

#include <cstddef>
#include <vector>

namespace silt::run {

/// values[m][c]: member m's value in cell c (NaN: none).
using MemberValues = std::vector<std::vector<double>>;

/// The same values without a copy: member[m] points at member m's `cells` values (the report
/// reads the members' maxima where their results hold them: 64 members of 1M cells are 512 MB).
struct MemberColumns {
  std::vector<const double*> member;
  std::size_t cells = 0;
};
/// Columns of `values`; silt::Error when a member has another number of values than the first.
MemberColumns columns_of(const MemberValues& values);

/// NumPy's percentile(sorted, p, method='linear'): position (n - 1) p / 100 between the sorted
/// values, interpolated as NumPy's _lerp does. sorted: at least one value, ascending.
double percentile_linear(const std::vector<double>& sorted, double p);

struct CellStats {
  std::vector<double> mean, std;                 // per cell (empty when not asked for)
  std::vector<std::vector<double>> percentiles;  // [k][c] for the k-th percentile asked for
};

/// Mean, standard deviation and percentiles of every cell over the members.
CellStats cell_stats(const MemberColumns& values, bool mean, bool std,
                     const std::vector<int>& percentiles);
CellStats cell_stats(const MemberValues& values, bool mean, bool std,
                     const std::vector<int>& percentiles);

/// The fraction of members whose value is greater than each threshold: [k][c] for threshold k,
/// over the members with a value in c (NaN where none has one).
std::vector<std::vector<double>> exceedance(const MemberColumns& values,
                                            const std::vector<double>& thresholds);
std::vector<std::vector<double>> exceedance(const MemberValues& values,
                                            const std::vector<double>& thresholds);

}  // namespace silt::run
