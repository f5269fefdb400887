// Boundary lines and inflow lines laid on the grid (swe/boundary_lines.hpp): which outer edges a
// line takes (straight sides, corners, staircases, notches, ends), the cells and lengths of an
// inflow line, and the errors naming the boundary.
#include "silt/swe/boundary_lines.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "silt/core/error.hpp"
#include "test_support.hpp"

namespace silt::swe {
namespace {

using silt::test::throws_with;

// A grid of nx x ny cells of 1 m from (0, 0), active where on(i, j).
template <class F>
std::vector<std::uint8_t> mask(Index nx, Index ny, F on) {
  std::vector<std::uint8_t> a(size_t(nx * ny));
  for (Index j = 0; j < ny; ++j)
    for (Index i = 0; i < nx; ++i) a[size_t(j * nx + i)] = on(i, j) ? 1 : 0;
  return a;
}

Boundary line(std::vector<std::array<double, 2>> points) {
  Boundary b;
  b.name = "b";
  b.line = std::move(points);
  return b;
}

std::string text(const std::vector<BoundaryEdge>& e) {
  std::string t;
  for (const BoundaryEdge& x : e)
    t += "(" + std::to_string(x.i) + "," + std::to_string(x.j) + "," + "WESN"[x.side] + ")";
  return t;
}

TEST(SweBoundaryLines, AStraightLineTakesTheCellsBetweenItsEndsAsARange) {
  const Grid g{6, 5, 1.0, 0.0, 0.0};
  // Along the west side from y = 1 to 3.2: cells whose centre lies in [1, 3.2], j = 1..2.
  const auto e = boundary_edges(g, {}, line({{0, 1}, {0, 3.2}}), 0);
  EXPECT_EQ(text(e), "(0,1,W)(0,2,W)");
  Boundary side;
  side.side = Side::west;
  side.begin = 1;
  side.end = 3;
  EXPECT_EQ(text(boundary_edges(g, {}, side, 0)), text(e));
}

TEST(SweBoundaryLines, ALineTurnsCornersAndFollowsAStaircase) {
  const Grid g{6, 6, 1.0, 0.0, 0.0};
  // Around the south-west corner: west edges of j = 0..1, south edges of i = 0..1.
  EXPECT_EQ(text(boundary_edges(g, {}, line({{0, 2}, {0, 0}, {2, 0}}), 0)),
            "(0,0,W)(0,0,S)(1,0,S)(0,1,W)");
  // Active where j >= i: the staircase's east and south edges between (1, 0) and (4, 3).
  const auto a = mask(6, 6, [](Index i, Index j) { return j >= i; });
  EXPECT_EQ(text(boundary_edges(g, a, line({{1, 0}, {4, 3}}), 0)),
            "(0,0,E)(1,1,E)(1,1,S)(2,2,E)(2,2,S)(3,3,S)");
}

TEST(SweBoundaryLines, NotchSidesAndEdgesBeyondTheEndsAreLeftOut) {
  const Grid g{4, 6, 1.0, 0.0, 0.0};
  // Cell (0, 2) inactive: a notch in the west side. The line along x = 0 takes the west edges
  // beside it, not the notch's north and south sides (across the line) nor its back (1 m off).
  const auto a = mask(4, 6, [](Index i, Index j) { return !(i == 0 && j == 2); });
  EXPECT_EQ(text(boundary_edges(g, a, line({{0, 0}, {0, 5}}), 0)), "(0,0,W)(0,1,W)(0,3,W)(0,4,W)");
}

TEST(SweBoundaryLines, BadLinesNameTheBoundaryAndWhatIsWrong) {
  const Grid g{10, 10, 2.0, 100.0, 0.0};
  Boundary b = line({{110, 2}, {110, 18}});
  b.name = "inlet";
  EXPECT_TRUE(throws_with([&] { boundary_edges(g, {}, b, 3); },
                          {"boundary 3 'inlet'", "runs off the model's outer edge",
                           "(110, 10) m, inside the domain, in active cell (5, 5)",
                           "is 10 m from the nearest edge", "(1 m)"}))
      << "a line through the middle of the domain";
  b.line = {{100, 2}, {100, 10}, {101, 6}, {99, 6}};
  EXPECT_TRUE(throws_with([&] { boundary_edges(g, {}, b, 3); },
                          {"boundary 3 'inlet'", "crosses itself", "meet at (100, 6)"}));
  b.line = {{100, 2}, {100, 10}, {100, 4}};
  EXPECT_TRUE(throws_with([&] { boundary_edges(g, {}, b, 3); }, {"crosses itself"}))
      << "doubling back";
  b.line = {{100, 5.2}, {100, 5.6}};
  EXPECT_TRUE(throws_with([&] { boundary_edges(g, {}, b, 3); },
                          {"boundary 3 'inlet'", "runs along no edge of an active cell"}));
  b.line = {{100, 5}};
  EXPECT_TRUE(throws_with([&] { boundary_edges(g, {}, b, 3); }, {"has 1 point"}));
}

TEST(SweBoundaryLines, AFarVertexIsRefusedBeforeTheLineIsSampled) {
  // A typo of 1e9 m: the line was sampled four times a cell all the way there (2e9 samples of
  // 16 bytes here, past int's range: the fuzzer's out-of-memory finding), now the vertex is
  // refused first, named with its distance.
  const Grid g{10, 10, 2.0, 100.0, 0.0};
  Boundary b = line({{1e9, 0}, {110, 0}});
  b.name = "outlet";
  EXPECT_TRUE(throws_with(
      [&] { boundary_edges(g, {}, b, 0); },
      {"boundary 0 'outlet'", "runs off the model's outer edge",
       "its point (1000000000, 0) m, outside the grid", "is 1e+09 m from the nearest edge"}));
}

TEST(SweBoundaryLines, AnInflowLineSplitsByLengthOverActiveCells) {
  const Grid g{4, 4, 2.0, 0.0, 0.0};
  PointSource s;
  s.name = "spill";
  s.line = {{1, 1}, {7, 1}};  // along row 0: 1 m in cell 0, 2 m in 1 and 2, 1 m in 3
  const auto a = mask(4, 4, [](Index i, Index) { return i != 2; });
  const auto c = line_cells(g, a, s, 0);
  ASSERT_EQ(c.size(), 3u);  // cell (2, 0) inactive: its 2 m count nowhere
  EXPECT_EQ(c[0].i, 0);
  EXPECT_DOUBLE_EQ(c[0].length, 1.0);
  EXPECT_DOUBLE_EQ(c[1].length, 2.0);
  EXPECT_EQ(c[2].i, 3);
  EXPECT_DOUBLE_EQ(c[2].length, 1.0);
  s.line = {{9, 9}, {12, 12}};
  EXPECT_TRUE(throws_with([&] { line_cells(g, a, s, 2); },
                          {"inflow line 2 'spill'", "crosses no active cell"}));
}

TEST(SweBoundaryLines, AnInflowPolygonTakesTheActiveCellsWhoseCentresLieInside) {
  const Grid g{6, 5, 2.0, 10.0, 0.0};
  PointSource s;
  s.name = "pond";
  // Centres at x = 11, 13, ...; y = 1, 3, ...: the triangle holds (0..2, 0), (0..1, 1), (0, 2).
  s.polygon = {{10, 0}, {16.5, 0}, {10, 6.5}, {10, 0}};
  const auto a = mask(6, 5, [](Index i, Index j) { return !(i == 1 && j == 0); });
  std::string cells;
  for (const SourceCellIndex& c : polygon_cells(g, a, s, 1))
    cells += "(" + std::to_string(c.i) + "," + std::to_string(c.j) + ")";
  EXPECT_EQ(cells, "(0,0)(2,0)(0,1)(1,1)(0,2)");  // (1, 0) inactive
  // Two squares sharing the edge x = 14 through the centres of column 2: one takes them.
  PointSource left = s, right = s;
  left.polygon = {{10, 0}, {14, 0}, {14, 4}, {10, 4}};
  right.polygon = {{14, 0}, {18, 0}, {18, 4}, {14, 4}};
  EXPECT_EQ(polygon_cells(g, {}, left, 0).size() + polygon_cells(g, {}, right, 0).size(), 8u);
}

TEST(SweBoundaryLines, BadInflowPolygonsNameTheSourceAndWhatIsWrong) {
  const Grid g{6, 5, 2.0, 10.0, 0.0};
  PointSource s;
  s.name = "pond";
  s.polygon = {{11, 1}, {15, 3}, {11, 1}};
  EXPECT_TRUE(throws_with([&] { polygon_cells(g, {}, s, 2); },
                          {"inflow polygon 2 'pond'", "has 2 distinct points", "at least 3"}));
  s.polygon = {{11, 1}, {15, 5}, {15, 1}, {11, 5}};  // a bow tie
  EXPECT_TRUE(throws_with([&] { polygon_cells(g, {}, s, 2); },
                          {"inflow polygon 2 'pond'", "crosses itself", "meet at (13, 3)"}));
  s.polygon = {{11, 1}, {30, 1}, {11, 5}};
  EXPECT_TRUE(throws_with([&] { polygon_cells(g, {}, s, 2); },
                          {"inflow polygon 2 'pond'", "is off the grid", "point 1 (30, 1) m",
                           "x 10 to 22 m and y 0 to 10 m"}));
  s.polygon = {{11.2, 1.2}, {11.8, 1.2}, {11.5, 1.8}};  // inside cell (0, 0), short of its centre
  EXPECT_TRUE(throws_with([&] { polygon_cells(g, {}, s, 2); },
                          {"inflow polygon 2 'pond'", "holds no active cell"}));
  s.polygon = {{10, 0}, {14, 0}, {14, 4}, {10, 4}};
  const auto a = mask(6, 5, [](Index i, Index j) { return i >= 2 || j >= 2; });
  EXPECT_TRUE(throws_with([&] { polygon_cells(g, a, s, 2); }, {"holds no active cell"}))
      << "over nodata cells only";
}

TEST(SweBoundaryLines, ALevelThatNeverReachesTheGroundIsTheDryOnlyLine) {
  Scene s;
  s.grid = Grid{4, 3, 1.0, 0.0, 0.0};
  s.bed = {2, 1.5, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};  // row 0: 2, 1.5, 3, 3
  Boundary b = line({{0, 0}, {4, 0}});             // the south edges of row 0
  b.kind = BoundaryKind::level;
  b.series = Series{{0, 10}, {1.0, 1.5}};
  const auto edges = boundary_edges(s.grid, {}, b, 0);
  const std::string why = level_below_ground(s, b, edges);
  EXPECT_NE(why.find("highest level, 1.5 m"), std::string::npos) << why;
  EXPECT_NE(why.find("cell (1, 0), is at 1.5 m"), std::string::npos) << why;
  s.active = {1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};  // cell (1, 0) nodata: the lowest is 2 m
  EXPECT_NE(level_below_ground(s, b, edges).find("cell (0, 0), is at 2 m"), std::string::npos);
  b.series.value[1] = 2.01;  // reaches cell (0, 0)
  EXPECT_EQ(level_below_ground(s, b, edges), "");
  b.series.value[1] = 1.0;
  b.kind = BoundaryKind::open;  // an outflow or a discharge onto dry ground: not checked
  EXPECT_EQ(level_below_ground(s, b, edges), "");
}

}  // namespace
TEST(SweBoundaryLines, AnOpenEdgeOnABedFallingTowardItIsFlagged) {
  Scene s;
  s.grid = Grid{3, 3, 2.0, 0.0, 0.0};
  // Rows (south first): 0, 0.1, 0; 0.5, 0.5, 0.5; 9, 9, 9. Falls toward the south edge: 0.25
  // (0.5 / 2 m), 0.2, 0.25; rises toward the north edge.
  s.bed = {0, 0.1, 0, 0.5, 0.5, 0.5, 9, 9, 9};
  Boundary south = line({{0, 0}, {6, 0}});
  south.name = "outlet";
  south.kind = BoundaryKind::open;
  const auto edges = boundary_edges(s.grid, {}, south, 0);
  EdgeFall f = bed_fall_toward_edge(s, edges);
  EXPECT_EQ(f.cells, 3u);
  EXPECT_NEAR(f.slope, 0.7 / 3.0, 1e-12);
  const std::string why = open_on_falling_bed(s, south, edges);
  EXPECT_NE(why.find("(open) lies on a bed falling 23.3% toward the edge"), std::string::npos)
      << why;
  EXPECT_NE(why.find("over its 3 edge cells"), std::string::npos) << why;
  EXPECT_NE(why.find("\"slope\": 0.23"), std::string::npos) << why;
  s.active = {1, 1, 1, 1, 0, 1, 1, 1, 1};  // the middle inner cell nodata: that edge is left out
  f = bed_fall_toward_edge(s, edges);
  EXPECT_EQ(f.cells, 2u);
  EXPECT_NEAR(f.slope, 0.25, 1e-12);
  s.active.clear();
  Boundary north = line({{0, 6}, {6, 6}});
  north.kind = BoundaryKind::open;
  EXPECT_LT(bed_fall_toward_edge(s, boundary_edges(s.grid, {}, north, 1)).slope, 0.0);
  EXPECT_EQ(open_on_falling_bed(s, north, boundary_edges(s.grid, {}, north, 1)), "");
  s.bed.assign(9, 1.0);  // flat
  EXPECT_EQ(open_on_falling_bed(s, south, edges), "");
  s.bed = {0, 0, 0, 0.0009, 0.0009, 0.0009, 1, 1, 1};  // 0.045%: below kOpenEdgeFallWarn
  EXPECT_EQ(open_on_falling_bed(s, south, edges), "");
  s.bed = {0, 0, 0, 0.0011, 0.0011, 0.0011, 1, 1, 1};  // 0.055%
  EXPECT_NE(open_on_falling_bed(s, south, edges).find("falling 0.06%"), std::string::npos);
  south.kind = BoundaryKind::normal_depth;  // the flow types continue the bed: not checked
  EXPECT_EQ(open_on_falling_bed(s, south, edges), "");
}

}  // namespace silt::swe
