// Fault log: summaries count NaN and infinite results once per entry, the consistency check
// names the offending field, and the opportunity digest separates different sequences.
#include "models/faults/fault_log.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace codesim::models;

namespace {

FaultRecord bitflip_record(std::uint64_t opportunity, std::vector<FaultEntry> entries) {
  FaultRecord r;
  r.opportunity = opportunity;
  r.time_s = 1.5;
  r.node = 2;
  r.operation = "forward";
  r.layer = 0;
  r.target = FaultTarget::product;
  r.model = ValueModelKind::bitflip;
  r.rows = 2;
  r.cols = 3;
  r.entries = std::move(entries);
  return r;
}

/// The pointer check_fault_log reports for `log`, or "" when it accepts it.
std::string problem_pointer(const FaultLog& log) {
  try {
    check_fault_log(log);
  } catch (const FaultLogError& e) {
    return e.pointer();
  }
  return "";
}

}  // namespace

TEST_CASE("the summary counts NaN and infinite results once per changed entry") {
  FaultLog log;
  // 1.5 bit 62 -> NaN; 1.0 bit 62 -> +inf; 1.0 bits 62 then 51 -> inf then NaN (counted once).
  log.records.push_back(bitflip_record(3, {{0, 62, 0x3FF8000000000000ULL, 0x7FF8000000000000ULL},
                                           {1, 62, 0x3FF0000000000000ULL, 0x7FF0000000000000ULL},
                                           {4, 51, 0x3FF0000000000000ULL, 0x3FF8000000000000ULL},
                                           {4, 62, 0x3FF8000000000000ULL, 0x7FF8000000000000ULL}}));
  FaultRecord additive;
  additive.opportunity = 9;
  additive.operation = "update";
  additive.target = FaultTarget::weights;
  additive.rows = 1;
  additive.cols = 1;
  additive.entries = {{0, -1, 0x3FF0000000000000ULL, 0x4000000000000000ULL}};
  log.records.push_back(additive);
  REQUIRE(problem_pointer(log).empty());
  const FaultLogSummary s = summarize(log);
  CHECK(s.records == 2);
  CHECK(s.changes == 5);
  CHECK(s.entries == 4);
  CHECK(s.nan_values == 2);
  CHECK(s.inf_values == 1);
  CHECK(s.records_per_target[static_cast<std::size_t>(FaultTarget::product)] == 1);
  CHECK(s.records_per_target[static_cast<std::size_t>(FaultTarget::weights)] == 1);
}

TEST_CASE("a malformed log is rejected at the offending field") {
  const FaultRecord good = bitflip_record(1, {{5, 0, 0x0ULL, 0x1ULL}});
  auto with = [&](auto change) {
    FaultLog log;
    log.records = {good, good};
    log.records[1].opportunity = 4;
    change(log);
    return problem_pointer(log);
  };
  CHECK(with([](FaultLog&) {}).empty());
  CHECK(with([](FaultLog& l) { l.records[1].opportunity = 1; }) == "/records/1/opportunity");
  CHECK(with([](FaultLog& l) { l.opportunities = 4; }) == "/records/1/opportunity");
  CHECK(with([](FaultLog& l) { l.records[0].time_s = std::nan(""); }) == "/records/0/time_s");
  CHECK(with([](FaultLog& l) { l.records[0].node = -1; }) == "/records/0/node");
  CHECK(with([](FaultLog& l) { l.records[0].layer = -2; }) == "/records/0/layer");
  CHECK(with([](FaultLog& l) { l.records[0].operation.clear(); }) == "/records/0/operation");
  CHECK(with([](FaultLog& l) { l.records[1].entries[0].index = 6; }) ==
        "/records/1/entries/0/index");
  CHECK(with([](FaultLog& l) { l.records[1].entries[0].new_bits = 0x3; }) ==
        "/records/1/entries/0/new_bits");
  CHECK(with([](FaultLog& l) { l.records[1].entries[0].bit = 64; }) == "/records/1/entries/0/bit");
  CHECK(with([](FaultLog& l) {
          l.records[0].scalar = ScalarType::float32;
          l.records[0].entries[0] = {0, 31, 0x100000000ULL, 0x180000000ULL};
        }) == "/records/0/entries/0/old_bits");
  CHECK(with([](FaultLog& l) { l.records[0].model = ValueModelKind::gaussian; }) ==
        "/records/0/entries/0/bit");
  CHECK(with([](FaultLog& l) {
          l.records[0].entries.push_back({4, 1, 0x0, 0x2});
        }) == "/records/0/entries/1/index");
  // A second flip of the same entry must start from the first flip's result.
  CHECK(with([](FaultLog& l) {
          l.records[0].entries.push_back({5, 1, 0x0, 0x2});
        }) == "/records/0/entries/1/old_bits");
  CHECK(with([](FaultLog& l) { l.records[0].entries.push_back({5, 1, 0x1, 0x3}); }).empty());
  const FaultLogError error("/records/2/node", "node 7 does not match");
  CHECK(std::string(error.what()) == "/records/2/node: node 7 does not match");
}

TEST_CASE("the digest tells apart opportunity sequences that differ in any field") {
  const std::uint64_t base =
      extend_digest(kEmptyDigest, 0.5, 1, "forward", 0, FaultTarget::weights);
  CHECK(base != kEmptyDigest);
  CHECK(extend_digest(kEmptyDigest, 0.5, 1, "forward", 0, FaultTarget::weights) == base);
  CHECK(extend_digest(kEmptyDigest, 0.5000000000000001, 1, "forward", 0, FaultTarget::weights) !=
        base);
  CHECK(extend_digest(kEmptyDigest, 0.5, 2, "forward", 0, FaultTarget::weights) != base);
  CHECK(extend_digest(kEmptyDigest, 0.5, 1, "backward", 0, FaultTarget::weights) != base);
  CHECK(extend_digest(kEmptyDigest, 0.5, 1, "forward", 1, FaultTarget::weights) != base);
  CHECK(extend_digest(kEmptyDigest, 0.5, 1, "forward", 0, FaultTarget::product) != base);
  // Order matters.
  const std::uint64_t ab =
      extend_digest(extend_digest(kEmptyDigest, 0, 0, "a", -1, FaultTarget::weights), 0, 0, "b", -1,
                    FaultTarget::weights);
  const std::uint64_t ba =
      extend_digest(extend_digest(kEmptyDigest, 0, 0, "b", -1, FaultTarget::weights), 0, 0, "a", -1,
                    FaultTarget::weights);
  CHECK(ab != ba);
}
