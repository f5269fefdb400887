// ESRI ASCII grid (Arc/Info ASCII, .asc): a header of "key value" lines (ncols, nrows,
// xllcorner|xllcenter, yllcorner|yllcenter, cellsize, optional NODATA_value) followed by nrows
// rows of ncols numbers, the northern row first; its CRS, when known, is in a .prj file of the
// same name beside it (as GDAL's AAIGrid driver reads and writes it). Our own code so that plain
// builds without GDAL still read DEMs and write outputs.
#include <fmt/format.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/io/memory_limit.hpp"
#include "silt/io/raster/raster.hpp"
#include "silt/io/scene_text.hpp"

namespace silt::io {

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Cursor over the file text that knows the current line for messages.
struct Cursor {
  const std::string& text;
  size_t pos = 0;
  int line = 1;
  void skip_space() {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) {
      if (text[pos] == '\n') ++line;
      ++pos;
    }
  }
  std::string token() {
    skip_space();
    const size_t b = pos;
    while (pos < text.size() && !std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    return text.substr(b, pos - b);
  }
  bool at_end() {
    skip_space();
    return pos >= text.size();
  }
};

bool to_double(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && errno != ERANGE;
}

}  // namespace

Raster read_ascii_grid(const std::string& path) {
  // The text and, after it, the values (8 B each for at least 2 B of text each) must fit.
  Raster r = parse_ascii_grid(
      read_text_file(path, "ESRI ASCII raster", memory_limit_bytes() / (1 + 8.0 / 2)), path);
  // The .prj beside it (GDAL looks for <stem>.prj, then <stem>.PRJ).
  for (const char* ext : {".prj", ".PRJ"}) {
    const std::string prj = std::filesystem::path(path).replace_extension(ext).string();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(prj, ec)) continue;
    r.crs_wkt = prj_to_crs(read_text_file(prj, "ESRI .prj (CRS)", 1 << 20), prj);
    break;
  }
  return r;
}

Raster parse_ascii_grid(const std::string& text, const std::string& path) {
  Cursor cur{text};
  std::map<std::string, double> header;
  // Header lines until the first token that is a number (the first data value).
  for (;;) {
    const size_t save_pos = cur.pos;
    const int save_line = cur.line;
    const std::string key = cur.token();
    double probe;
    if (key.empty() || to_double(key, probe)) {
      cur.pos = save_pos;
      cur.line = save_line;
      break;
    }
    const std::string value = cur.token();
    double v;
    if (!to_double(value, v))
      throw Error(
          fmt::format("{}:{}: ESRI ASCII header '{}' has a value that is not a number: '{}'", path,
                      cur.line, excerpt(key), excerpt(value)));
    header[lower(key)] = v;
  }
  auto need = [&](const char* a, const char* b) -> std::pair<double, bool> {
    if (header.count(a)) return {header[a], false};
    if (b && header.count(b)) return {header[b], true};
    throw Error(fmt::format("{}: not an ESRI ASCII grid: header key '{}' is missing", path,
                            b ? fmt::format("{}' or '{}", a, b) : std::string(a)));
  };
  Raster r;
  const double ncols = need("ncols", nullptr).first, nrows = need("nrows", nullptr).first;
  if (!(ncols >= 1 && nrows >= 1 && ncols == std::floor(ncols) && nrows == std::floor(nrows) &&
        ncols * nrows < 2147483647.0))
    throw Error(fmt::format("{}: bad grid size ncols = {}, nrows = {}", path, ncols, nrows));
  // Bounded before the values are allocated: by memory, and by the data the file holds.
  const double cells = ncols * nrows;
  if (!fits_in_memory(cells, sizeof(double)))
    throw Error(fmt::format("{}: header ncols = {}, nrows = {}: {:.0f} cells {}", path, ncols,
                            nrows, cells, memory_text(cells, sizeof(double))));
  // n values take at least 2 n - 1 bytes (a character and a separator each). A file too short for
  // its header is read without storing, to say where it ends.
  const bool can_hold = double(text.size() - cur.pos) >= 2 * cells - 1;
  r.nx = static_cast<Index>(ncols);
  r.ny = static_cast<Index>(nrows);
  if (header.count("dx") || header.count("dy")) {
    // GDAL writes dx/dy instead of cellsize for non-square cells.
    if (!header.count("dx") || !header.count("dy") || header["dx"] != header["dy"])
      throw Error(
          fmt::format("{}: non-square cells (dx = {}, dy = {}); silt needs square cells: "
                      "resample the raster (e.g. gdalwarp -tr)",
                      path, header["dx"], header["dy"]));
    header["cellsize"] = header["dx"];
  }
  r.dx = need("cellsize", nullptr).first;
  if (!(r.dx > 0) || !std::isfinite(r.dx))
    throw Error(fmt::format("{}: cellsize must be a finite number > 0, got {}", path, r.dx));
  const auto [x, x_center] = need("xllcorner", "xllcenter");
  const auto [y, y_center] = need("yllcorner", "yllcenter");
  if (!std::isfinite(x) || !std::isfinite(y))
    throw Error(fmt::format("{}: the lower-left corner ({}, {}) is not finite", path, x, y));
  r.x0 = x_center ? x - 0.5 * r.dx : x;
  r.y0 = y_center ? y - 0.5 * r.dx : y;
  r.nodata = header.count("nodata_value") ? header["nodata_value"] : -9999.0;

  if (can_hold) r.values.assign(static_cast<size_t>(r.cells()), 0.0);
  const char* p = text.c_str() + cur.pos;
  const char* end = text.c_str() + text.size();
  int line = cur.line;
  for (Index row = 0; row < r.ny; ++row) {
    const Index j = r.ny - 1 - row;  // file rows run north to south
    for (Index i = 0; i < r.nx; ++i) {
      while (p < end && std::isspace(static_cast<unsigned char>(*p))) {
        if (*p == '\n') ++line;
        ++p;
      }
      if (p >= end)
        throw Error(
            fmt::format("{}: truncated: expected {} x {} = {} values, found {} (data row "
                        "{} of {} has {} of {} values)",
                        path, r.nx, r.ny, r.cells(), row * r.nx + i, row + 1, r.ny, i, r.nx));
      char* stop = nullptr;
      const double v = std::strtod(p, &stop);
      if (stop == p || (stop < end && !std::isspace(static_cast<unsigned char>(*stop)))) {
        const char* e = p;
        while (e < end && !std::isspace(static_cast<unsigned char>(*e))) ++e;
        throw Error(fmt::format("{}:{}: '{}' is not a number (data row {}, column {})", path, line,
                                excerpt(std::string_view(p, size_t(e - p))), row + 1, i + 1));
      }
      if (can_hold) r.values[static_cast<size_t>(j) * r.nx + i] = v;
      p = stop;
    }
  }
  SILT_REQUIRE(can_hold, fmt::format("{}: {} values read from fewer bytes", path, r.cells()));
  while (p < end && std::isspace(static_cast<unsigned char>(*p))) ++p;
  if (p < end)
    throw Error(fmt::format("{}: more values than ncols x nrows = {} x {}; check the header", path,
                            r.nx, r.ny));
  return r;
}

namespace {

/// Rows [row0, row1) of the file (the northern row first) as text: the shortest text that reads
/// back to the same float (or double, for float64 output) keeps files small and exact at the
/// chosen precision.
void format_rows(const Raster& r, Index row0, Index row1, std::string& out) {
  out.clear();
  for (Index row = row0; row < row1; ++row) {
    const Index j = r.ny - 1 - row;
    for (Index i = 0; i < r.nx; ++i) {
      const Index k = j * r.nx + i;
      const double v = r.is_nodata(k) ? r.nodata : r.values[size_t(k)];
      if (i) out += ' ';
      if (r.type == ValueType::f64)
        fmt::format_to(std::back_inserter(out), "{}", v);
      else
        fmt::format_to(std::back_inserter(out), "{}", static_cast<float>(v));
    }
    out += '\n';
  }
}

}  // namespace

void write_ascii_grid(const std::string& path, const Raster& r) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  bool ok = true;
  int err = 0;  // errno of the first call that failed (read later, it would be a stale one)
  auto put = [&](const std::string& text) {
    if (ok && std::fwrite(text.data(), 1, text.size(), f) != text.size()) {
      ok = false;
      err = errno;
    }
  };
  // Shortest text that reads back to the same double; the file is ours to keep exact.
  put(fmt::format("ncols {}\nnrows {}\nxllcorner {}\nyllcorner {}\ncellsize {}\nNODATA_value {}\n",
                  r.nx, r.ny, r.x0, r.y0, r.dx, r.nodata));
  // Text is most of the cost (~200 ns a value on one core, 16.8M values a frame on a large
  // flood grid): slabs of rows are formatted on all threads, a window of them at a time, and
  // written in order, so memory stays at the window's text instead of the whole file's.
  const Index rows_per_slab = std::max<Index>(1, 65536 / std::max<Index>(1, r.nx));
  const Index slabs = (r.ny + rows_per_slab - 1) / rows_per_slab;
#ifdef _OPENMP
  const int threads = slabs > 1 ? omp_get_max_threads() : 1;
#else
  const int threads = 1;  // a build without OpenMP (the fuzz targets' readers)
#endif
  const Index window = 2 * Index(threads);
  std::vector<std::string> text(static_cast<size_t>(std::min(window, std::max<Index>(slabs, 1))));
  bool out_of_memory = false;
  for (Index s0 = 0; s0 < slabs && ok && !out_of_memory; s0 += window) {
    const Index s1 = std::min(slabs, s0 + window);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (s1 - s0 > 1)
    for (Index s = s0; s < s1; ++s) {
      try {
        format_rows(r, s * rows_per_slab, std::min(r.ny, (s + 1) * rows_per_slab),
                    text[size_t(s - s0)]);
      } catch (const std::bad_alloc&) {
#pragma omp atomic write
        out_of_memory = true;
      }
    }
    if (!out_of_memory)
      for (Index s = s0; s < s1; ++s) put(text[size_t(s - s0)]);
  }
  if (out_of_memory) {
    std::fclose(f);
    throw Error(fmt::format("cannot write '{}': out of memory formatting its text", path));
  }
  const bool closed = std::fclose(f) == 0;
  if (!closed && err == 0) err = errno;
  if (!closed || !ok)
    throw Error(fmt::format("cannot write '{}': {}", path, std::strerror(err ? err : EIO)));
}

}  // namespace silt::io
