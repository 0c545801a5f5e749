// Output checks: each target's kind and identity (std::filesystem), and one probe file per
// directory, so a run that cannot write its outputs stops before it starts, not after.
#include "app/exec/output_check.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <system_error>
#include <utility>
#include <variant>
#include <vector>

#include "app/config/json_input.hpp"
#include "app/config/scenario_error.hpp"
#include "models/data/dataset_source.hpp"
#include "sim/overloaded.hpp"

namespace codesim::app {

namespace {

namespace fs = std::filesystem;

// NAME_MAX of Linux file systems (ext4, xfs, tmpfs): the bytes of one path component.
constexpr std::size_t kMaxFileNameBytes = 255;

/// One file the run writes, and how messages name it.
struct Target {
  std::string path;
  std::string pointer;   ///< the key naming it; "" for -o
  std::string name;      ///< e.g. `the results file "out.json"`
  std::string expected;  ///< what would be right, for "(expected ...)"
  std::string writable;  ///< the same when the directory cannot be written
};

/// A file the run reads (or a directory whose files it reads), and how messages name it.
std::vector<Target> targets_of(const Experiment& experiment, const PreparedRun& prepared,
                               const std::string& results_path) {
  std::vector<Target> targets;
  if (!results_path.empty() && results_path != "-") {
    targets.push_back({results_path, "", "the results file " + in_quotes(results_path),
                       "-o naming a regular file or a new one, or - for standard output",
                       "-o in a directory where files can be created"});
  }
  for (const std::string& path : trace_paths(experiment, prepared)) {
    const bool option = experiment.trace_from_command_line;
    targets.push_back({path, option ? "" : "/trace/file", "the trace " + in_quotes(path),
                       option ? "--trace naming regular files or new ones"
                              : "a trace file pattern naming regular files or new ones",
                       option ? "--trace in directories where files can be created"
                              : "a trace file pattern in directories where files can be created"});
  }
  for (const std::string& path : fault_log_paths(experiment, prepared)) {
    targets.push_back({path, "/faults/log_file", "the fault log " + in_quotes(path),
                       "a log_file pattern naming regular files or new ones",
                       "a log_file pattern in directories where files can be created"});
  }
  return targets;
}

/// The files a training run reads: the fault log it replays, its dataset's files or directory.
void add_training_inputs(const TrainingWorkload& training, std::vector<RunInput>& inputs) {
  if (!training.replay_file.empty())
    inputs.push_back({training.replay_file, "the fault log replayed (/faults/replay)"});
  const models::DatasetSource& data = training.dataset;
  if (training.spec.mode == models::TrainingMode::stochastic) return;  // reads no data
  if (const std::string directory = models::dataset_directory(data); !directory.empty())
    inputs.push_back({directory, "inside the dataset directory (/workload/dataset)", true});
  if (data.kind != models::DatasetKind::idx) return;
  for (const std::string* file : {&data.images, &data.labels, &data.test_images, &data.test_labels})
    if (!file->empty()) inputs.push_back({*file, "a dataset file (/workload/dataset)"});
}

/// The trace CSVs a scenario reads, from its resolved sections: the availability and speed
/// traces of the cluster, the rate trace of the faults.
void add_trace_inputs(const Json& resolved, std::vector<RunInput>& inputs) {
  const auto add = [&](const Json* value, const std::string& pointer) {
    if (value == nullptr) return;
    if (value->is_object() && value->contains("file")) value = &(*value)["file"];
    if (value->is_string() && !value->get<std::string>().empty())
      inputs.push_back({value->get<std::string>(), "a trace read by " + pointer});
  };
  const auto at = [&](const char* section, const char* key) -> const Json* {
    if (!resolved.contains(section) || !resolved[section].is_object()) return nullptr;
    const Json& object = resolved[section];
    return object.contains(key) ? &object[key] : nullptr;
  };
  add(at("cluster", "availability_trace"), "/cluster/availability_trace");
  add(at("cluster", "speed_trace"), "/cluster/speed_trace");
  add(at("faults", "rate_trace"), "/faults/rate_trace");
}

[[noreturn]] void fail(const Experiment& experiment, const Target& target,
                       const std::string& problem, const std::string& expected) {
  throw ScenarioError(experiment.file, target.pointer,
                      target.name + " " + problem + " (expected " + expected + ")");
}

/// Refuses a target that exists as anything but a regular file, or that is an input.
void check_target(const Experiment& experiment, const Target& target,
                  const std::vector<RunInput>& inputs) {
  const fs::path path(target.path);
  if (!path.has_filename()) fail(experiment, target, "names a directory", target.expected);
  // Checked now: a name the file system refuses would lose the results after the run.
  if (const std::size_t bytes = path.filename().string().size(); bytes > kMaxFileNameBytes) {
    fail(experiment, target,
         "has a file name of " + std::to_string(bytes) + " bytes, more than the " +
             std::to_string(kMaxFileNameBytes) + " a directory entry holds",
         target.expected);
  }
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) return;
  if (!fs::is_regular_file(status)) {
    fail(experiment, target, "is " + describe_file_type(status.type()) + ", not a regular file",
         target.expected);
  }
  for (const RunInput& input : inputs) {
    if (!input.directory && fs::equivalent(path, input.path, error) && !error) {
      fail(experiment, target, "is " + input.name + " " + in_quotes(input.path), target.expected);
    }
  }
}

/// Refuses a target inside a directory the run reads (a dataset's), existing or not.
void check_outside_inputs(const Experiment& experiment, const Target& target,
                          const std::vector<RunInput>& inputs) {
  std::error_code error;
  const fs::path file = fs::weakly_canonical(fs::absolute(target.path), error);
  if (error) return;
  for (const RunInput& input : inputs) {
    if (!input.directory) continue;
    const fs::path directory = fs::weakly_canonical(fs::absolute(input.path), error);
    if (error) continue;
    const fs::path relative = file.lexically_relative(directory);
    if (!relative.empty() && *relative.begin() != "..") {
      fail(experiment, target, "is " + input.name + " " + in_quotes(input.path), target.expected);
    }
  }
}

/// The directory `path` goes to, or its nearest existing parent when it does not exist yet.
fs::path existing_directory(const fs::path& path) {
  fs::path directory = path.parent_path();
  std::error_code error;
  while (!directory.empty() && !fs::exists(directory, error)) directory = directory.parent_path();
  return directory.empty() ? fs::path(".") : directory;
}

/// Creates and removes a probe file in `directory`; returns what failed, "" when it worked.
std::string probe(const fs::path& directory) {
  std::error_code error;
  if (!fs::is_directory(directory, error))
    return in_quotes(directory.string()) + " is not a directory";
  std::string name = (directory / ".codesim-probe-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) {
    return "cannot create a file in " + in_quotes(directory.string()) + ": " + std::strerror(errno);
  }
  ::close(fd);
  ::unlink(name.c_str());
  return "";
}

/// Checks every target (kind, identity, no repeats) and probes each directory once.
void check_targets(const Experiment& experiment, const std::vector<Target>& targets,
                   const std::vector<RunInput>& inputs) {
  std::set<fs::path> files;
  std::set<fs::path> probed;
  for (const Target& target : targets) {
    check_target(experiment, target, inputs);
    check_outside_inputs(experiment, target, inputs);
    std::error_code error;
    const fs::path file = fs::weakly_canonical(fs::absolute(target.path), error);
    if (!error && !files.insert(file).second) {
      const bool trace = target.name.starts_with("the trace");
      fail(experiment, target,
           trace ? "is written twice (by -o, faults.log_file or the trace)"
                 : "is written twice (by -o and faults.log_file)",
           target.expected);
    }
    const fs::path directory = existing_directory(target.path);
    if (!probed.insert(directory).second) continue;
    if (const std::string problem = probe(directory); !problem.empty()) {
      fail(experiment, target, "cannot be written: " + problem, target.writable);
    }
  }
}

}  // namespace

std::vector<RunInput> run_inputs(const Experiment& experiment) {
  std::vector<RunInput> inputs = {{experiment.file, "the scenario file"}};
  for (const ExperimentPoint& point : experiment.points) {
    add_trace_inputs(point.scenario.resolved, inputs);
    std::visit(sim::Overloaded{
                   [](const sim::IterativeJobSpec&) {},  // reads no file
                   [&](const TrainingWorkload& training) { add_training_inputs(training, inputs); },
               },
               point.scenario.workload);
  }
  return inputs;
}

void check_outputs(const Experiment& experiment, const PreparedRun& prepared,
                   const std::string& results_path) {
  check_targets(experiment, targets_of(experiment, prepared, results_path), run_inputs(experiment));
}

void check_output_file(const Experiment& experiment, const std::string& path,
                       const std::string& name) {
  if (path.empty() || path == "-") return;
  const Target target{path, "", name + " " + in_quotes(path),
                      "-o naming a regular file or a new one, or - for standard output",
                      "-o in a directory where files can be created"};
  check_targets(experiment, {target}, run_inputs(experiment));
}

}  // namespace codesim::app
