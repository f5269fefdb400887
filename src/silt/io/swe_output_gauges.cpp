// gauges.csv: one row per sample time, four columns per gauge.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "silt/core/error.hpp"
#include "silt/io/atomic_file.hpp"
#include "silt/io/swe_output.hpp"

namespace silt::io {

GaugeCsvWriter::GaugeCsvWriter(const SweJob& job, const std::string& out_dir, long keep_rows)
    : path_((std::filesystem::path(out_dir) / "gauges.csv").string()),
      gauges_(job.outputs.gauges.size()) {
  prepare_output_dir(out_dir);
  std::string text = "time_s";
  for (const auto& g : job.outputs.gauges)
    text += fmt::format(",{0}_h_m,{0}_u_m_s,{0}_v_m_s,{0}_c_kg_m3", g.name);
  text += '\n';
  if (keep_rows > 0) {
    // A restart: the rows written up to the checkpoint (complete lines only; a row cut by a
    // crash after the checkpoint is dropped with the rest).
    std::ifstream in(path_);
    std::string line;
    std::getline(in, line);  // header
    for (long r = 0; r < keep_rows && std::getline(in, line) && !in.eof(); ++r) text += line + '\n';
  }
  write_text_atomically(path_, text);
  file_ = std::fopen(path_.c_str(), "ab");
  if (!file_) throw Error(fmt::format("cannot write '{}': {}", path_, std::strerror(errno)));
}

GaugeCsvWriter::~GaugeCsvWriter() {
  if (file_) std::fclose(file_);
}

void GaugeCsvWriter::write(double t, const std::vector<swe::Probe>& probes) {
  if (probes.size() != gauges_)
    throw Error(fmt::format("'{}': {} probe values for {} gauges", path_, probes.size(), gauges_));
  // 10 significant digits for the time (a sum of intervals carries round-off in the last
  // digits), 9 for the values (exact for the float32 state, ample for float64).
  std::string row = fmt::format("{:.10g}", t);
  for (const auto& p : probes)
    row += fmt::format(",{:.9g},{:.9g},{:.9g},{:.9g}", p.h, p.u, p.v, p.c);
  row += '\n';
  const long before = std::ftell(file_);
  if (std::fputs(row.c_str(), file_) < 0 || std::fflush(file_) != 0) {
    const int err = errno;
    // A row is whole or absent: what reached the file of this one is cut off again.
    if (before >= 0 && ::ftruncate(::fileno(file_), before) == 0)
      std::fseek(file_, before, SEEK_SET);
    throw Error(fmt::format("cannot write '{}': {}", path_, std::strerror(err)));
  }
}

}  // namespace silt::io
