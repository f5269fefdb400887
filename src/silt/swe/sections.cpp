// The per-step volume through the cross sections' edges (phase_section_flow), on the owner of
// each edge; where the edges come from is section_edges.cpp.
#include "silt/swe/sections.hpp"

#include "silt/core/parallel_for.hpp"
#include "silt/swe/edges.hpp"
#include "silt/swe/muscl_edges.hpp"

namespace silt::swe {

namespace detail {

template <class T>
void phase_section_flow(const Exec& exec, const SectionFlowView<T>& v, double weight,
                        bool second_order) {
  if (v.n == 0) return;
  parallel_for(
      exec, "swe.section_flow", v.n, SILT_LAMBDA(Index k) {
        const double dt = v.clock[kDt];
        if (!(dt > 0.0)) return;
        const SectionEdge s = v.edges[k];
        const Dir d = s.dir == 0 ? Dir::x : Dir::y;
        const double q = double(second_order ? muscl_edge_flux(v.e, s.i, s.j, d).h
                                             : edge_flux(v.e, s.i, s.j, d).h);
        v.clock[v.first + s.slot] += double(s.weight) * q * dt * v.dx * weight;  // its own slot
      });
}

template <class T>
void phase_hancock_section_flow(const Exec& exec, const SectionFlowView<T>& v,
                                const SolverView<T>& step) {
  if (v.n == 0) return;
  parallel_for(
      exec, "swe.section_flow", v.n, SILT_LAMBDA(Index k) {
        const double dt = v.clock[kDt];
        if (!(dt > 0.0)) return;
        const SectionEdge s = v.edges[k];
        const Dir d = s.dir == 0 ? Dir::x : Dir::y;
        const double q = double(hancock_edge_flux(step, s.i, s.j, d, dt).h);
        v.clock[v.first + s.slot] += double(s.weight) * q * dt * v.dx;  // its own slot
      });
}

template void phase_section_flow<float>(const Exec&, const SectionFlowView<float>&, double, bool);
template void phase_section_flow<double>(const Exec&, const SectionFlowView<double>&, double, bool);
template void phase_hancock_section_flow<float>(const Exec&, const SectionFlowView<float>&,
                                                const SolverView<float>&);
template void phase_hancock_section_flow<double>(const Exec&, const SectionFlowView<double>&,
                                                 const SolverView<double>&);

}  // namespace detail
}  // namespace silt::swe
