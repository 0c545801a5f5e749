// The ranks of an MPI job as the channel of a numeric run distributed over them (codesim run
// --distribute nodes; models/training/numeric/node_ranks.hpp says what crosses it).
#pragma once

#include <memory>

#include "models/training/numeric/node_ranks.hpp"

namespace codesim::app {

/// Every rank of this MPI job, on a communicator of its own; null when codesim was not started by
/// an MPI launcher or was built without MPI.
std::unique_ptr<models::RankChannel> make_rank_channel();

/// What one rank's channel carried: bytes it sent or received, messages, and the wall seconds it
/// spent inside MPI calls (waiting for the others included).
struct RankTraffic {
  double bytes = 0;
  double messages = 0;
  double seconds = 0;
};
/// The traffic of a channel make_rank_channel made (zero for any other).
RankTraffic rank_traffic(const models::RankChannel& channel);

/// Ranks of this job on this machine (1 without MPI): they share its memory.
int ranks_on_this_machine();

}  // namespace codesim::app
