// Which algorithm runs a collective, as MPI libraries let a user choose (cluster.network.
// collectives): the ring or Bruck all-gather or the faster of the two, and the binomial or the
// scatter + all-gather broadcast.
#pragma once

#include <array>
#include <string_view>

namespace codesim::sim {

/// automatic: the faster of ring and Bruck for each all-gather, as MPI libraries pick by size.
enum class AllGatherAlgorithm { automatic, ring, bruck };
inline constexpr std::array<std::string_view, 3> kAllGatherAlgorithmNames = {"auto", "ring",
                                                                             "bruck"};

/// binomial: ceil(log2 p) rounds of the whole message (short messages); scatter_all_gather: a
/// binomial scatter of p pieces, then a ring all-gather of them (van de Geijn's long-message
/// broadcast, MPICH's for large messages): about 2 bytes / bandwidth whatever p.
enum class BroadcastAlgorithm { binomial, scatter_all_gather };
inline constexpr std::array<std::string_view, 2> kBroadcastAlgorithmNames = {"binomial",
                                                                             "scatter_all_gather"};

struct CollectiveChoice {
  AllGatherAlgorithm all_gather = AllGatherAlgorithm::automatic;
  BroadcastAlgorithm broadcast = BroadcastAlgorithm::binomial;
};

}  // namespace codesim::sim
