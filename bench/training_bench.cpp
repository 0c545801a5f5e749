// `codesim-bench training`: error-free coded training through the real train_coded. Three modes:
//   steps (default)  useful SGD steps per second of one scheme, to compare with the PyTorch peer
//                    (bench/peers/torch_mlp.py) on the same MLP and batch;
//   --overhead       wall time of train_coded over the bare arithmetic of its nodes (every
//                    participant's block products forward and backward and every node's rank-B
//                    update through the same dense kernels on blocks of the same shapes) for three
//                    schemes;
//   --memory         peak resident memory (getrusage ru_maxrss) of the paper configuration
//                    (784-10000-10000-10, CodeNet 7x6 grid (5,4), batch 1, MNIST-sized data, one
//                    checkpoint) against the bytes of all stored blocks plus the dataset.
// All runs: no faults, no stragglers, no crashes, evaluation on a few samples only.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <nlohmann/json.hpp>

#include "bench/bench_timing.hpp"
#include "bench/benchmarks.hpp"
#include "bench/engine_bench_options.hpp"
#include "models/coding/coding_scheme.hpp"
#include "models/data/synthetic_dataset.hpp"
#include "models/linalg/dense_kernels.hpp"
#include "models/training/train.hpp"

namespace codesim::bench {
namespace {

using models::Direction;
using models::Matrix;
using Clock = std::chrono::steady_clock;

constexpr const char* kUsage =
    "usage: codesim-bench training [--layers 784,1024,1024,10] [--batch B] [--iterations N]\n"
    "           [--scheme uncoded|replication|codenet_grid|gpd|mds] [--m M] [--n N]\n"
    "           [--copies C] [--grid-rows R] [--grid-cols C] [--nodes P] [--k K] [--mirrored]\n"
    "           [--runs R] [--seed S] [--json]\n"
    "       codesim-bench training --overhead [--layers ...] [--batch B] [--iterations N]\n"
    "           [--scheme ... (default: the three of the issue)] [--runs R] [--json]\n"
    "       codesim-bench training --memory [--layers 784,10000,10000,10] [--samples S]\n"
    "           [--iterations N] [--json]\n";

enum class Mode { steps, overhead, memory };

struct TrainingBenchOptions {
  Mode mode = Mode::steps;
  std::vector<int> layers;  // empty: the mode's default
  int batch = 0;            // 0: the mode's default
  int iterations = 0;       // 0: the mode's default
  models::SchemeSpec scheme = models::uncoded_spec(1, 1);
  models::Arithmetic arithmetic = models::fastest_arithmetic();  // --arithmetic (bench/main.cpp)
  bool scheme_given = false;  // --scheme given: --overhead times that scheme only
  int runs = 1;
  int samples = 10000;
  std::uint64_t seed = 1;
  bool json = false;
  bool help = false;
};

std::vector<int> parse_layers(const std::string& text) {
  std::vector<int> sizes;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, ',')) {
    sizes.push_back(static_cast<int>(parse_bench_integer("--layers", part, 1)));
  }
  if (sizes.size() < 2) throw std::invalid_argument("--layers expects at least two sizes");
  return sizes;
}

bool is_field_option(const std::string& option) {
  for (const models::SchemeDescriptor& descriptor : models::scheme_descriptors()) {
    for (const models::SchemeField& field : descriptor.fields) {
      if (field.option == option && field.choices.empty()) return true;
    }
  }
  return false;
}

// --scheme KIND with the descriptor's field options (--m, --grid-rows, ...; --mirrored for gpd's
// orientation); fields not given take the descriptor's example.
models::SchemeSpec scheme_from(const std::string& name, const std::map<std::string, int>& given) {
  const models::SchemeDescriptor* descriptor = models::find_scheme(name);
  if (descriptor == nullptr) {
    throw std::invalid_argument("unknown scheme '" + name + "' (expected " +
                                models::scheme_names_list() + ")");
  }
  std::vector<int> values = descriptor->example;
  std::size_t used = 0;
  for (std::size_t i = 0; i < descriptor->fields.size(); ++i) {
    const auto at = given.find(std::string(descriptor->fields[i].option));
    if (at != given.end()) {
      values[i] = at->second;
      ++used;
    }
  }
  if (used != given.size()) {
    throw std::invalid_argument("an option given does not apply to --scheme " + name);
  }
  return descriptor->make(values);
}

TrainingBenchOptions parse_options(const std::vector<std::string>& args) {
  TrainingBenchOptions options;
  std::string scheme_name = "uncoded";
  std::map<std::string, int> fields;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw std::invalid_argument(arg + " expects a value");
      return args[++i];
    };
    auto integer = [&](long min) {
      return static_cast<int>(parse_bench_integer(arg, value(), min));
    };
    if (arg == "--overhead") {
      options.mode = Mode::overhead;
    } else if (arg == "--memory") {
      options.mode = Mode::memory;
    } else if (arg == "--layers") {
      options.layers = parse_layers(value());
    } else if (arg == "--batch") {
      options.batch = integer(1);
    } else if (arg == "--iterations") {
      options.iterations = integer(1);
    } else if (arg == "--scheme") {
      scheme_name = value();
      options.scheme_given = true;
    } else if (arg == "--mirrored") {
      fields["orientation"] = 1;
    } else if (arg.starts_with("--") && is_field_option(arg.substr(2))) {
      fields[arg.substr(2)] = integer(1);
    } else if (arg == "--runs") {
      options.runs = integer(1);
    } else if (arg == "--samples") {
      options.samples = integer(1);
    } else if (arg == "--seed") {
      options.seed = static_cast<std::uint64_t>(parse_bench_integer(arg, value(), 0));
    } else if (arg == "--json") {
      options.json = true;
    } else if (arg == "--help" || arg == "-h") {
      options.help = true;
    } else {
      throw std::invalid_argument("unknown argument '" + arg + "'");
    }
  }
  options.scheme = scheme_from(scheme_name, fields);
  const std::string problem = models::validate_scheme(options.scheme).message;
  if (!problem.empty()) throw std::invalid_argument("scheme: " + problem);
  return options;
}

// CPU seconds of this process so far: less disturbed than wall time by other jobs on a busy
// machine (though not by their use of caches and memory bandwidth).
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Timing {
  double wall_s = 0.0;
  double cpu_s = 0.0;
};

std::string join(const std::vector<int>& sizes) {
  std::ostringstream text;
  for (std::size_t i = 0; i < sizes.size(); ++i) text << (i ? "," : "") << sizes[i];
  return text.str();
}

std::string describe(const models::SchemeSpec& s) {
  const models::SchemeDescriptor& descriptor = models::descriptor_of(s);
  const std::vector<int> values = descriptor.values(s);
  std::ostringstream text;
  text << descriptor.name << " (";
  for (std::size_t i = 0; i < values.size(); ++i) {
    const models::SchemeField& field = descriptor.fields[i];
    text << (i ? ", " : "") << field.key << " ";
    if (field.choices.empty()) {
      text << values[i];
    } else {
      text << field.choices[static_cast<std::size_t>(values[i])];
    }
  }
  text << "), P=" << models::summarize_scheme(s).nodes;
  return text.str();
}

// MNIST-shaped synthetic data: `features` features, 10 classes.
models::Dataset make_data(int features, int samples, std::uint64_t seed) {
  models::SyntheticSpec spec;
  spec.classes = 10;
  spec.features = features;
  spec.samples = samples;
  spec.seed = seed;
  return models::make_synthetic_dataset(spec);
}

models::TrainingSpec training_spec(const std::vector<int>& layers, int batch, int iterations,
                                   const models::SchemeSpec& scheme,
                                   models::Arithmetic arithmetic) {
  models::TrainingSpec spec;
  spec.arithmetic = arithmetic;
  spec.mlp.layer_sizes = layers;
  spec.sgd.batch_size = batch;
  spec.scheme = scheme;
  spec.iterations = iterations;
  spec.eval_every = 0;     // rows at the start and the end only
  spec.eval_samples = 16;  // the least evaluation work that still measures something
  return spec;
}

// Wall and CPU seconds of one error-free train_coded run (setup, iterations, read-out) on P
// nodes.
Timing time_train_coded(const models::TrainingSpec& spec, const models::Dataset& train,
                        const models::Dataset& test, std::uint64_t seed) {
  const int nodes = models::summarize_scheme(spec.scheme).nodes;
  const sim::ClusterSpec cluster = sim::uniform_cluster(nodes, 1e9);
  const double cpu_start = cpu_seconds();
  const auto start = Clock::now();
  const sim::MetricSet metrics = models::run_coded_training(
      cluster, {}, spec, models::fault_free_config(), train, test, seed, 0);
  const Timing timing{seconds_since(start), cpu_seconds() - cpu_start};
  if (metrics.get("completed") != 1.0 || metrics.get("iterations") != spec.iterations) {
    throw std::runtime_error("train_coded did not complete its iterations");
  }
  return timing;
}

void check_shapes(const std::vector<int>& layers, const models::SchemeSpec& scheme) {
  for (std::size_t l = 0; l + 1 < layers.size(); ++l) {
    const std::string problem = models::validate_scheme(scheme, layers[l + 1], layers[l]).message;
    if (!problem.empty()) {
      std::ostringstream message;
      message << "layer " << l << " (" << layers[l + 1] << "x" << layers[l] << "): " << problem;
      throw std::invalid_argument(message.str());
    }
  }
}

// --- steps ----------------------------------------------------------------------------------

int run_steps(const TrainingBenchOptions& options, std::ostream& out) {
  const std::vector<int> layers =
      options.layers.empty() ? std::vector<int>{784, 1024, 1024, 10} : options.layers;
  const int batch = options.batch > 0 ? options.batch : 64;
  const int iterations = options.iterations > 0 ? options.iterations : 20;
  check_shapes(layers, options.scheme);
  const models::Dataset train = make_data(layers.front(), std::max(batch * 4, 1000), options.seed);
  const models::Dataset test = make_data(layers.front(), 100, options.seed + 1);
  const models::TrainingSpec spec =
      training_spec(layers, batch, iterations, options.scheme, options.arithmetic);
  std::vector<double> walls;
  for (int r = 0; r < options.runs; ++r) {
    walls.push_back(time_train_coded(spec, train, test, 3).wall_s);
  }
  const double wall_s = median(walls);
  const double steps_per_s = iterations / wall_s;
  if (options.json) {
    out << "{\"steps\": " << iterations << ", \"wall_s\": " << wall_s
        << ", \"steps_per_s\": " << steps_per_s << ", \"arithmetic\": \""
        << models::arithmetic_name(options.arithmetic) << "\"}\n";
    return 0;
  }
  out << "codesim training benchmark: train_coded, " << describe(options.scheme) << ", layers "
      << join(layers) << ", batch " << batch << ", float64, no faults, arithmetic "
      << models::arithmetic_name(options.arithmetic) << "\n"
      << "steps: " << iterations
      << " (useful iterations per run; wall includes setup and read-out)\n"
      << "wall_s: " << wall_s << " (median of " << options.runs << ")\n"
      << "steps_per_s: " << steps_per_s << "\n";
  return 0;
}

// --- overhead -------------------------------------------------------------------------------

Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, std::uint64_t seed, double sd) {
  boost::random::mt19937_64 engine(seed);
  boost::random::normal_distribution<double> normal(0.0, sd);
  Matrix matrix(rows, cols);
  for (Eigen::Index i = 0; i < matrix.size(); ++i) matrix.data()[i] = normal(engine);
  return matrix;
}

// What one node multiplies and updates in one layer: its block (a private copy of the shape the
// scheme stores), its slices of x and delta and its encoded update factors.
// Forward uses the first stored block, backward the last (MDS stores two), as train_coded does.
struct BareWork {
  bool forward = false;
  bool backward = false;
  Matrix x;                          // forward input slice: stored.front().cols() x B
  Matrix delta;                      // backward input slice: stored.back().rows() x B
  std::vector<Matrix> stored;        // the node's blocks
  std::vector<Matrix> update_delta;  // eta-scaled delta factor per stored block (rows x B)
  std::vector<Matrix> update_input;  // input factor per stored block (cols x B)
  Matrix forward_out;
  Matrix backward_out;
};

// The bare arithmetic of `iterations` error-free iterations: per layer forward, per layer but
// the first backward, then every node's rank-B updates; through the dense kernels of the
// run's arithmetic, as train_coded.
Timing time_bare(const std::vector<int>& layers, int batch, int iterations,
                 const models::SchemeSpec& scheme_spec, models::Arithmetic arithmetic) {
  const models::DenseKernels kernels(arithmetic);
  std::vector<std::vector<BareWork>> work;  // [layer][node]
  std::uint64_t seed = 100;
  for (std::size_t l = 0; l + 1 < layers.size(); ++l) {
    const int rows = layers[l + 1];
    const int cols = layers[l];
    auto scheme = models::make_scheme(scheme_spec, rows, cols, arithmetic);
    const std::vector<int> forward = scheme->participants(Direction::forward);
    const std::vector<int> backward = scheme->participants(Direction::backward);
    std::vector<BareWork> nodes(static_cast<std::size_t>(scheme->node_count()));
    for (int p = 0; p < scheme->node_count(); ++p) {
      BareWork& w = nodes[static_cast<std::size_t>(p)];
      const double sd = 1.0 / std::sqrt(static_cast<double>(cols));
      for (const models::BlockRef& block : scheme->stored_blocks(p)) {
        w.stored.push_back(random_matrix(block.rows(), block.cols(), ++seed, sd));
        w.update_delta.push_back(random_matrix(block.rows(), batch, ++seed, 1e-4));
        w.update_input.push_back(random_matrix(block.cols(), batch, ++seed, 1.0));
      }
      w.forward = std::find(forward.begin(), forward.end(), p) != forward.end();
      w.backward = l > 0 && std::find(backward.begin(), backward.end(), p) != backward.end();
      w.x = random_matrix(w.stored.front().cols(), batch, ++seed, 1.0);
      w.delta = random_matrix(w.stored.back().rows(), batch, ++seed, 1.0);
      w.forward_out.resize(w.stored.front().rows(), batch);
      w.backward_out.resize(w.stored.back().cols(), batch);
    }
    work.push_back(std::move(nodes));
  }
  const double cpu_start = cpu_seconds();
  const auto start = Clock::now();
  for (int it = 0; it < iterations; ++it) {
    for (auto& layer : work) {
      for (BareWork& w : layer) {
        if (w.forward) w.forward_out = kernels.product(w.stored.front(), w.x);
      }
    }
    for (std::size_t l = work.size(); l-- > 1;) {
      for (BareWork& w : work[l]) {
        if (w.backward) w.backward_out = kernels.transposed_product(w.stored.back(), w.delta);
      }
    }
    for (auto& layer : work) {
      for (BareWork& w : layer) {
        for (std::size_t b = 0; b < w.stored.size(); ++b) {
          kernels.add_outer_product(w.stored[b], 1.0, w.update_delta[b], w.update_input[b]);
        }
      }
    }
  }
  return {seconds_since(start), cpu_seconds() - cpu_start};
}

struct OverheadCase {
  std::string name;
  models::SchemeSpec scheme;
};

std::vector<OverheadCase> overhead_cases() {
  std::vector<OverheadCase> cases;
  cases.push_back({"codenet_grid 7x6 (5,4), P=38", scheme_from("codenet_grid", {})});
  cases.push_back({"replication 2x(5x4), P=40", scheme_from("replication", {})});
  cases.push_back({"uncoded 5x8, P=40", models::uncoded_spec(5, 8)});
  return cases;
}

int run_overhead(const TrainingBenchOptions& options, std::ostream& out) {
  // 1000 (not 1024) so that 5 divides the hidden layers and 4 and 8 divide the inputs.
  const std::vector<int> layers =
      options.layers.empty() ? std::vector<int>{784, 1000, 1000, 10} : options.layers;
  const std::vector<int> batches =
      options.batch > 0 ? std::vector<int>{options.batch} : std::vector<int>{1, 64};
  const int runs = std::max(options.runs, 3);
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  if (!options.json) {
    out << "codesim training overhead: layers " << join(layers)
        << ", no faults; wall(train_coded) / wall(bare node arithmetic), medians of " << runs
        << " interleaved runs\n"
        << std::left << std::setw(32) << "scheme" << std::right << std::setw(6) << "batch"
        << std::setw(6) << "iters" << std::setw(10) << "train_s" << std::setw(10) << "bare_s"
        << std::setw(10) << "cpu_ratio" << std::setw(8) << "ratio"
        << "\n";
  }
  const std::vector<OverheadCase> cases =
      options.scheme_given ? std::vector<OverheadCase>{{describe(options.scheme), options.scheme}}
                           : overhead_cases();
  for (const OverheadCase& c : cases) {
    check_shapes(layers, c.scheme);
    for (int batch : batches) {
      // Enough iterations that the run's fixed costs (setup, read-out) are amortized.
      const int iterations = options.iterations > 0 ? options.iterations : (batch == 1 ? 200 : 20);
      const models::Dataset train =
          make_data(layers.front(), std::max(batch * 4, 1000), options.seed);
      const models::Dataset test = make_data(layers.front(), 100, options.seed + 1);
      const models::TrainingSpec spec =
          training_spec(layers, batch, iterations, c.scheme, options.arithmetic);
      std::vector<double> train_s, bare_s, train_cpu_s, bare_cpu_s;
      for (int r = 0; r < runs; ++r) {
        const Timing trained = time_train_coded(spec, train, test, 3);
        const Timing bare = time_bare(layers, batch, iterations, c.scheme, options.arithmetic);
        train_s.push_back(trained.wall_s);
        train_cpu_s.push_back(trained.cpu_s);
        bare_s.push_back(bare.wall_s);
        bare_cpu_s.push_back(bare.cpu_s);
      }
      const double t = median(train_s);
      const double b = median(bare_s);
      const double cpu_ratio = median(train_cpu_s) / median(bare_cpu_s);
      if (options.json) {
        nlohmann::ordered_json row;
        row["scheme"] = c.name;
        row["layers"] = join(layers);
        row["batch"] = batch;
        row["iterations"] = iterations;
        row["train_s"] = t;
        row["bare_s"] = b;
        row["cpu_ratio"] = cpu_ratio;
        row["ratio"] = t / b;
        rows.push_back(row);
      } else {
        out << std::left << std::setw(32) << c.name << std::right << std::setw(6) << batch
            << std::setw(6) << iterations << std::setw(10) << std::setprecision(4) << t
            << std::setw(10) << b << std::setprecision(3) << std::setw(10) << cpu_ratio
            << std::setw(8) << t / b << "\n";
      }
    }
  }
  if (options.json) out << rows.dump(2) << "\n";
  return 0;
}

// --- memory ---------------------------------------------------------------------------------

int run_memory(const TrainingBenchOptions& options, std::ostream& out) {
  const std::vector<int> layers =
      options.layers.empty() ? std::vector<int>{784, 10000, 10000, 10} : options.layers;
  const int iterations = options.iterations > 0 ? options.iterations : 4;
  const models::SchemeSpec scheme = scheme_from("codenet_grid", {});
  check_shapes(layers, scheme);
  const models::Dataset train = make_data(layers.front(), options.samples, options.seed);
  const models::Dataset test = make_data(layers.front(), 100, options.seed + 1);
  models::TrainingSpec spec = training_spec(layers, 1, iterations, scheme, options.arithmetic);
  sim::CheckpointSpec checkpoint;
  checkpoint.policy = sim::CheckpointKind::every_iterations;
  checkpoint.every_iterations = std::max(1, iterations / 2);

  double stored_bytes = 0.0;
  for (std::size_t l = 0; l + 1 < layers.size(); ++l) {
    const models::SchemeSummary summary =
        models::summarize_scheme(scheme, layers[l + 1], layers[l]);
    stored_bytes += summary.redundancy * layers[l + 1] * layers[l] * 8.0;
  }
  double dataset_bytes = 0.0;
  for (const models::Dataset* d : {&train, &test}) {
    dataset_bytes += static_cast<double>(d->images.size()) * 8.0 +
                     static_cast<double>(d->labels.size()) * sizeof(int);
  }
  const int nodes = models::summarize_scheme(scheme).nodes;
  const auto start = Clock::now();
  const sim::MetricSet metrics =
      models::run_coded_training(sim::uniform_cluster(nodes, 1e9), checkpoint, spec,
                                 models::fault_free_config(), train, test, 3, 0);
  const double wall_s = seconds_since(start);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double peak_bytes = static_cast<double>(usage.ru_maxrss) * 1024.0;
  const double ratio = peak_bytes / (stored_bytes + dataset_bytes);
  if (options.json) {
    nlohmann::ordered_json report;
    report["layers"] = join(layers);
    report["scheme"] = describe(scheme);
    report["iterations"] = iterations;
    report["checkpoints"] = metrics.get("checkpoints");
    report["wall_s"] = wall_s;
    report["peak_rss_kb"] = usage.ru_maxrss;
    report["stored_bytes"] = stored_bytes;
    report["dataset_bytes"] = dataset_bytes;
    report["ratio"] = ratio;
    out << report.dump(2) << "\n";
    return 0;
  }
  out << "codesim training memory: layers " << join(layers) << ", " << describe(scheme)
      << ", batch 1, " << train.samples() << " training samples, " << iterations << " iterations, "
      << metrics.get("checkpoints") << " checkpoint(s), wall " << wall_s << " s\n"
      << std::fixed << std::setprecision(1) << "stored blocks: " << stored_bytes / 1048576.0
      << " MiB; dataset: " << dataset_bytes / 1048576.0 << " MiB\n"
      << "peak RSS: " << usage.ru_maxrss << " KB (" << peak_bytes / 1048576.0 << " MiB)\n"
      << std::setprecision(3) << "ratio: " << ratio << " (target <= 1.2)\n";
  return 0;
}

}  // namespace

int run_training_bench(const std::vector<std::string>& args, models::Arithmetic arithmetic,
                       std::ostream& out) {
  TrainingBenchOptions options;
  try {
    options = parse_options(args);
    options.arithmetic = arithmetic;
    if (options.help) {
      out << kUsage;
      return 0;
    }
    switch (options.mode) {
      case Mode::overhead:
        return run_overhead(options, out);
      case Mode::memory:
        return run_memory(options, out);
      case Mode::steps:
        break;
    }
    return run_steps(options, out);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n" << kUsage;
    return 2;
  }
}

}  // namespace codesim::bench
