// Sweeps: expands a scenario's "sweep" block (a grid and zipped groups of JSON-pointer axes) into
// one scenario document per point.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "app/config/object_reader.hpp"

namespace codesim::app {

/// At most this many points per sweep: every point holds its own copy of the scenario, and more
/// points than this are better run as several scenarios.
inline constexpr std::size_t kMaxSweepPoints = 10000;

/// One point of a sweep.
struct SweepPoint {
  Json params;        ///< ordered object {pointer: value}, pointers in axis order; {} without sweep
  Json document;      ///< the scenario with every param set and the "sweep" key removed
  std::string label;  ///< params["/label"] when given, else "pointer=value, ..."; "" without sweep
};

/// The points of `document` in order: axes are the grid keys as written, then the zip groups in
/// order; the first axis varies slowest. No sweep block (or an empty one) gives one point with
/// empty params. A malformed sweep is a ScenarioError in `file` at the offending sweep key.
std::vector<SweepPoint> expand_sweep(const Json& document, const std::string& file);

}  // namespace codesim::app
