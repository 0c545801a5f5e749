// Fuzz harness bodies, shared by the libFuzzer targets and the test that replays kept inputs:
// each feeds bytes to one real input reader and lets only findings escape.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace codesim::fuzz {

/// What a reader made of an input that is not a finding.
enum class Verdict {
  accepted,  ///< read without error
  rejected,  ///< refused with the reader's documented error type
};

/// Feeds `bytes` to one reader. Returns the verdict when the reader accepts the input or rejects
/// it with its documented error; any other exception escapes, and crashes, sanitizer reports and
/// hangs are findings too.
using Harness = Verdict (*)(std::span<const std::uint8_t> bytes);

/// app::parse_scenario_text + app::make_experiment on the bytes as text (nothing is run);
/// app::ScenarioError is documented.
Verdict scenario_harness(std::span<const std::uint8_t> bytes);
/// models::read_idx on a memory file holding the bytes; models::DatasetError is documented.
Verdict idx_harness(std::span<const std::uint8_t> bytes);
/// models::read_mnist_json_digit on a memory file holding the bytes; models::DatasetError is
/// documented.
Verdict mnist_json_harness(std::span<const std::uint8_t> bytes);
/// What app::read_fault_log_file does after reading the file: app::parse_scenario_text, then
/// app::fault_log_from_json; app::ScenarioError (which also reports JSON syntax errors) is
/// documented.
Verdict fault_log_harness(std::span<const std::uint8_t> bytes);

/// The target names: "scenario", "idx", "mnist_json", "fault_log".
std::vector<std::string_view> harness_names();
/// The harness of target `name`, or nullptr for an unknown name.
Harness find_harness(std::string_view name);

}  // namespace codesim::fuzz
