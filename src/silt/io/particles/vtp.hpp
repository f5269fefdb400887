// VTK XML PolyData (.vtp) particle files for ParaView (and VTK-based tools): points, one vertex
// cell per particle so they render without a filter, and point-data arrays. Binary data follows
// the XML in one raw appended block (UInt64 size headers), the most compact form VTK reads; or,
// for tools that want pure text XML, base64 inline.
#pragma once

#include <string>

#include "silt/io/particles/file.hpp"

namespace silt::io {

enum class VtpEncoding { appended_raw, inline_base64 };

/// Writes one particle frame atomically. Point data: velocity (Float32 x3, m/s), material (Int32),
/// id (Int32, stable particle id, when the frame has ids),
/// with stress: stress (Float32 x9, Cauchy, Pa; ParaView shows it as a tensor) and pressure
/// (Float32, Pa); with plastic: plastic (Float32). FieldData: TIME (s) and CYCLE (frame), which
/// ParaView uses for its time display.
void write_particles_vtp(const std::string& path, const mpm::ParticleFrame& frame,
                         const ParticleFileInfo& info,
                         VtpEncoding encoding = VtpEncoding::appended_raw);

/// RFC 4648 base64 of `bytes` (no line breaks).
std::string base64_encode(const std::string& bytes);

}  // namespace silt::io
