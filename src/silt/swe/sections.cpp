// The per-step volume through the cross sections' edges (phase_section_flow), on the owner of
// each edge; where the edges come from is section_edges.cpp.
#include "silt/swe/sections.hpp"

#include "silt/core/parallel_for.hpp"
#include "silt/swe/edges.hpp"
#include "silt/swe/muscl_edges.hpp"

namespace silt::swe {

namespace detail {

namespace {

// What phase_section_flow counts through edge (i, j, d) of state e in a step of dt s: the unit
// discharge (m^2/s) of the update's flux, first order (edge_flux) or one Heun stage's
// (muscl_edge_flux), and a volume of it weighed by the stage's weight.
template <class T>
struct StateFlux {
  bool second_order;
  double weight;
  SILT_HD T operator()(const EdgeView<T>& e, Index i, Index j, Dir d, double) const {
    return second_order ? muscl_edge_flux(e, i, j, d).h : edge_flux(e, i, j, d).h;
  }
  SILT_HD double weigh(double volume) const { return volume * weight; }
};

// The same for phase_hancock_section_flow: the MUSCL-Hancock step's flux between predicted face
// states, from the step's view (whose state is e's), and the volume as it is. Not a weight of 1:
// the device fuses the last product and the slot's addition into one FMA, so that a product by 1
// would round the volume once more, a last bit apart at times.
template <class T>
struct HancockFlux {
  SolverView<T> step;
  SILT_HD T operator()(const EdgeView<T>&, Index i, Index j, Dir d, double dt) const {
    return hancock_edge_flux(step, i, j, d, dt).h;
  }
  SILT_HD double weigh(double volume) const { return volume; }
};

// Adds each edge's volume of the step, edge weight x flux(v.e, i, j, d, kDt) x kDt x dx weighed
// by flux.weigh, to its own slot (kDt 0: nothing).
template <class T, class Flux>
void add_section_flow(const Exec& exec, const SectionFlowView<T>& v, const Flux& flux) {
  if (v.n == 0) return;
  parallel_for(
      exec, "swe.section_flow", v.n, SILT_LAMBDA(Index k) {
        const double dt = v.clock[kDt];
        if (!(dt > 0.0)) return;
        const SectionEdge s = v.edges[k];
        const Dir d = s.dir == 0 ? Dir::x : Dir::y;
        const double q = double(flux(v.e, s.i, s.j, d, dt));
        v.clock[v.first + s.slot] += flux.weigh(double(s.weight) * q * dt * v.dx);  // its own slot
      });
}

}  // namespace

template <class T>
void phase_section_flow(const Exec& exec, const SectionFlowView<T>& v, double weight,
                        bool second_order) {
  add_section_flow(exec, v, StateFlux<T>{second_order, weight});
}

template <class T>
void phase_hancock_section_flow(const Exec& exec, const SectionFlowView<T>& v,
                                const SolverView<T>& step) {
  add_section_flow(exec, v, HancockFlux<T>{step});
}

template void phase_section_flow<float>(const Exec&, const SectionFlowView<float>&, double, bool);
template void phase_section_flow<double>(const Exec&, const SectionFlowView<double>&, double, bool);
template void phase_hancock_section_flow<float>(const Exec&, const SectionFlowView<float>&,
                                                const SolverView<float>&);
template void phase_hancock_section_flow<double>(const Exec&, const SectionFlowView<double>&,
                                                 const SolverView<double>&);

}  // namespace detail
}  // namespace silt::swe
