// Cross sections (Scene::sections, outputs.cross_sections): the volume that passes lines drawn
// across the flow, kept per step like the boundary volumes (views.hpp: flow slots of the clock).
//
// Set-up finds once the cell edges a line crosses. In the grid of cell centres, each time the line
// passes between two neighbouring centres, the edge between those two cells is on the section:
// together these edges are the staircase that separates the cells on the line's two sides, and
// the discharge through the staircase is the discharge through the line (the water between them
// is stored in neither). An edge counts +1 or -1 by the direction the line passes, so a line that
// doubles back over an edge cancels there. Only edges between two active cells carry water (as in
// TUFLOW's flow lines, which also need an active cell on either side).
//
// Per step, the part that owns the cell on an edge's east (x) or north (y) side adds dt dx times
// the edge's unit discharge (the flux of the step's update: edge_flux(), or for the second-order
// scheme the mean of muscl_edge_flux() over Heun's two stages, or for MUSCL-Hancock its one
// hancock_edge_flux() between the predicted face states) to the edge's own slot:
// no atomics, so totals() sums each section's slots in order to the same bits on any split.
#pragma once

#include <cstdint>
#include <vector>

#include "silt/core/exec.hpp"
#include "silt/swe/scene.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe {

/// An edge of a cross section: between cells (i - 1, j) and (i, j) (dir 0, unit discharge positive
/// east) or (i, j - 1) and (i, j) (dir 1, positive north), cells global (local in a part's
/// table); weight: how many times (and which way, -1: against the edge's positive direction) the
/// line crosses it toward its left; slot: the edge's place in SectionEdges::edges.
struct SectionEdge {
  Index i = 0, j = 0;
  int dir = 0;
  int weight = 0;
  Index slot = 0;
};

/// The edges of every section: section s has edges [offset[s], offset[s + 1]), ordered by (j, i,
/// dir).
struct SectionEdges {
  std::vector<SectionEdge> edges;
  std::vector<Index> offset{0};
};

/// The edges each of `sections` crosses on `grid` (active: 1 where active, or empty: all active).
/// Throws silt::Error naming the section when it has fewer than 2 points or a point that is not
/// finite, passes between no two cell centres of the grid (it lies outside the grid, or within
/// one row or column of cells), or crosses only edges beside inactive cells.
SectionEdges section_edges(const Grid& grid, const std::vector<std::uint8_t>& active,
                           const std::vector<CrossSection>& sections);

namespace detail {

/// What phase_section_flow needs of one part: its state at the start of the step, its own edges
/// (cells local) and the clock, whose slot first + edge.slot holds the edge's volume.
template <class T>
struct SectionFlowView {
  EdgeView<T> e;
  const SectionEdge* edges = nullptr;
  Index n = 0;
  double* clock = nullptr;
  Index first = 0;  // clock slot of the section edges' slot 0
  double dx = 0;    // m
};

/// Adds each edge's volume of the step just taken (edge weight x unit discharge x kDt x dx x
/// `weight`, m^3; kDt 0: nothing) to its slot. Runs after the update, before the state buffers
/// swap. The unit discharge is the update's flux of the state v.e holds: edge_flux(), or with
/// second_order muscl_edge_flux(), called once per Heun stage with weight 0.5 (the update's mean of
/// the stages' fluxes).
template <class T>
void phase_section_flow(const Exec& exec, const SectionFlowView<T>& v, double weight = 1.0,
                        bool second_order = false);

/// As phase_section_flow for physics.scheme = "muscl_hancock": the unit discharge is the step's
/// MUSCL-Hancock edge flux (hancock_edge_flux: between the predicted face states, which need the
/// rain and friction of `step`, the view of the step just taken, whose state is v.e's).
template <class T>
void phase_hancock_section_flow(const Exec& exec, const SectionFlowView<T>& v,
                                const SolverView<T>& step);

}  // namespace detail
}  // namespace silt::swe
