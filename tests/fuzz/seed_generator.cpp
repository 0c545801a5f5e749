// Writes the generated fuzz seeds (IDX files, fault logs, MNIST digit files) with the project's own
// writers: `fuzz_seed_generator tests/fuzz/seeds` rebuilds them. Hand-written seeds sit beside
// them.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "app/config/fault_log_json.hpp"
#include "models/data/idx_loader.hpp"
#include "models/faults/fault_log.hpp"
#include "models/faults/value_model.hpp"

namespace {

namespace fs = std::filesystem;
using codesim::models::bits_of;
using codesim::models::FaultLog;
using codesim::models::FaultRecord;
using codesim::models::IdxArray;

IdxArray counting_array(std::vector<std::uint32_t> dimensions) {
  IdxArray array{std::move(dimensions), {}};
  std::size_t count = 1;
  for (std::uint32_t size : array.dimensions) count *= size;
  for (std::size_t i = 0; i < count; ++i) array.values.push_back(static_cast<std::uint8_t>(i * 37));
  return array;
}

void write_idx_seeds(const fs::path& dir) {
  using codesim::models::write_idx;
  write_idx(dir / "labels-3.idx", counting_array({3}), false);
  write_idx(dir / "labels-3.idx.gz", counting_array({3}), true);
  write_idx(dir / "images-2x2x3.idx", counting_array({2, 2, 3}), false);
  write_idx(dir / "images-2x2x3.idx.gz", counting_array({2, 2, 3}), true);
  write_idx(dir / "images-1x4x4.idx.gz", counting_array({1, 4, 4}), true);
  write_idx(dir / "rank-4.idx", counting_array({1, 2, 1, 3}), false);
}

// One record per fault model and scalar, with the awkward values the JSON form must carry.
FaultLog sample_log() {
  using namespace codesim::models;
  FaultLog log;
  log.seed = 0xFFFFFFFFFFFFFFFFULL;
  log.replica = 2;
  log.opportunities = 100;
  log.sequence_digest = 0x0123456789ABCDEFULL;
  FaultRecord a;
  a.opportunity = 7;
  a.time_s = 0.25;
  a.node = 3;
  a.operation = "forward";
  a.layer = 1;
  a.target = FaultTarget::weights;
  a.model = ValueModelKind::sparse_additive;
  a.rows = 4;
  a.cols = 5;
  a.sequence_digest = 0xFFFFFFFFFFFFFFFFULL;
  a.entries = {{0, -1, bits_of(0.1), 0x7FF0000000000001ULL},
               {2, -1, bits_of(std::numeric_limits<double>::infinity()), 0x1ULL},
               {19, -1, bits_of(-1e-310), bits_of(-0.0)}};
  log.records.push_back(a);
  FaultRecord b;
  b.opportunity = 8;
  b.time_s = 0.5;
  b.node = 0;
  b.operation = "activation";
  b.target = FaultTarget::activation;
  b.model = ValueModelKind::bitflip;
  b.scalar = ScalarType::float32;
  b.rows = 3;
  b.cols = 1;
  b.entries = {{0, 0, 0x7F800000ULL, 0x7F800001ULL}, {2, 31, bits_of(0.1f), bits_of(-0.1f)}};
  log.records.push_back(b);
  return log;
}

void write_fault_log_seeds(const fs::path& dir) {
  codesim::app::write_fault_log_file(FaultLog{}, (dir / "empty.json").string());
  codesim::app::write_fault_log_file(sample_log(), (dir / "sample.json").string());
}

// One image of 784 values in the npm package's style (bytes / 255 to 3 decimals), optionally
// with other members the reader must skip.
std::string digit_file(bool extras) {
  std::string text =
      extras ? "{\"label\": \"seven\", \"meta\": {\"n\": [1, 2.5e-1, true, null]},\n" : "{";
  text += "\"data\":[";
  for (int i = 0; i < 784; ++i) {
    const int byte = (i * 7) % 256;
    char value[16];
    std::snprintf(value, sizeof value, "%.3f", byte / 255.0);
    std::string v = value;
    while (v.back() == '0') v.pop_back();
    if (v.back() == '.') v.pop_back();
    if (i > 0) text += ',';
    text += v;
  }
  return text + "]}";
}

void write_mnist_json_seeds(const fs::path& dir) {
  std::ofstream(dir / "one-image.json", std::ios::binary) << digit_file(false);
  std::ofstream(dir / "one-image-extras.json", std::ios::binary) << digit_file(true) << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seed_generator SEEDS_DIR\n");
    return 2;
  }
  const fs::path root = argv[1];
  for (const char* target : {"idx", "fault_log", "mnist_json"})
    fs::create_directories(root / target);
  write_idx_seeds(root / "idx");
  write_fault_log_seeds(root / "fault_log");
  write_mnist_json_seeds(root / "mnist_json");
  return 0;
}
