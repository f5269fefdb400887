#include "silt/io/particles/output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "silt/core/error.hpp"
#include "silt/io/atomic_file.hpp"
#include "silt/io/image/legend.hpp"
#include "silt/io/image/splat_png.hpp"
#include "silt/io/particles/ply.hpp"
#include "silt/io/particles/vdb.hpp"
#include "silt/io/particles/vtp.hpp"

namespace silt::io {

namespace fs = std::filesystem;

namespace {
std::string created(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  SILT_REQUIRE(!ec, fmt::format("cannot create output folder '{}': {}", dir, ec.message()));
  return dir;
}
// The volume's voxels: centres on silt's grid nodes (voxel (0,0,0) at the domain's lower corner in
// the files' axes); each material's particle mass and volume as the solver sets them
// (mpm::Part::build_tables: density dx^3 / ppc of the material's first source).
VolumeGrid volume_grid(const MpmJob& job) {
  const mpm::Scene& s = job.scene;
  VolumeGrid g;
  g.voxel_size = job.outputs.volume_voxel > 0 ? job.outputs.volume_voxel : s.dx;
  g.density = job.outputs.volume_density;
  std::array<double, 3> lo = s.domain_min, hi = s.domain_max;
  box_to_up_axis(lo, hi, job.outputs.up_axis);
  g.origin = lo;
  const double cell = s.dx * s.dx * s.dx;
  for (std::size_t m = 0; m < s.materials.size(); ++m) {
    double ppc = 0;
    for (const mpm::Source& src : s.sources)
      if (std::size_t(src.material) == m && ppc == 0) ppc = src.particles_per_cell;
    if (ppc == 0) ppc = 1;  // a material no source uses has no particles
    g.particle_volume.push_back(cell / ppc);
    g.particle_mass.push_back(s.materials[m].density * cell / ppc);
  }
  return g;
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
  if (o.volume) volume_ = volume_grid(job);
}

std::string MpmFrameWriter::frame_path(const std::string& stem, long frame,
                                       const std::string& ext) const {
  return (fs::path(dir_) / fmt::format("{}_{:04d}.{}", stem, frame, ext)).string();
}

bool wants_particles(const MpmOutputSettings& o) {
  return !o.formats.empty() || o.png || o.volume;
}

unsigned particle_attributes_of(const MpmOutputSettings& o) {
  if (!wants_particles(o)) return 0;
  unsigned a = mpm::attributes::position;
  if (!o.formats.empty() || o.volume) a |= mpm::attributes::velocity;
  if (!o.formats.empty() && o.with_stress) a |= mpm::attributes::stress | mpm::attributes::plastic;
  return a;
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

std::vector<std::string> MpmFrameWriter::write(const mpm::ParticleFrame& frame_in, long frame,
                                               double time) {
  std::vector<std::string> written = encode(frame_in, frame, time);
  commit(written, frame, time);
  return written;
}

std::vector<std::string> MpmFrameWriter::encode(const mpm::ParticleFrame& frame_in, long frame,
                                                double time) const {
  const MpmOutputSettings& o = job_->outputs;
  // The files' axes: a rotated copy for z up (the preview keeps silt's axes).
  mpm::ParticleFrame turned;
  const bool turn = o.up_axis != UpAxis::y && (!o.formats.empty() || o.volume);
  if (turn) {
    turned = frame_in;
    frame_to_up_axis(turned, o.up_axis);
  }
  const mpm::ParticleFrame& p = turn ? turned : frame_in;
  const ParticleFileInfo info{job_->scene.name, frame, time};
  std::vector<std::string> written;
  try {
    for (ParticleFormat f : o.formats) {
      if (f == ParticleFormat::ply) {
        const std::string path = frame_path("particles", frame, "ply");
        write_particles_ply(path, p, info);
        written.push_back(path);
      } else if (f == ParticleFormat::vdb) {
        const std::string path = frame_path("particles", frame, "vdb");
        write_particles_vdb(path, p, info, job_->scene.dx);
        written.push_back(path);
      } else {
        const std::string path = frame_path("particles", frame, "vtp");
        write_particles_vtp(path, p, info, o.vtp_encoding);
        written.push_back(path);
      }
    }
    if (o.volume) {
      const std::string path = frame_path("volume", frame, "vdb");
      write_volume_vdb(path, p, info, volume_);
      written.push_back(path);
    }
    if (o.png) {
      const std::string path = frame_path("preview", frame, "png");
      SplatSettings splat = splat_;
      splat.time = time;
      SplatImage img = render_splats(frame_in, job_->scene, camera_, splat);
      annotate_preview(img, time, material_names_, splat.palette);
      write_png(path, img);
      written.push_back(path);
    }
  } catch (...) {
    remove_files(written);
    throw;
  }
  return written;
}

void MpmFrameWriter::commit(const std::vector<std::string>& written, long frame, double time) {
  const MpmOutputSettings& o = job_->outputs;
  const std::size_t vtp_before = vtp_frames_.size();
  try {
    if (std::find(o.formats.begin(), o.formats.end(), ParticleFormat::vtp) != o.formats.end()) {
      vtp_frames_.emplace_back(time,
                               fs::path(frame_path("particles", frame, "vtp")).filename().string());
      write_collection();
    }
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
}

}  // namespace silt::io
