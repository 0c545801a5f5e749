// ChromeTraceWriter: valid JSON always, microseconds, windows, the cap, no file without close().
#include "analysis/chrome_trace_writer.hpp"

#include <doctest/doctest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "support/temp_directory.hpp"

namespace {

using codesim::analysis::ChromeTraceWriter;
using codesim::analysis::TraceOptions;
using codesim::sim::TraceLane;
using codesim::test::read_file;
using codesim::test::TempDirectory;
using Json = nlohmann::json;

Json events_named(const Json& trace, const std::string& phase) {
  Json out = Json::array();
  for (const Json& e : trace["traceEvents"])
    if (e["ph"] == phase) out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("the writer streams slices, instants, counters and flows in microseconds") {
  TempDirectory dir;
  const auto path = (dir / "t.json").string();
  {
    ChromeTraceWriter w(path, TraceOptions{}, 2);
    w.slice(1, TraceLane::compute, "forward", 0.5, 0.25,
            {{"straggler_factor", 1.5}, {"outcome", "done \"quoted\""}});
    w.instant(codesim::sim::kJobTrack, "rollback", 1.0);
    w.counter("test_accuracy", 2.0, 0.75);
    w.flow("regeneration block", 0, 1.0, 1, 1.5);
    CHECK_FALSE(std::filesystem::exists(path));  // written beside it until closed
    w.close();
  }
  const Json trace = Json::parse(read_file(path));
  const Json slices = events_named(trace, "X");
  REQUIRE(slices.size() == 1);
  CHECK(slices[0]["pid"] == 1);
  CHECK(slices[0]["ts"].get<double>() == doctest::Approx(5e5));
  CHECK(slices[0]["dur"].get<double>() == doctest::Approx(2.5e5));
  CHECK(slices[0]["args"]["outcome"] == "done \"quoted\"");
  CHECK(events_named(trace, "i")[0]["pid"] == 2);  // the job process follows the nodes
  CHECK(events_named(trace, "C")[0]["args"]["test_accuracy"] == 0.75);
  CHECK(events_named(trace, "s").size() == 1);
  CHECK(events_named(trace, "f").size() == 1);
  CHECK(trace["otherData"]["truncated"] == false);
  CHECK(trace["otherData"]["events_written"] == 5);
}

TEST_CASE("the writer drops what lies outside its window") {
  TempDirectory dir;
  const auto path = (dir / "t.json").string();
  TraceOptions options;
  options.from_s = 1.0;
  options.to_s = 2.0;
  options.from_iteration = 1;
  ChromeTraceWriter w(path, options, 1);
  w.progress(1);
  w.slice(0, TraceLane::compute, "before", 0.0, 0.5);
  w.slice(0, TraceLane::compute, "overlapping", 0.5, 1.0);
  w.instant(0, "after", 2.5);
  w.instant(0, "inside", 1.5);
  w.progress(0);
  w.instant(0, "too early in iterations", 1.5);
  w.close();
  const Json trace = Json::parse(read_file(path));
  CHECK(events_named(trace, "X").size() == 1);
  REQUIRE(events_named(trace, "i").size() == 1);
  CHECK(events_named(trace, "i")[0]["name"] == "inside");
}

TEST_CASE("the cap ends the trace as valid JSON that says it was truncated") {
  TempDirectory dir;
  const auto path = (dir / "t.json").string();
  TraceOptions options;
  options.max_events = 3;
  ChromeTraceWriter w(path, options, 1);
  for (int i = 0; i < 10; ++i) w.instant(0, "fault", i);
  w.flow("f", 0, 0.0, 0, 1.0);
  w.close();
  CHECK(w.truncated());
  CHECK(w.dropped() == 9);
  const Json trace = Json::parse(read_file(path));
  CHECK(events_named(trace, "i").size() == 3);
  CHECK(events_named(trace, "s").empty());
  CHECK(trace["otherData"]["truncated"] == true);
}

TEST_CASE("a trace may go to a directory that does not exist yet") {
  TempDirectory dir;
  const auto path = (dir / "new" / "deeper" / "t.json").string();
  ChromeTraceWriter w(path, TraceOptions{}, 1);
  w.close();
  CHECK(Json::parse(read_file(path))["traceEvents"].size() > 0);
}

TEST_CASE("a writer destroyed without close leaves no file") {
  TempDirectory dir;
  const auto path = (dir / "t.json").string();
  { ChromeTraceWriter w(path, TraceOptions{}, 1); }
  CHECK(std::filesystem::is_empty(dir.path()));
}
