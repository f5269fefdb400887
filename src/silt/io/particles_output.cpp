#include "silt/io/particles_output.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "silt/core/error.hpp"
#include "silt/io/particles_ply.hpp"
#include "silt/io/particles_vtp.hpp"
#include "silt/io/splat_png.hpp"

namespace silt::io {

namespace fs = std::filesystem;

MpmFrameWriter::MpmFrameWriter(const MpmJob& job, std::string out_dir)
    : job_(&job), dir_(std::move(out_dir)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  SILT_REQUIRE(!ec, fmt::format("cannot create output folder '{}': {}", dir_, ec.message()));
  const MpmOutputSettings& o = job.outputs;
  camera_ =
      o.custom_camera ? o.camera : default_camera(job.scene, double(o.png_width) / o.png_height);
  splat_.width = o.png_width;
  splat_.height = o.png_height;
  splat_.palette = material_palette(job.scene);
}

std::string MpmFrameWriter::frame_path(const std::string& stem, long frame,
                                       const std::string& ext) const {
  return (fs::path(dir_) / fmt::format("{}_{:04d}.{}", stem, frame, ext)).string();
}

std::vector<std::string> MpmFrameWriter::write(const mpm::ParticleFrame& p, long frame,
                                               double time) {
  const MpmOutputSettings& o = job_->outputs;
  const ParticleFileInfo info{job_->scene.name, frame, time};
  std::vector<std::string> written;
  for (ParticleFormat f : o.formats) {
    if (f == ParticleFormat::ply) {
      written.push_back(frame_path("particles", frame, "ply"));
      write_particles_ply(written.back(), p, info);
    } else {
      written.push_back(frame_path("particles", frame, "vtp"));
      write_particles_vtp(written.back(), p, info, o.vtp_encoding);
      vtp_frames_.emplace_back(time, fs::path(written.back()).filename().string());
      // The collection lists every frame so far; rewritten whole (atomically) each frame.
      std::string pvd =
          "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n"
          "  <Collection>\n";
      for (const auto& [t, name] : vtp_frames_)
        pvd += fmt::format("    <DataSet timestep=\"{:.9g}\" part=\"0\" file=\"{}\"/>\n", t, name);
      pvd += "  </Collection>\n</VTKFile>\n";
      AtomicFile file((fs::path(dir_) / "particles.pvd").string());
      file.write(pvd);
      file.commit();
    }
  }
  if (o.png) {
    written.push_back(frame_path("preview", frame, "png"));
    splat_.time = time;
    write_png(written.back(), render_splats(p, job_->scene, camera_, splat_));
  }
  return written;
}

}  // namespace silt::io
