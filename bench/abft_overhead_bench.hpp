// The ABFT cases of `codesim-bench codes`: what the checksums, the node's check and the
// checksummed update cost over the same products on plain blocks (abft_overhead_bench.cpp).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/coding/coding_scheme.hpp"
#include "models/linalg/dense_kernels.hpp"

namespace codesim::bench {

/// One scheme shape, batch and direction. Times are medians over interleaved repetitions of all
/// the nodes' work; differences are medians of the per-repetition differences (paired, so the
/// machine's slow phases cancel), as fractions of the plain products' median time.
struct AbftOverheadCase {
  std::string config;
  int rows = 0;  // W is rows x cols
  int cols = 0;
  int nodes = 0;
  int batch = 0;
  models::Direction dir = models::Direction::forward;
  double plain_s = 0;            // all nodes' products on plain blocks (rows/m x cols/n)
  double products_s = 0;         // the same products through the augmented blocks (scheme.multiply)
  double check_s = 0;            // check_partial on every node's partial, right after its product
  double checksum_fraction = 0;  // (products - plain) / plain, paired
  double checksum_noise = 0;     // half the interquartile range of the paired fraction
  double checksum_min_fraction = 0;  // fastest augmented over fastest plain repetition, - 1
  double check_fraction = 0;         // check / plain
  // Forward cases only (the update is one per iteration): the checksummed update (scheme.update)
  // against add_outer_product on the plain share, as a fraction of the plain update.
  bool has_update = false;
  double plain_update_s = 0;
  double update_s = 0;
  double update_fraction = 0;
  double update_noise = 0;
  double update_min_fraction = 0;
  std::string status;  // the worst check_partial status seen (clean expected)
  double total_fraction() const { return checksum_fraction + check_fraction; }
};

/// Runs every case: abft 1x1 on N = 4096, 5x4 on N = 4080 (blocks 816 x 1020) and one node of the
/// paper's 5x4 grid on 10000 x 10000 (a 2000 x 2500 block); --quick: N = 1024 and 1020 only.
std::vector<AbftOverheadCase> run_abft_overhead(bool quick, models::Arithmetic arithmetic,
                                                int repetitions);
void print_abft_overhead(const std::vector<AbftOverheadCase>& cases, int repetitions,
                         std::ostream& out);
nlohmann::ordered_json abft_overhead_json(const std::vector<AbftOverheadCase>& cases);

}  // namespace codesim::bench
