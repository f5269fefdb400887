#include "silt/io/particles/vtp.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <vector>

namespace silt::io {

namespace {

struct Array {
  std::string xml_head;  // "<DataArray type=... Name=... NumberOfComponents=..."
  std::string bytes;     // little-endian values
};

template <class T>
Array make_array(const char* type, const std::string& name, int components, const T* values,
                 std::size_t count) {
  Array a;
  a.xml_head = fmt::format("<DataArray type=\"{}\"{} NumberOfComponents=\"{}\"", type,
                           name.empty() ? "" : fmt::format(" Name=\"{}\"", name), components);
  // FieldData arrays need their tuple count spelled out (they have no piece to take it from).
  a.xml_head += fmt::format(" NumberOfTuples=\"{}\"", count / components);
  a.bytes.reserve(count * sizeof(T));
  for (std::size_t i = 0; i < count; ++i) put_le(a.bytes, values[i]);
  return a;
}

// XML for one array, and its payload appended to `appended` (raw) or inlined (base64). Each
// binary block is preceded by its byte count as UInt64 (header_type="UInt64").
std::string emit(const Array& a, VtpEncoding enc, std::string& appended, const char* indent) {
  std::string block;
  put_le(block, static_cast<std::uint64_t>(a.bytes.size()));
  if (enc == VtpEncoding::appended_raw) {
    const std::string xml = fmt::format("{}{} format=\"appended\" offset=\"{}\"/>\n", indent,
                                        a.xml_head, appended.size());
    appended += block;
    appended += a.bytes;
    return xml;
  }
  // Inline binary: the size header and the values base64-encoded as one stream (VTK reads both
  // this and separately encoded blocks when uncompressed; checked with VTK 9.1).
  return fmt::format("{}{} format=\"binary\">\n{}{}\n{}</DataArray>\n", indent, a.xml_head, indent,
                     base64_encode(block + a.bytes), indent);
}

}  // namespace

std::string base64_encode(const std::string& in) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const std::uint32_t v = (std::uint32_t(std::uint8_t(in[i])) << 16) |
                            (std::uint32_t(std::uint8_t(in[i + 1])) << 8) | std::uint8_t(in[i + 2]);
    out += k[v >> 18];
    out += k[(v >> 12) & 63];
    out += k[(v >> 6) & 63];
    out += k[v & 63];
  }
  if (i < in.size()) {
    std::uint32_t v = std::uint32_t(std::uint8_t(in[i])) << 16;
    if (i + 1 < in.size()) v |= std::uint32_t(std::uint8_t(in[i + 1])) << 8;
    out += k[v >> 18];
    out += k[(v >> 12) & 63];
    out += i + 1 < in.size() ? k[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

void write_particles_vtp(const std::string& path, const mpm::ParticleFrame& f,
                         const ParticleFileInfo& info, VtpEncoding enc) {
  check_frame(f, path);
  const std::size_t n = f.count();
  std::string appended, point_data, xml;

  point_data += emit(make_array("Float32", "velocity", 3, f.velocity.data(), 3 * n), enc, appended,
                     "        ");
  point_data +=
      emit(make_array("Int32", "material", 1, f.material.data(), n), enc, appended, "        ");
  if (!f.id.empty())
    point_data += emit(make_array("Int32", "id", 1, f.id.data(), n), enc, appended, "        ");
  if (!f.stress.empty()) {
    std::vector<float> p(n);
    for (std::size_t i = 0; i < n; ++i)
      p[i] = -(f.stress[9 * i] + f.stress[9 * i + 4] + f.stress[9 * i + 8]) / 3.0f;
    point_data +=
        emit(make_array("Float32", "stress", 9, f.stress.data(), 9 * n), enc, appended, "        ");
    point_data +=
        emit(make_array("Float32", "pressure", 1, p.data(), n), enc, appended, "        ");
  }
  if (!f.plastic.empty())
    point_data +=
        emit(make_array("Float32", "plastic", 1, f.plastic.data(), n), enc, appended, "        ");

  const std::string points =
      emit(make_array("Float32", "", 3, f.position.data(), 3 * n), enc, appended, "        ");
  // One VTK_VERTEX per particle: connectivity i, offsets i + 1.
  std::vector<std::int64_t> conn(n), offs(n);
  for (std::size_t i = 0; i < n; ++i) {
    conn[i] = static_cast<std::int64_t>(i);
    offs[i] = static_cast<std::int64_t>(i + 1);
  }
  const std::string verts =
      emit(make_array("Int64", "connectivity", 1, conn.data(), n), enc, appended, "        ") +
      emit(make_array("Int64", "offsets", 1, offs.data(), n), enc, appended, "        ");
  const double time = info.time;
  const std::int32_t cycle = static_cast<std::int32_t>(info.frame);
  const std::string field_data =
      emit(make_array("Float64", "TIME", 1, &time, 1), enc, appended, "      ") +
      emit(make_array("Int32", "CYCLE", 1, &cycle, 1), enc, appended, "      ");

  xml += "<?xml version=\"1.0\"?>\n";
  xml += fmt::format("<!-- silt particles: scene {} frame {} time {:.9g} s; units m, m/s, Pa -->\n",
                     info.scene.empty() ? "-" : info.scene, info.frame, info.time);
  xml +=
      "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" "
      "header_type=\"UInt64\">\n  <PolyData>\n";
  xml += "    <FieldData>\n" + field_data + "    </FieldData>\n";
  xml += fmt::format(
      "    <Piece NumberOfPoints=\"{}\" NumberOfVerts=\"{}\" NumberOfLines=\"0\" "
      "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n",
      n, n);
  xml += "      <PointData Scalars=\"material\" Vectors=\"velocity\"" +
         std::string(f.stress.empty() ? "" : " Tensors=\"stress\"") + ">\n" + point_data +
         "      </PointData>\n";
  xml += "      <Points>\n" + points + "      </Points>\n";
  xml += "      <Verts>\n" + verts + "      </Verts>\n";
  xml += "    </Piece>\n  </PolyData>\n";

  AtomicFile file(path);
  file.write(xml);
  if (enc == VtpEncoding::appended_raw) {
    file.write("  <AppendedData encoding=\"raw\">\n   _");
    file.write(appended);
    file.write("\n  </AppendedData>\n");
  }
  file.write("</VTKFile>\n");
  file.commit();
}

}  // namespace silt::io
