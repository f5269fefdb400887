#include "silt/io/particles_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "silt/core/error.hpp"
#include "silt/io/atomic_file.hpp"
#include "silt/io/particles_ply.hpp"
#include "silt/io/particles_vtp.hpp"
#include "silt/io/png_legend.hpp"
#include "silt/io/splat_png.hpp"

namespace silt::io {

namespace fs = std::filesystem;

namespace {
std::string created(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  SILT_REQUIRE(!ec, fmt::format("cannot create output folder '{}': {}", dir, ec.message()));
  return dir;
}
}  // namespace

MpmFrameWriter::MpmFrameWriter(const MpmJob& job, std::string out_dir, long first_frame)
    : job_(&job), dir_(created(out_dir)), index_(dir_, first_frame) {
  const MpmOutputSettings& o = job.outputs;
  if (std::find(o.formats.begin(), o.formats.end(), ParticleFormat::vtp) != o.formats.end())
    for (const auto& [k, t] : index_.rows())
      vtp_frames_.emplace_back(t, fs::path(frame_path("particles", k, "vtp")).filename().string());
  camera_ =
      o.custom_camera ? o.camera : default_camera(job.scene, double(o.png_width) / o.png_height);
  splat_.width = o.png_width;
  splat_.height = o.png_height;
  splat_.palette = material_palette(job.scene);
  for (const auto& m : job.scene.materials) material_names_.push_back(m.name);
}

std::string MpmFrameWriter::frame_path(const std::string& stem, long frame,
                                       const std::string& ext) const {
  return (fs::path(dir_) / fmt::format("{}_{:04d}.{}", stem, frame, ext)).string();
}

bool wants_particles(const MpmOutputSettings& o) {
  return !o.formats.empty() || o.png;
}

void MpmFrameWriter::write_collection() const {
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

std::vector<std::string> MpmFrameWriter::write(const mpm::ParticleFrame& p, long frame,
                                               double time) {
  const MpmOutputSettings& o = job_->outputs;
  const ParticleFileInfo info{job_->scene.name, frame, time};
  const std::size_t vtp_before = vtp_frames_.size();
  std::vector<std::string> written;
  try {
    for (ParticleFormat f : o.formats) {
      if (f == ParticleFormat::ply) {
        const std::string path = frame_path("particles", frame, "ply");
        write_particles_ply(path, p, info);
        written.push_back(path);
      } else {
        const std::string path = frame_path("particles", frame, "vtp");
        write_particles_vtp(path, p, info, o.vtp_encoding);
        written.push_back(path);
        vtp_frames_.emplace_back(time, fs::path(path).filename().string());
      }
    }
    if (o.png) {
      const std::string path = frame_path("preview", frame, "png");
      splat_.time = time;
      SplatImage img = render_splats(p, job_->scene, camera_, splat_);
      annotate_preview(img, time, material_names_, splat_.palette);
      write_png(path, img);
      written.push_back(path);
    }
    if (vtp_frames_.size() > vtp_before) write_collection();
    index_.add(frame, time);  // last: frames.csv lists the frame once all its files are there
  } catch (...) {
    remove_files(written);
    if (vtp_frames_.size() > vtp_before) {
      vtp_frames_.resize(vtp_before);
      try {
        write_collection();
      } catch (...) {  // the error being reported already names the folder
      }
    }
    throw;
  }
  return written;
}

}  // namespace silt::io
