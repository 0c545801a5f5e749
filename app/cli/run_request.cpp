// Reading `codesim run`'s options into a RunRequest.
#include "app/cli/run_request.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ostream>
#include <utility>

#include "app/cli/trace_options.hpp"
#include "app/config/scenario_error.hpp"

namespace codesim::app {

namespace po = boost::program_options;

namespace {

/// --jobs N or --threads N as a thread count in [1, kMaxThreadCount]; nullopt after reporting an
/// error.
std::optional<int> parse_thread_count(const std::string& flag, const std::string& text,
                                      std::ostream& err) {
  const bool valid =
      !text.empty() && text.size() <= 4 &&
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  const int count = valid ? std::stoi(text) : 0;
  if (count < 1 || count > kMaxThreadCount) {
    err << "error: codesim run: " << flag << " " << text << " is not a thread count (expected an "
        << "integer in [1, " << kMaxThreadCount << "])\n";
    return std::nullopt;
  }
  return count;
}

/// --distribute and --memory-limit-gb into `request`; false after reporting an error.
bool read_distribution(const po::variables_map& values, RunRequest& request, std::ostream& err) {
  if (values.count("distribute")) {
    const std::string what = values["distribute"].as<std::string>();
    if (what != "nodes") {
      err << "error: codesim run: --distribute " << printable(what)
          << " is not a distribution (expected nodes)\n";
      return false;
    }
    if (request.jobs > 1) {
      err << "error: codesim run: --jobs " << request.jobs
          << " with --distribute nodes (expected --jobs 1: every rank runs the same unit)\n";
      return false;
    }
    request.distribute = true;
  }
  if (values.count("memory-limit-gb")) {
    const std::string text = values["memory-limit-gb"].as<std::string>();
    char* end = nullptr;
    const double gb = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(gb > 0) || !std::isfinite(gb)) {
      err << "error: codesim run: --memory-limit-gb " << printable(text)
          << " is not a memory size (expected a positive number of gigabytes)\n";
      return false;
    }
    request.memory_limit_bytes = gb * 1e9;
  }
  return true;
}

}  // namespace

bool read_arithmetic(const std::string& command, const po::variables_map& values,
                     RunRequest& request, std::ostream& err) {
  request.arithmetic_text = values["arithmetic"].as<std::string>();
  const std::optional<models::Arithmetic> arithmetic =
      models::parse_arithmetic(request.arithmetic_text);
  if (!arithmetic) {
    err << "error: codesim " << command << ": --arithmetic " << printable(request.arithmetic_text)
        << " is not an arithmetic (expected " << models::kArithmeticNames << ")\n";
    return false;
  }
  request.arithmetic = *arithmetic;
  return true;
}

void add_run_options(po::options_description& options) {
  options.add_options()("output,o", po::value<std::string>()->value_name("OUT.json"),
                        "write the results here (- for standard output; default "
                        "results/<scenario name>.json)")(
      "seed", po::value<std::string>()->value_name("N"), "use seed N instead of the scenario's")(
      "replicas", po::value<std::string>()->value_name("N"), "run N replicas")(
      "jobs,j", po::value<std::string>()->value_name("N"),
      "run replicas and sweep points on N threads (default 1; the results do not depend on N)")(
      "threads", po::value<std::string>()->value_name("N"),
      "share each numeric training run's large node products and updates between N threads "
      "(default 1; the results do not depend on N; --jobs J --threads N uses J x N threads)")(
      "distribute", po::value<std::string>()->value_name("nodes"),
      "under mpirun, run each numeric training run on every rank, each holding the blocks of its "
      "share of the simulated nodes (the results do not depend on the number of ranks)")(
      "memory-limit-gb", po::value<std::string>()->value_name("GB"),
      "refuse runs that need more than GB gigabytes per process (default: the available memory, "
      "shared by the ranks of a distributed run on this machine)")(
      "list-points", po::bool_switch(), "print the sweep points and exit without running")(
      "force", po::bool_switch(),
      "run even when the expected simulated time exceeds time_limit_s by orders of magnitude")(
      "quiet,q", po::bool_switch(), "print nothing but errors");
}

std::optional<RunRequest> read_run_request(const po::variables_map& values, const std::string& file,
                                           std::vector<std::string> sets, std::ostream& err) {
  RunRequest request;
  request.file = file;
  request.sets = std::move(sets);
  if (values.count("seed")) request.sets.push_back("/seed=" + values["seed"].as<std::string>());
  if (values.count("replicas"))
    request.sets.push_back("/replicas=" + values["replicas"].as<std::string>());
  request.quiet = values["quiet"].as<bool>();
  request.list_points = values["list-points"].as<bool>();
  request.force = values["force"].as<bool>();
  if (values.count("output")) request.output = values["output"].as<std::string>();
  for (const auto& [flag, count] :
       {std::pair{"jobs", &request.jobs}, {"threads", &request.threads}}) {
    if (!values.count(flag)) continue;
    const std::optional<int> parsed =
        parse_thread_count(std::string("--") + flag, values[flag].as<std::string>(), err);
    if (!parsed) return std::nullopt;
    *count = *parsed;
  }
  if (!read_arithmetic("run", values, request, err)) return std::nullopt;
  if (!read_trace_options(values, request.trace, err)) return std::nullopt;
  if (!read_distribution(values, request, err)) return std::nullopt;
  return request;
}

void apply_arithmetic(const RunRequest& request, Experiment& experiment) {
  if (!models::arithmetic_available(request.arithmetic)) {
    std::string here;
    for (const models::Arithmetic a : models::available_arithmetics())
      here += ", " + std::string(models::arithmetic_name(a));
    throw ScenarioError(request.file, "",
                        "--arithmetic " + request.arithmetic_text +
                            " needs a CPU that runs it (avx2_fma: AVX2 and FMA; avx512: AVX-512 F, "
                            "DQ and VL) and a build for x86-64 (expected auto" +
                            here + " on this machine)");
  }
  use_arithmetic(experiment, request.arithmetic);
  use_threads(experiment, request.threads);
}

}  // namespace codesim::app
