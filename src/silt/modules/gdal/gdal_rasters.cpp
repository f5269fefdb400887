// GeoTIFF and CF NetCDF through GDAL: the body of silt's GDAL module (libsilt_gdal.so, module.cpp
// hands these functions to the core, src/silt/io/raster/gdal.cpp), so that only runs that read or
// write a GDAL format load GDAL.
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <fmt/format.h>
#include <gdal_priv.h>
#include <ogr_spatialref.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "silt/core/error.hpp"
#include "silt/io/disk_space.hpp"
#include "silt/io/memory_limit.hpp"
#include "silt/io/raster/raster.hpp"

namespace silt::io {

namespace {

void register_gdal() {
  static std::once_flag once;
  std::call_once(once, [] { GDALAllRegister(); });
}

// GDAL reports errors through a handler that prints to stderr; we turn them into our messages.
struct QuietErrors {
  QuietErrors() {
    CPLPushErrorHandler(CPLQuietErrorHandler);
    CPLErrorReset();
  }
  ~QuietErrors() { CPLPopErrorHandler(); }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;
};

// Bytes a GeoTIFF or NetCDF file holds besides its values, at most (tags, HDF5 superblock and
// object headers, attributes): whole files of a 400 x 60 depth field are 17 KB (NetCDF) and
// 1-1.5 KB (GeoTIFF), compressed; 64 KB leaves room for larger attributes.
constexpr std::uintmax_t kHeaderBytes = 64 * 1024;

std::string last_error(const char* fallback) {
  const char* m = CPLGetLastErrorMsg();
  return (m && *m) ? std::string(m) : std::string(fallback);
}

void set_crs(GDALDataset& ds, GDALMDArray* array, const std::string& wkt, const std::string& path) {
  if (wkt.empty()) return;
  OGRSpatialReference srs;
  srs.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
  if (srs.SetFromUserInput(wkt.c_str()) != OGRERR_NONE)
    throw Error(fmt::format("cannot write '{}': the coordinate reference system is not valid: {}",
                            path, last_error(wkt.c_str())));
  if (array)
    array->SetSpatialRef(&srs);
  else
    ds.SetSpatialRef(&srs);
}

// Whether CF has a grid mapping for the CRS wkt (CF 1.8 appendix F, the names cfchecks accepts):
// geographic, or one of the projections GDAL's netCDF driver writes under a CF
// grid_mapping_name. Any other (an equirectangular local grid, say) GDAL would write under a name
// of its own, which is not CF.
bool has_cf_grid_mapping(const std::string& wkt) {
  OGRSpatialReference srs;
  if (srs.SetFromUserInput(wkt.c_str()) != OGRERR_NONE) return false;
  if (srs.IsGeographic()) return true;
  const char* p = srs.GetAttrValue("PROJECTION");
  if (!p) return false;
  static const char* const cf[] = {SRS_PT_ALBERS_CONIC_EQUAL_AREA,
                                   SRS_PT_AZIMUTHAL_EQUIDISTANT,
                                   SRS_PT_LAMBERT_AZIMUTHAL_EQUAL_AREA,
                                   SRS_PT_LAMBERT_CONFORMAL_CONIC_1SP,
                                   SRS_PT_LAMBERT_CONFORMAL_CONIC_2SP,
                                   SRS_PT_POLAR_STEREOGRAPHIC,
                                   SRS_PT_STEREOGRAPHIC,
                                   SRS_PT_OBLIQUE_STEREOGRAPHIC,
                                   SRS_PT_TRANSVERSE_MERCATOR,
                                   SRS_PT_MERCATOR_1SP,
                                   SRS_PT_MERCATOR_2SP,
                                   SRS_PT_ORTHOGRAPHIC,
                                   SRS_PT_CYLINDRICAL_EQUAL_AREA,
                                   SRS_PT_GEOSTATIONARY_SATELLITE,
                                   SRS_PT_HOTINE_OBLIQUE_MERCATOR,
                                   SRS_PT_SINUSOIDAL};
  for (const char* name : cf)
    if (EQUAL(p, name)) return true;
  return false;
}

// Values north row first (T = float or double), nodata written as the nodata value.
template <class T>
std::vector<T> north_first(const Raster& r) {
  std::vector<T> out(static_cast<size_t>(r.cells()));
  for (Index row = 0; row < r.ny; ++row) {
    const Index j = r.ny - 1 - row;
    for (Index i = 0; i < r.nx; ++i) {
      const Index k = j * r.nx + i;
      out[static_cast<size_t>(row) * r.nx + i] =
          static_cast<T>(r.is_nodata(k) ? r.nodata : r.values[static_cast<size_t>(k)]);
    }
  }
  return out;
}

GDALDataType gdal_type(const Raster& r) {
  return r.type == ValueType::f64 ? GDT_Float64 : r.type == ValueType::u8 ? GDT_Byte : GDT_Float32;
}

void write_geotiff(const std::string& path, const Raster& r) {
  GDALDriver* drv = GetGDALDriverManager()->GetDriverByName("GTiff");
  if (!drv) throw Error(fmt::format("cannot write '{}': GDAL has no GTiff driver", path));
  CPLStringList opts;
  opts.AddNameValue("COMPRESS", "DEFLATE");
  // Floating-point predictor: smaller files for smooth fields (none for classes).
  if (r.type != ValueType::u8) opts.AddNameValue("PREDICTOR", "3");
  opts.AddNameValue("BIGTIFF", "IF_SAFER");
  GDALDatasetUniquePtr ds(drv->Create(path.c_str(), r.nx, r.ny, 1, gdal_type(r), opts.List()));
  if (!ds)
    throw Error(fmt::format("cannot write '{}': {}", path, last_error("GTiff create failed")));
  double gt[6] = {r.x0, r.dx, 0.0, r.y0 + r.ny * r.dx, 0.0, -r.dx};
  ds->SetGeoTransform(gt);
  set_crs(*ds, nullptr, r.crs_wkt, path);
  GDALRasterBand* band = ds->GetRasterBand(1);
  band->SetNoDataValue(r.nodata);
  if (!r.variable.empty()) band->SetDescription(r.variable.c_str());
  if (!r.units.empty()) band->SetUnitType(r.units.c_str());
  if (r.time >= 0) ds->SetMetadataItem("TIME_S", fmt::format("{}", r.time).c_str());
  bool ok;
  if (r.type != ValueType::f32) {  // float64, or bytes converted from it by GDAL
    std::vector<double> buf = north_first<double>(r);
    ok = band->RasterIO(GF_Write, 0, 0, r.nx, r.ny, buf.data(), r.nx, r.ny, GDT_Float64, 0, 0,
                        nullptr) == CE_None;
  } else {
    std::vector<float> buf = north_first<float>(r);
    ok = band->RasterIO(GF_Write, 0, 0, r.nx, r.ny, buf.data(), r.nx, r.ny, GDT_Float32, 0, 0,
                        nullptr) == CE_None;
  }
  if (!ok) throw Error(fmt::format("cannot write '{}': {}", path, last_error("write failed")));
}

std::string time_units(const Raster& r) {
  return "seconds since " +
         (r.time_reference.empty() ? std::string("1970-01-01 00:00:00") : r.time_reference);
}

// A CF NetCDF file (dimensions time, y, x; coordinates; one variable per field) through GDAL's
// multidimensional API, so that the file carries x/y coordinates in metres
// (projection_x/y_coordinate) and GDAL's CF grid mapping of the CRS; GDAL's classic CreateCopy
// would label a grid without a CRS as lon/lat degrees. frames = 0: an unlimited time axis, empty.
struct NcFile {
  GDALDatasetUniquePtr ds;
  std::shared_ptr<GDALMDArray> time;
  std::vector<std::shared_ptr<GDALMDArray>> vars;
};

NcFile create_nc(const std::string& path, const Raster& r, const std::vector<const Raster*>& fields,
                 GUInt64 frames, const std::vector<const Raster*>& statics = {}) {
  GDALDriver* drv = GetGDALDriverManager()->GetDriverByName("netCDF");
  if (!drv) throw Error(fmt::format("cannot write '{}': GDAL has no netCDF driver", path));
  CPLStringList ds_opts;
  ds_opts.AddNameValue("FORMAT", "NC4");
  NcFile nc;
  nc.ds.reset(drv->CreateMultiDimensional(path.c_str(), nullptr, ds_opts.List()));
  if (!nc.ds) throw Error(fmt::format("cannot write '{}': {}", path, last_error("create failed")));
  auto root = nc.ds->GetRootGroup();
  const auto f64 = GDALExtendedDataType::Create(GDT_Float64);
  const auto str = GDALExtendedDataType::CreateString();
  auto text_attr = [&](const std::shared_ptr<GDALMDArray>& a, const char* k, const std::string& v) {
    if (auto at = a->CreateAttribute(k, {}, str)) at->Write(v.c_str());
  };
  CPLStringList unlimited;
  if (frames == 0) unlimited.AddNameValue("UNLIMITED", "YES");
  // Statics alone (the hazard rasters of a run written a file per frame): no time axis.
  const bool timed = !fields.empty() || statics.empty();
  std::shared_ptr<GDALDimension> dim_t;
  if (timed)
    dim_t = root->CreateDimension("time", GDAL_DIM_TYPE_TEMPORAL, "", frames, unlimited.List());
  auto dim_y = root->CreateDimension("y", GDAL_DIM_TYPE_HORIZONTAL_Y, "", r.ny);
  auto dim_x = root->CreateDimension("x", GDAL_DIM_TYPE_HORIZONTAL_X, "", r.nx);
  if ((timed && !dim_t) || !dim_y || !dim_x)
    throw Error(fmt::format("cannot write '{}': {}", path, last_error("dimensions")));
  if (timed) nc.time = root->CreateMDArray("time", {dim_t}, f64);
  auto var_y = root->CreateMDArray("y", {dim_y}, f64);
  auto var_x = root->CreateMDArray("x", {dim_x}, f64);
  std::vector<double> xs(static_cast<size_t>(r.nx)), ys(static_cast<size_t>(r.ny));
  for (Index i = 0; i < r.nx; ++i) xs[i] = r.x0 + (i + 0.5) * r.dx;  // cell centres
  for (Index j = 0; j < r.ny; ++j) ys[j] = r.y0 + (j + 0.5) * r.dx;
  const GUInt64 start[3] = {0, 0, 0};
  size_t count_y = static_cast<size_t>(r.ny), count_x = static_cast<size_t>(r.nx);
  bool ok = (nc.time || !timed) && var_y && var_x;
  ok = ok && var_y->Write(start, &count_y, nullptr, nullptr, f64, ys.data());
  ok = ok && var_x->Write(start, &count_x, nullptr, nullptr, f64, xs.data());
  if (!ok) throw Error(fmt::format("cannot write '{}': {}", path, last_error("coordinates")));
  // CF 4.4: a time coordinate's units name its reference time.
  if (timed) {
    text_attr(nc.time, "axis", "T");
    text_attr(nc.time, "standard_name", "time");
    text_attr(nc.time, "long_name", "simulated time");
    text_attr(nc.time, "units", time_units(r));
    text_attr(nc.time, "calendar", "standard");
  }
  // No `axis` attribute: VTK's CF reader (ParaView's "NetCDF CF" reader, VTK 9.1 to 9.3) takes
  // axis X and Y for longitude and latitude whatever the units, and with its default spherical
  // coordinates wraps a grid in metres around a unit sphere. The standard names identify x and y
  // (CF 4.1, 5.6), for GDAL, xarray and cfchecks alike.
  for (auto [var, axis] : {std::pair{var_x, "x"}, std::pair{var_y, "y"}}) {
    text_attr(var, "units", "m");
    text_attr(var, "standard_name", std::string("projection_") + axis + "_coordinate");
  }
  // A CRS with a CF grid mapping: GDAL's grid mapping variable, named by each variable's
  // grid_mapping (GDAL, QGIS and xarray read it). Without one (CF 5.6 allows only its
  // grid_mapping_names, and cfchecks refuses any other): a variable "crs" holding the CRS as
  // crs_wkt (and GDAL's spatial_ref) that no variable names as its grid mapping, so the file is CF;
  // the CRS is then in the run's .prj and GeoTIFF files for GIS tools.
  const bool cf_crs = r.crs_wkt.empty() || has_cf_grid_mapping(r.crs_wkt);
  if (!cf_crs) {
    auto crs = root->CreateMDArray("crs", {}, GDALExtendedDataType::Create(GDT_Int32));
    if (!crs) throw Error(fmt::format("cannot write '{}': {}", path, last_error("crs")));
    text_attr(crs, "long_name", "coordinate reference system (no CF grid mapping)");
    text_attr(crs, "crs_wkt", r.crs_wkt);
    text_attr(crs, "spatial_ref", r.crs_wkt);
  }
  // A variable of f's type over dims with f's nodata, units, names, cell methods, flags and CRS.
  const auto add_variable = [&](const Raster& f,
                                const std::vector<std::shared_ptr<GDALDimension>>& dims,
                                CPLStringList& var_opts) {
    var_opts.AddNameValue("COMPRESS", "DEFLATE");
    const std::string name = f.variable.empty() ? "Band1" : f.variable;
    // Bytes (the hazard classes) as 16-bit integers: GDAL writes bytes as NetCDF-4's unsigned
    // byte, which VTK's NetCDF readers (ParaView) cannot read ("unknown netCDF variable type 7"),
    // and this GDAL (3.6) has no signed byte type.
    const GDALDataType stored = f.type == ValueType::u8 ? GDT_Int16 : gdal_type(f);
    const auto type = GDALExtendedDataType::Create(stored);
    auto var = root->CreateMDArray(name, dims, type, var_opts.List());
    if (!var) throw Error(fmt::format("cannot write '{}': {}", path, last_error("variable")));
    var->SetNoDataValue(f.nodata);
    if (!f.units.empty()) text_attr(var, "units", f.units);
    if (!f.standard_name.empty()) text_attr(var, "standard_name", f.standard_name);
    text_attr(var, "long_name", f.long_name.empty() ? name : f.long_name);
    if (!f.cell_methods.empty()) text_attr(var, "cell_methods", f.cell_methods);
    if (!f.flag_meanings.empty()) {
      // CF 3.5: flag_values of the variable's type, one per blank-separated meaning.
      std::vector<GByte> values;
      for (size_t at = 0; at != std::string::npos; at = f.flag_meanings.find(' ', at + 1))
        values.push_back(GByte(values.size()));
      const GUInt64 start0[1] = {0};
      const size_t count0[1] = {values.size()};
      auto at = var->CreateAttribute("flag_values", {GUInt64(values.size())}, type);
      if (!at || !at->Write(start0, count0, nullptr, nullptr,
                            GDALExtendedDataType::Create(GDT_Byte), values.data()))
        throw Error(fmt::format("cannot write '{}': {}", path, last_error("flag_values")));
      text_attr(var, "flag_meanings", f.flag_meanings);
    }
    if (cf_crs) set_crs(*nc.ds, var.get(), r.crs_wkt, path);
    return var;
  };
  for (const Raster* f : fields) {
    CPLStringList var_opts;
    // One frame per chunk: a frame is written, and most often read, whole.
    var_opts.AddNameValue("BLOCKSIZE", fmt::format("1,{},{}", r.ny, r.nx).c_str());
    nc.vars.push_back(add_variable(*f, {dim_t, dim_y, dim_x}, var_opts));
  }
  for (const Raster* f : statics) {
    CPLStringList var_opts;
    add_variable(*f, {dim_y, dim_x}, var_opts);
  }
  if (auto g = root->CreateAttribute("Conventions", {}, str)) g->Write("CF-1.8");
  if (auto g = root->CreateAttribute("source", {}, str)) g->Write("silt shallow-water solver");
  return nc;
}

void write_netcdf(const std::string& path, const Raster& r) {
  NcFile nc = create_nc(path, r, {&r}, 1);
  const auto f64 = GDALExtendedDataType::Create(GDT_Float64);
  const double t = r.time >= 0 ? r.time : 0.0;
  const GUInt64 start[3] = {0, 0, 0};
  const size_t one = 1;
  if (!nc.time->Write(start, &one, nullptr, nullptr, f64, &t))
    throw Error(fmt::format("cannot write '{}': {}", path, last_error("time")));
  // South row first, as the y coordinate increases; converted to the variable's type by GDAL.
  std::vector<double> south_first(static_cast<size_t>(r.cells()));
  for (Index k = 0; k < r.cells(); ++k)
    south_first[k] = r.is_nodata(k) ? r.nodata : r.values[size_t(k)];
  const size_t count[3] = {1, static_cast<size_t>(r.ny), static_cast<size_t>(r.nx)};
  if (!nc.vars[0]->Write(start, count, nullptr, nullptr, f64, south_first.data()))
    throw Error(fmt::format("cannot write '{}': {}", path, last_error("write failed")));
}

}  // namespace

namespace {

// Opens path (a GDAL name: a file, or NETCDF:"file":variable) and reads its grid, nodata, units
// and CRS into r (values empty); errors name `path`.
GDALDatasetUniquePtr open_grid(const std::string& path, Raster& r) {
  GDALDatasetUniquePtr ds(
      GDALDataset::Open(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR));
  if (!ds)
    throw Error(fmt::format("cannot read raster '{}': {}", path,
                            last_error("not a raster format GDAL recognises")));
  if (ds->GetRasterCount() < 1) {
    char** sub = ds->GetMetadata("SUBDATASETS");
    throw Error(
        fmt::format("cannot read raster '{}': it has no raster band{}", path,
                    sub ? " (it holds several variables; silt reads single-variable files)" : ""));
  }
  double gt[6];
  if (ds->GetGeoTransform(gt) != CE_None)
    throw Error(
        fmt::format("raster '{}' has no georeferencing (geotransform); silt needs the "
                    "origin and cell size",
                    path));
  if (gt[2] != 0.0 || gt[4] != 0.0)
    throw Error(
        fmt::format("raster '{}' is rotated (geotransform {}, {}, {}, {}, {}, {}); warp it "
                    "to a north-up grid first (gdalwarp)",
                    path, gt[0], gt[1], gt[2], gt[3], gt[4], gt[5]));
  const double dx = gt[1], dy = std::abs(gt[5]);
  if (!(dx > 0) || std::abs(dx - dy) > 1e-6 * dx)
    throw Error(
        fmt::format("raster '{}' has non-square cells ({} x {}); silt needs square cells: "
                    "resample it (gdalwarp -tr {} {})",
                    path, dx, dy, dx, dx));
  // Bounded before the values are allocated: the read buffer and the values, 8 B each per cell.
  const double cells = double(ds->GetRasterXSize()) * double(ds->GetRasterYSize());
  if (!(cells >= 1 && cells < 2147483647.0))
    throw Error(fmt::format("raster '{}' is {} x {} cells; silt reads 1 to 2^31 - 1 cells", path,
                            ds->GetRasterXSize(), ds->GetRasterYSize()));
  if (!fits_in_memory(cells, 2 * sizeof(double)))
    throw Error(fmt::format("raster '{}' of {} x {} = {:.0f} cells {}", path, ds->GetRasterXSize(),
                            ds->GetRasterYSize(), cells, memory_text(cells, 2 * sizeof(double))));
  r.nx = ds->GetRasterXSize();
  r.ny = ds->GetRasterYSize();
  r.dx = dx;
  r.x0 = gt[0];
  r.y0 = gt[5] < 0 ? gt[3] + gt[5] * r.ny : gt[3];
  GDALRasterBand* band = ds->GetRasterBand(1);
  int has_nodata = 0;
  const double nd = band->GetNoDataValue(&has_nodata);
  r.nodata = has_nodata ? nd : std::nan("");
  r.units = band->GetUnitType() ? band->GetUnitType() : "";
  r.variable = band->GetDescription() ? band->GetDescription() : "";
  if (const OGRSpatialReference* srs = ds->GetSpatialRef()) {
    char* wkt = nullptr;
    if (srs->exportToWkt(&wkt) == OGRERR_NONE && wkt) r.crs_wkt = wkt;
    CPLFree(wkt);
  }
  return ds;
}

// Band k (1-based) of ds, south row first.
std::vector<double> read_band(GDALDataset& ds, int k, const Raster& r, const std::string& path) {
  double gt[6];
  ds.GetGeoTransform(gt);
  const bool north_up = gt[5] < 0;
  std::vector<double> buf(static_cast<size_t>(r.cells())), values(buf.size());
  if (ds.GetRasterBand(k)->RasterIO(GF_Read, 0, 0, int(r.nx), int(r.ny), buf.data(), int(r.nx),
                                    int(r.ny), GDT_Float64, 0, 0, nullptr) != CE_None)
    throw Error(
        fmt::format("cannot read raster '{}' (band {}): {}", path, k, last_error("read failed")));
  for (Index row = 0; row < r.ny; ++row) {
    const Index j = north_up ? r.ny - 1 - row : row;
    std::copy(buf.begin() + static_cast<size_t>(row) * r.nx,
              buf.begin() + static_cast<size_t>(row + 1) * r.nx,
              values.begin() + static_cast<size_t>(j) * r.nx);
  }
  return values;
}

}  // namespace

Raster read_gdal_raster(const std::string& path) {
  register_gdal();
  QuietErrors quiet;
  Raster r;
  GDALDatasetUniquePtr ds = open_grid(path, r);
  r.values = read_band(*ds, 1, r, path);
  return r;
}

RasterBands read_raster_bands(const std::string& path, const std::string& variable) {
  register_gdal();
  QuietErrors quiet;
  RasterBands out;
  const std::string name =
      variable.empty() ? path : fmt::format("NETCDF:\"{}\":{}", path, variable);
  GDALDatasetUniquePtr ds = open_grid(name, out.grid);
  // The netCDF driver names the extra (non-spatial) dimension in NETCDF_DIM_EXTRA, "{time}", and
  // gives each band its coordinate as NETCDF_DIM_<dim> and the axis' units as <dim>#units.
  const char* extra = ds->GetMetadataItem("NETCDF_DIM_EXTRA");
  std::string dim = extra ? extra : "";
  dim.erase(std::remove(dim.begin(), dim.end(), '{'), dim.end());
  dim.erase(std::remove(dim.begin(), dim.end(), '}'), dim.end());
  if (dim.find(',') != std::string::npos)
    throw Error(
        fmt::format("raster '{}' has several extra dimensions ({}); silt reads (time, y, "
                    "x)",
                    name, dim));
  out.time_dimension = dim;
  if (!dim.empty()) {
    const char* units = ds->GetMetadataItem((dim + "#units").c_str());
    out.time_units = units ? units : "";
  }
  for (int k = 1; k <= ds->GetRasterCount(); ++k) {
    out.bands.push_back(read_band(*ds, k, out.grid, name));
    const char* t = dim.empty()
                        ? nullptr
                        : ds->GetRasterBand(k)->GetMetadataItem(("NETCDF_DIM_" + dim).c_str());
    out.band_time.push_back(t ? std::strtod(t, nullptr) : std::nan(""));
  }
  return out;
}

void write_gdal_raster(const std::string& path, const Raster& r, RasterFormat f) {
  register_gdal();
  // HDF5 and libtiff fail badly on a full disk (disk_space.hpp): room for the uncompressed values,
  // the coordinates and the headers first.
  require_room(path, std::uintmax_t(r.cells()) * (r.type == ValueType::f64 ? 8 : 4) +
                         std::uintmax_t(r.nx + r.ny) * sizeof(double) + kHeaderBytes);
  std::unique_lock<std::mutex> nc_lock;
  if (f == RasterFormat::nc) nc_lock = lock_netcdf();
  QuietErrors quiet;
  try {
    if (f == RasterFormat::nc)
      write_netcdf(path, r);
    else
      write_geotiff(path, r);
  } catch (const Error& e) {  // the dataset is closed (flushed) on leaving the writer
    const std::string full = full_disk_reason(path);
    if (full.empty()) throw;
    throw Error(fmt::format("cannot write '{}': {} ({})", path, full, e.what()));
  }
  if (CPLGetLastErrorType() == CE_Failure) {
    const std::string full = full_disk_reason(path);
    throw Error(fmt::format("cannot write '{}': {}", path,
                            full.empty() ? last_error("GDAL error")
                                         : fmt::format("{} ({})", full, last_error("GDAL error"))));
  }
}

void create_netcdf_series(const std::string& path, const RasterSeries& s) {
  register_gdal();
  require_room(path, kHeaderBytes + std::uintmax_t(s.grid.nx + s.grid.ny) * sizeof(double));
  const std::unique_lock<std::mutex> lock = lock_netcdf();
  QuietErrors quiet;
  std::vector<const Raster*> fields, statics;
  for (const Raster& f : s.fields) fields.push_back(&f);
  for (const Raster& f : s.statics) statics.push_back(&f);
  { create_nc(path, s.grid, fields, 0, statics); }  // closed (written) here
  if (CPLGetLastErrorType() == CE_Failure)
    throw Error(fmt::format("cannot write '{}': {}", path, last_error("GDAL error")));
}

std::string crs_to_wkt(const std::string& user_input) {
  register_gdal();
  QuietErrors quiet;
  OGRSpatialReference srs;
  if (srs.SetFromUserInput(user_input.c_str()) != OGRERR_NONE)
    throw Error(fmt::format("'{}' is not a coordinate reference system GDAL knows ({})", user_input,
                            last_error("e.g. EPSG:32617 or a WKT string")));
  char* wkt = nullptr;
  srs.exportToWkt(&wkt);
  std::string out = wkt ? wkt : "";
  CPLFree(wkt);
  return out;
}

namespace {
std::string export_wkt(const OGRSpatialReference& srs, const char* format) {
  char* wkt = nullptr;
  const char* const opts[] = {format, nullptr};
  srs.exportToWkt(&wkt, opts);
  std::string out = wkt ? wkt : "";
  CPLFree(wkt);
  return out;
}

bool parse_crs(const std::string& crs, OGRSpatialReference& srs) {
  srs.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
  return srs.SetFromUserInput(crs.c_str()) == OGRERR_NONE;
}
}  // namespace

std::string prj_to_crs(const std::string& text, const std::string& path) {
  register_gdal();
  QuietErrors quiet;
  // As GDAL's AAIGrid driver reads a .prj: ESRI's forms, then anything SetFromUserInput takes.
  OGRSpatialReference srs;
  CPLStringList lines(CSLTokenizeString2(text.c_str(), "\r\n", 0));
  if (lines.size() == 0 || srs.importFromESRI(lines.List()) != OGRERR_NONE) {
    srs.Clear();
    if (!parse_crs(text, srs))
      throw Error(fmt::format("'{}' is not a CRS GDAL can read ({})", path,
                              last_error("not ESRI or OGC WKT")));
  }
  return export_wkt(srs, "FORMAT=WKT1");
}

std::string crs_to_prj(const std::string& crs) {
  register_gdal();
  QuietErrors quiet;
  OGRSpatialReference srs;
  if (!parse_crs(crs, srs))
    throw Error(fmt::format("the CRS '{}' cannot be written as a .prj ({})", crs_name(crs),
                            last_error("not a CRS")));
  return export_wkt(srs, "FORMAT=WKT1_ESRI") + "\n";
}

bool same_crs(const std::string& a, const std::string& b) {
  register_gdal();
  QuietErrors quiet;
  OGRSpatialReference sa, sb;
  if (!parse_crs(a, sa) || !parse_crs(b, sb)) return a == b;
  // Axis order is not part of what a grid's coordinates mean here (x east, y north throughout).
  const char* const opts[] = {"IGNORE_DATA_AXIS_TO_SRS_AXIS_MAPPING=YES", nullptr};
  return sa.IsSame(&sb, opts);
}

std::string crs_name(const std::string& crs) {
  register_gdal();
  QuietErrors quiet;
  OGRSpatialReference srs;
  if (parse_crs(crs, srs) && srs.GetName() && *srs.GetName()) return srs.GetName();
  return crs.size() > 60 ? crs.substr(0, 60) + "..." : crs;
}

}  // namespace silt::io
