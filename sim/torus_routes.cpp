// TorusRoutes: ring distances per dimension, and the lowest-id closer neighbour as predecessor.
#include "sim/torus_routes.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>

#include "sim/check.hpp"

namespace codesim::sim::detail {
namespace {

// Links between positions a and b of a ring of n (a cycle of two is one link).
int ring_distance(int a, int b, int n) {
  const int d = std::abs(a - b);
  return std::min(d, n - d);
}

}  // namespace

TorusRoutes::TorusRoutes(int rows, int cols, double link_latency_s) : rows_(rows), cols_(cols) {
  CODESIM_CHECK(rows >= 1 && cols >= 1, "a torus needs at least one row and one column");
  row_.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  col_.resize(row_.size());
  for (std::size_t v = 0; v < row_.size(); ++v) {
    row_[v] = static_cast<int>(v) / cols;
    col_[v] = static_cast<int>(v) % cols;
  }
  const int diameter = rows / 2 + cols / 2;
  latency_after_.assign(static_cast<std::size_t>(diameter) + 1, 0.0);
  for (std::size_t h = 1; h < latency_after_.size(); ++h)
    latency_after_[h] = latency_after_[h - 1] + link_latency_s;
}

int TorusRoutes::hops(int a, int b) const {
  const auto i = static_cast<std::size_t>(a);
  const auto j = static_cast<std::size_t>(b);
  return ring_distance(row_[i], row_[j], rows_) + ring_distance(col_[i], col_[j], cols_);
}

int TorusRoutes::predecessor(int src, int v) const {
  const int r = row_[static_cast<std::size_t>(v)];
  const int c = col_[static_cast<std::size_t>(v)];
  // The up to four neighbours (fewer when a dimension has one or two positions).
  const std::array<int, 4> neighbours = {
      ((r + rows_ - 1) % rows_) * cols_ + c, ((r + 1) % rows_) * cols_ + c,
      r * cols_ + (c + cols_ - 1) % cols_, r * cols_ + (c + 1) % cols_};
  const int closer = hops(src, v) - 1;
  int best = -1;
  for (int w : neighbours)
    if (w != v && hops(src, w) == closer && (best < 0 || w < best)) best = w;
  CODESIM_CHECK(best >= 0, "every vertex but the source has a neighbour closer to it");
  return best;
}

}  // namespace codesim::sim::detail
