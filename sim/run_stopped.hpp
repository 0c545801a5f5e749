// The exception that abandons a running replica when its caller asks it to stop (an interrupted
// run), shared by every workload so the runner catches one type.
#pragma once

#include <stdexcept>

namespace codesim::sim {

/// Thrown by a workload whose stop poll returned true: the replica is abandoned, not finished.
class RunStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace codesim::sim
