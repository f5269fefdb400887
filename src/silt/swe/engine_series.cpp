// Forcing series replaced between steps (swe::Solver::set_series): every part's series tables
// (all series concatenated, views.hpp) uploaded anew. The views are made at each step from the
// part's buffers, so nothing else holds the old tables.
#include "silt/swe/engine_parts.hpp"

namespace silt::swe::detail {

namespace {

template <class V>
DeviceBuffer<V> table(const Exec& exec, const std::vector<V>& host, const char* label) {
  DeviceBuffer<V> b(exec, Index(host.size()), label);
  if (!host.empty()) b.upload(host);
  return b;
}

}  // namespace

template <class T>
void Engine<T>::set_series(const Layout& l) {
  fence_all();  // no step still reads the old tables
  layout_.series_t = l.series_t;
  layout_.series_v = l.series_v;
  layout_.series_offset = l.series_offset;
  for (auto& p : parts_) {
    activate(p->exec);
    p->series_t = table(p->exec, layout_.series_t, "swe.series.t");
    p->series_v = table(p->exec, layout_.series_v, "swe.series.value");
    p->series_offset = table(p->exec, layout_.series_offset, "swe.series.offset");
  }
  fence_all();
}

template void Engine<float>::set_series(const Layout&);
template void Engine<double>::set_series(const Layout&);

}  // namespace silt::swe::detail
