// Sweeps: expands a scenario's "sweep" block (a grid and zipped groups of JSON-pointer axes) into
// one scenario document per point.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "app/config/object_reader.hpp"
#include "app/config/scenario_error.hpp"

namespace codesim::app {

/// At most this many points per sweep: every point holds its own copy of the scenario, and more
/// points than this are better run as several scenarios.
inline constexpr std::size_t kMaxSweepPoints = 10000;

/// Where one swept value of a point comes from.
struct SweepSource {
  std::string pointer;  ///< where the value goes in the scenario, e.g. /strategy
  std::string where;    ///< where it is in the file, e.g. /sweep/zip/0/~1strategy/1
};

/// One point of a sweep.
struct SweepPoint {
  Json params;        ///< ordered object {pointer: value}, pointers in axis order; {} without sweep
  Json document;      ///< the scenario with every param set and the "sweep" key removed
  std::string label;  ///< params["/label"] when given, else "pointer=value, ..."; "" without sweep
  std::vector<SweepSource> sources;  ///< one per param, in the same order
};

/// The points of `document` in order: axes are the grid keys as written, then the zip groups in
/// order; the first axis varies slowest. No sweep block (or an empty one) gives one point with
/// empty params. A malformed sweep is a ScenarioError in `file` at the offending sweep key.
std::vector<SweepPoint> expand_sweep(const Json& document, const std::string& file);

/// `error`, met in sweep point `index` (`label`) whose values come from `sources`, with a message
/// naming the point and, when the error lies inside swept values or holds some, where they are in
/// the file (e.g. /sweep/zip/0/~1strategy/1/m). An error of a point without sources is returned
/// unchanged.
ScenarioError in_sweep_point(const ScenarioError& error, std::size_t index,
                             const std::string& label, const std::vector<SweepSource>& sources);

}  // namespace codesim::app
