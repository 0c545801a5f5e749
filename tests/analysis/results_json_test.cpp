// Results documents: aggregation of replica metrics and atomic writes.
#include "analysis/results_json.hpp"

#include <doctest/doctest.h>

#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "analysis/summary_statistics.hpp"
#include "support/temp_directory.hpp"

using codesim::analysis::aggregate_json;
using codesim::analysis::json_text;
using codesim::analysis::point_json;
using codesim::analysis::replica_json;
using codesim::analysis::write_json_atomically;
using codesim::sim::MetricSet;
using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;
using codesim::test::read_file;
using codesim::test::TempDirectory;

namespace {

std::vector<fs::path> files_in(const fs::path& directory) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(directory)) files.push_back(entry.path());
  return files;
}

std::vector<MetricSet> three_replicas() {
  std::vector<MetricSet> replicas(3);
  const double times[] = {10.0, 12.0, 17.0};
  for (int i = 0; i < 3; ++i) {
    replicas[i].set("completion_time_s", times[i]);
    replicas[i].set("rollbacks", i);
  }
  return replicas;
}

}  // namespace

TEST_CASE("a replica's series are written as columns and rows after its scalars") {
  MetricSet metrics;
  metrics.set("final", 0.5);
  metrics.add_series("accuracy_vs_time", {"time_s", "accuracy"});
  metrics.append_row("accuracy_vs_time", {0.0, 0.1});
  metrics.append_row("accuracy_vs_time", {2.5, 0.9});
  CHECK(replica_json(1, metrics).dump() ==
        R"({"replica":1,"final":0.5,"accuracy_vs_time":{"columns":["time_s","accuracy"],)"
        R"("rows":[[0.0,0.1],[2.5,0.9]]}})");
}

TEST_CASE("a replica entry starts with its number and keeps the metric order") {
  MetricSet metrics;
  metrics.set("zeta", 1.5);
  metrics.set("alpha", 2.0);
  CHECK(replica_json(4, metrics).dump() == R"({"replica":4,"zeta":1.5,"alpha":2.0})");
}

TEST_CASE("the aggregate gives mean, stderr, ci95 and n of every metric") {
  const auto replicas = three_replicas();
  const Json aggregate = aggregate_json(replicas);
  REQUIRE(aggregate.size() == 2);
  CHECK(aggregate.begin().key() == "completion_time_s");
  const Json& time = aggregate["completion_time_s"];
  CHECK(time["mean"].get<double>() == doctest::Approx(13.0));
  // sample sd = sqrt(((-3)^2 + (-1)^2 + 4^2) / 2) = sqrt(13)
  const double stderr_mean = std::sqrt(13.0) / std::sqrt(3.0);
  CHECK(time["stderr"].get<double>() == doctest::Approx(stderr_mean));
  CHECK(time["ci95"].get<double>() ==
        doctest::Approx(codesim::analysis::student_t95(2) * stderr_mean));
  CHECK(time["n"] == 3);
  CHECK(aggregate["rollbacks"]["mean"].get<double>() == doctest::Approx(1.0));
}

TEST_CASE("a metric missing from some replicas is aggregated over those that have it") {
  auto replicas = three_replicas();
  replicas[2].set("late_metric", 5.0);
  const Json aggregate = aggregate_json(replicas);
  CHECK(aggregate["late_metric"]["n"] == 1);
  CHECK(aggregate["late_metric"]["mean"] == 5.0);
  CHECK(aggregate["late_metric"]["ci95"] == 0.0);
}

TEST_CASE("non-finite statistics are written as null") {
  std::vector<MetricSet> replicas(2);
  replicas[0].set("x", INFINITY);
  replicas[1].set("x", 1.0);
  const Json aggregate = aggregate_json(replicas);
  CHECK(aggregate["x"]["mean"].is_null());
  CHECK(aggregate["x"]["n"] == 2);
}

TEST_CASE("a point holds its params, label, numbered replicas and their aggregate") {
  const auto replicas = three_replicas();
  const Json point = point_json({{"nodes", 8}}, "eight nodes", replicas);
  CHECK(point["params"]["nodes"] == 8);
  CHECK(point["label"] == "eight nodes");
  REQUIRE(point["replicas"].size() == 3);
  CHECK(point["replicas"][2]["replica"] == 2);
  CHECK(point["replicas"][2]["completion_time_s"] == 17.0);
  CHECK(point["aggregate"]["completion_time_s"]["n"] == 3);
}

TEST_CASE("replicas can carry their own numbers (a replay, or an interrupted run)") {
  const auto replicas = three_replicas();
  const std::vector<std::uint64_t> numbers = {5, 6, 9};
  const Json point = point_json(Json::object(), "", replicas, numbers);
  CHECK(point["replicas"][0]["replica"] == 5);
  CHECK(point["replicas"][2]["replica"] == 9);
}

TEST_CASE("json text uses two-space indentation and ends with a newline") {
  const Json document = {{"a", 1}, {"b", {2, 3}}};
  CHECK(json_text(document) == "{\n  \"a\": 1,\n  \"b\": [\n    2,\n    3\n  ]\n}\n");
}

TEST_CASE("an atomic write creates the directory and leaves no temporary file") {
  TempDirectory dir;
  const fs::path path = dir.path() / "deep" / "er" / "out.json";
  const Json document = {{"schema_version", 1}};
  write_json_atomically(document, path);
  CHECK(read_file(path) == json_text(document));
  CHECK(files_in(path.parent_path()) == std::vector<fs::path>{path});
}

TEST_CASE("an atomic write replaces an existing file completely") {
  TempDirectory dir;
  const fs::path path = dir.path() / "out.json";
  std::ofstream(path) << std::string(10000, 'x');
  write_json_atomically(Json{{"short", true}}, path);
  CHECK(read_file(path) == "{\n  \"short\": true\n}\n");
  CHECK(files_in(dir.path()).size() == 1);
}

TEST_CASE("a write that cannot happen throws and leaves nothing behind") {
  TempDirectory dir;
  const fs::path blocker = dir.path() / "file";
  std::ofstream(blocker) << "x";
  CHECK_THROWS_AS(write_json_atomically(Json::object(), blocker / "out.json"), std::runtime_error);
  // The target is a directory: the rename fails and the temporary file is removed.
  const fs::path directory_target = dir.path() / "taken";
  fs::create_directory(directory_target);
  fs::create_directory(directory_target / "inside");
  CHECK_THROWS_AS(write_json_atomically(Json::object(), directory_target), std::runtime_error);
  CHECK(files_in(dir.path()).size() == 2);
}
