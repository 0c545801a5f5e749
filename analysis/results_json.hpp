// Results documents: per-replica metrics, their aggregate (mean, stderr, ci95, n), atomic writes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/metric_set.hpp"

namespace codesim::analysis {

/// `value`, or null when it is infinite or NaN (JSON has no such numbers).
nlohmann::ordered_json finite_or_null(double value);

/// {"replica": r, then every metric of `metrics` in its order}.
nlohmann::ordered_json replica_json(std::uint64_t replica, const sim::MetricSet& metrics);

/// {metric: {"mean", "stderr", "ci95", "n"}} for every metric of any replica, in first-seen order;
/// n counts the replicas that have the metric. Non-finite statistics are written as null.
nlohmann::ordered_json aggregate_json(std::span<const sim::MetricSet> replicas);

/// One point of a results document: {"params": params, "label": label, "replicas": [...],
/// "aggregate": {...}}; replicas[i] is replica number numbers[i] (0, 1, ... when `numbers` is
/// empty).
nlohmann::ordered_json point_json(nlohmann::ordered_json params, const std::string& label,
                                  std::span<const sim::MetricSet> replicas,
                                  std::span<const std::uint64_t> numbers = {});

/// The text of `document`: two-space indentation and a final newline, the same bytes for the
/// same document.
std::string json_text(const nlohmann::ordered_json& document);

/// Writes `text` to `path` atomically: a temporary file in the same directory, then a rename over
/// `path`, so readers see the old file or the whole new one. Creates the parent directory.
/// Throws std::runtime_error (after removing the temporary file) on failure.
void write_text_atomically(std::string_view text, const std::filesystem::path& path);

/// write_text_atomically(json_text(document), path).
void write_json_atomically(const nlohmann::ordered_json& document,
                           const std::filesystem::path& path);

}  // namespace codesim::analysis
