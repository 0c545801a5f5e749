// The small training cluster the advise tests search: 64-64-16 on slow nodes in stochastic mode,
// so that splitting the work pays and the space holds every scheme, yet a search takes a second.
#pragma once

#include "app/config/object_reader.hpp"

namespace codesim::test {

/// `nodes` nodes, weights struck with probability `eps` per node per operation, node crashes
/// every `node_mtbf_s` seconds on average (none when 0) repaired in 10 ms.
inline app::Json small_advise_scenario(int nodes, double eps, double node_mtbf_s) {
  app::Json d = app::Json::parse(R"({"name": "small", "seed": 3,
    "cluster": {"nodes": 6, "speed_flops_per_s": 1e7},
    "checkpoint": {"policy": "every_iterations", "every_iterations": 20, "write_s": 0.002,
                   "restart_s": 0.002},
    "workload": {"kind": "training", "mode": "stochastic", "layers": [64, 64, 16],
                 "iterations": 200},
    "strategy": {"scheme": "replication", "m": 1, "n": 1, "copies": 2},
    "faults": {"targets": {"weights": {"probability_per_operation": 0}}}})");
  d["cluster"]["nodes"] = nodes;
  d["faults"]["targets"]["weights"]["probability_per_operation"] = eps;
  if (node_mtbf_s > 0) d["cluster"]["crashes"] = {{"mtbf_s", node_mtbf_s}, {"repair_s", 0.01}};
  return d;
}

}  // namespace codesim::test
