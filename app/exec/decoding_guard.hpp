// Decoding guard: the worst condition numbers of each training point's decoding systems, recorded
// in the results, and warnings for the systems that can lose the target accuracy (1e-8 relative).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "app/config/object_reader.hpp"
#include "app/exec/runner.hpp"

namespace codesim::app {

/// The guard of one point.
struct PointDecodingGuard {
  /// {"decode_condition": {"forward": F, "backward": B}, "ill_conditioned": bool,
  ///  "target_relative_accuracy": 1e-8, "layers": [{"layer": l, "forward": f, "backward": b}]}:
  /// F and B the worst over the layers, each the worst condition number of
  /// models::decoding_conditioning (1 for schemes that compare copies, null when singular).
  /// Null for a workload that decodes nothing (iterative_job).
  Json record;
  /// One line per flagged layer and direction: "warning: POINT: decoding of layer L (DIR) has
  /// condition number C: results may lose accuracy beyond 1e-8 relative".
  std::vector<std::string> warnings;
};

/// The guard of every point of an experiment.
struct DecodingGuard {
  std::vector<Json> records;          ///< one per point, in point order
  std::vector<std::string> warnings;  ///< in point, layer, direction order
};

/// "point I" or, with a label, "point I (LABEL)".
std::string guard_point_name(const ExperimentPoint& point, std::size_t index);
/// The guard of one scenario; `point_name` labels its warnings.
PointDecodingGuard guard_scenario(const Scenario& scenario, const std::string& point_name);
/// The guard of every point; cost: a few milliseconds per point at P = 64.
DecodingGuard guard_experiment(const Experiment& experiment);

}  // namespace codesim::app
