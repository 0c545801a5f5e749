// Scenario sections about node failures: `cluster.crashes`, failure domains (`cluster.domains`),
// the availability trace (`cluster.availability_trace`) and link failures; their laws are read by
// app/config/law_reader.hpp.
#pragma once

#include "app/config/law_reader.hpp"
#include "app/config/object_reader.hpp"
#include "sim/cluster.hpp"

namespace codesim::app {

/// The crash process: `failure` (a law) or `mtbf_s` (exponential up times), and `repair` (a
/// law) or `repair_s` (a fixed repair time); what is not given is `defaults`' (the cluster-wide
/// section's, for an override). Only the keys given or defaulted are recorded, so a scenario
/// without laws resolves as it always did.
sim::CrashSpec read_crashes(ObjectReader& r, const sim::CrashSpec& defaults);

/// Reads the `cluster` keys `domains` and `availability_trace` into cluster.shared_failures
/// (after the node count is known). Recorded only when given, so that scenarios without them
/// resolve as before. The trace's path is used as given (relative to the working directory, like
/// every path in a scenario); its errors are "FILE:LINE: ...".
void read_shared_failures(ObjectReader& r, sim::ClusterSpec& cluster);

/// Reads `link_failures` of `cluster.network` (r: the network section, read into cluster.network
/// already): {"failure": LAW, "repair": LAW}, repair defaulting to a fixed 0. Recorded only when
/// given. fully_connected networks allow them up to kMaxLinkFailureNodes nodes.
void read_link_failures(ObjectReader& r, sim::ClusterSpec& cluster);
inline constexpr int kMaxLinkFailureNodes = 1024;

}  // namespace codesim::app
