// `codesim-bench cnn`: LeNet-5 SGD steps per second of codesim's CNN reference (one thread,
// float64, the run's arithmetic) against the PyTorch peer, medians of interleaved runs; --agree
// runs the agreement check (bench/cnn_agreement.cpp).
#include "bench/cnn_bench.hpp"

#include <fmt/format.h>
#include <stdio.h>

#include <array>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "bench/bench_timing.hpp"
#include "bench/benchmarks.hpp"
#include "bench/engine_bench_options.hpp"
#include "models/nn/cnn.hpp"
#include "models/training/train.hpp"
#include "sim/random_stream.hpp"

namespace codesim::bench {
namespace {

constexpr const char* kUsage =
    "usage: codesim-bench cnn [--batch 64] [--steps 60] [--warmup 5] [--runs 5]\n"
    "           [--python /usr/bin/python3] [--peer bench/peers/torch_lenet.py | --no-peer]\n"
    "           [--coded] [--seed S] [--json]\n"
    "  LeNet-5 SGD steps/s, codesim (one thread, float64) against PyTorch, R interleaved runs;\n"
    "  --coded times codesim's whole train_coded run (uncoded on one node) instead of the\n"
    "  reference's steps.\n"
    "       codesim-bench cnn --agree [--data mnist|fashion-mnist] [--steps 50 | --epochs E]\n"
    "           [--evaluate-after S,S,...] [--tolerance 1e-9] [--accuracy-points 0.1]\n"
    "           [--batch 64] [--python P] [--peer P] [--keep DIR] [--seed S] [--json]\n"
    "  Trains LeNet-5 in codesim and PyTorch from the same weights on the same batches and\n"
    "  compares every loss (relative) and the test accuracies; exit 1 when they differ more.\n";

std::vector<int> parse_steps(const std::string& flag, const std::string& text) {
  std::vector<int> steps;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, ','))
    steps.push_back(static_cast<int>(parse_bench_integer(flag, part, 1)));
  return steps;
}

double parse_positive(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !(value > 0.0))
    throw std::invalid_argument(flag + " expects a positive number (got '" + text + "')");
  return value;
}

CnnBenchOptions parse_options(const std::vector<std::string>& args) {
  CnnBenchOptions o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw std::invalid_argument(arg + " expects a value");
      return args[++i];
    };
    auto integer = [&](long min) {
      return static_cast<int>(parse_bench_integer(arg, value(), min));
    };
    if (arg == "--agree")
      o.agree = true;
    else if (arg == "--coded")
      o.coded = true;
    else if (arg == "--batch")
      o.batch = integer(1);
    else if (arg == "--steps")
      o.steps = integer(1);
    else if (arg == "--epochs")
      o.epochs = integer(1);
    else if (arg == "--runs")
      o.runs = integer(1);
    else if (arg == "--warmup")
      o.warmup = integer(0);
    else if (arg == "--data")
      o.data = value();
    else if (arg == "--evaluate-after")
      o.evaluate_after = parse_steps(arg, value());
    else if (arg == "--tolerance")
      o.tolerance = parse_positive(arg, value());
    else if (arg == "--accuracy-points")
      o.accuracy_points = parse_positive(arg, value());
    else if (arg == "--python")
      o.python = value();
    else if (arg == "--peer")
      o.peer = value();
    else if (arg == "--no-peer")
      o.no_peer = true;
    else if (arg == "--keep")
      o.keep = value();
    else if (arg == "--seed")
      o.seed = static_cast<std::uint64_t>(parse_bench_integer(arg, value(), 0));
    else if (arg == "--json")
      o.json = true;
    else if (arg == "--help" || arg == "-h")
      o.help = true;
    else
      throw std::invalid_argument("unknown argument '" + arg + "'");
  }
  if (o.peer.empty()) o.peer = std::string(CODESIM_SOURCE_DIR) + "/bench/peers/torch_lenet.py";
  if (o.agree && o.no_peer) throw std::invalid_argument("--agree needs the peer");
  return o;
}

// Steps per second of network_sgd_step on LeNet-5 with a fixed batch of uniform [0, 1) pixels
// and labels drawn once: `warmup` untimed steps, then `steps` timed ones (as the peer does).
double codesim_steps_per_s(const CnnBenchOptions& o, int steps) {
  const models::NetworkSpec spec = models::lenet5();
  const double eta = models::kLenet5LearningRate;
  models::NetworkParameters p = models::glorot_init(spec, o.seed);
  sim::RandomStream stream({o.seed, 0, "cnn_bench_batch", 0});
  models::Matrix x(spec.input.size(), o.batch);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = stream.uniform01();
  std::vector<int> labels;
  for (int b = 0; b < o.batch; ++b) labels.push_back(static_cast<int>(stream.uniform_int(0, 9)));
  const models::DenseKernels kernels(o.arithmetic);
  models::NetworkWorkspace workspace;
  for (int s = 0; s < o.warmup; ++s)
    models::network_sgd_step(p, spec, eta, x, labels, kernels, workspace);
  const auto start = std::chrono::steady_clock::now();
  for (int s = 0; s < steps; ++s)
    models::network_sgd_step(p, spec, eta, x, labels, kernels, workspace);
  return steps / seconds_since(start);
}

// Steps per second of a whole train_coded run of LeNet-5, uncoded 1x1 on one simulated node, no
// faults, on `batch` x 4 samples of uniform [0, 1) pixels: set-up (initial weights), the protocol's
// rounds (products, the node's steps between them, the decode of its one symbol, the update),
// evaluation on 16 test samples at the start and the end, and the read-out. The `warmup` steps
// run as a run of their own first.
double coded_steps_per_s(const CnnBenchOptions& o, int steps) {
  sim::RandomStream stream({o.seed, 0, "cnn_bench_batch", 0});
  const auto data = [&](int samples) {
    models::Dataset d;
    d.classes = 10;
    d.images.resize(models::lenet5().input.size(), samples);
    for (Eigen::Index i = 0; i < d.images.size(); ++i) d.images.data()[i] = stream.uniform01();
    for (int s = 0; s < samples; ++s)
      d.labels.push_back(static_cast<int>(stream.uniform_int(0, 9)));
    return d;
  };
  const models::Dataset train = data(4 * o.batch);
  const models::Dataset test = data(100);
  models::TrainingSpec spec;
  spec.arithmetic = o.arithmetic;
  spec.network = models::lenet5();
  spec.sgd.learning_rate = models::kLenet5LearningRate;
  spec.sgd.batch_size = o.batch;
  spec.scheme = models::uncoded_spec(1, 1);
  spec.eval_samples = 16;
  const models::FaultConfig faults = models::fault_free_config();
  const sim::ClusterSpec cluster = sim::uniform_cluster(1, 1e9);
  const auto run = [&](int iterations) {
    spec.iterations = iterations;
    const sim::MetricSet m =
        models::run_coded_training(cluster, {}, spec, faults, train, test, o.seed, 0);
    if (m.get("iterations") != iterations) throw std::runtime_error("train_coded did not complete");
  };
  if (o.warmup > 0) run(o.warmup);
  const auto start = std::chrono::steady_clock::now();
  run(steps);
  return steps / seconds_since(start);
}

double peer_steps_per_s(const CnnBenchOptions& o, int steps) {
  const std::string command = shell_quoted(o.python) + " " + shell_quoted(o.peer) +
                              " speed --json --batch " + std::to_string(o.batch) + " --steps " +
                              std::to_string(steps) + " --warmup " + std::to_string(o.warmup) +
                              " --seed " + std::to_string(o.seed);
  int status = 0;
  const std::string output = capture_command(command, status);
  if (status != 0) throw std::runtime_error("the peer failed (" + command + ")");
  return nlohmann::json::parse(output).at("steps_per_s").get<double>();
}

std::string list(const std::vector<double>& values) {
  std::string text;
  for (double v : values) text += fmt::format("{}{:.1f}", text.empty() ? "" : " ", v);
  return text;
}

int run_speed(const CnnBenchOptions& o, std::ostream& out) {
  const int steps = o.steps > 0 ? o.steps : 60;
  std::vector<double> ours, peer;
  for (int r = 0; r < o.runs; ++r) {
    ours.push_back(o.coded ? coded_steps_per_s(o, steps) : codesim_steps_per_s(o, steps));
    if (!o.no_peer) peer.push_back(peer_steps_per_s(o, steps));
  }
  const double ours_median = median(ours);
  const double peer_median = peer.empty() ? 0.0 : median(peer);
  if (o.json) {
    nlohmann::ordered_json j;
    j["batch"] = o.batch;
    j["steps"] = steps;
    j["runs"] = o.runs;
    j["arithmetic"] = std::string(models::arithmetic_name(o.arithmetic));
    j["codesim"] = o.coded ? "train_coded, uncoded 1x1 on one node" : "network_sgd_step";
    j["codesim_steps_per_s"] = ours_median;
    j["codesim_runs"] = ours;
    if (!peer.empty()) {
      j["pytorch_steps_per_s"] = peer_median;
      j["pytorch_runs"] = peer;
      j["ratio"] = ours_median / peer_median;
    }
    out << j.dump(2) << "\n";
    return 0;
  }
  out << fmt::format(
      "LeNet-5 training, batch {}, float64, one thread; {} interleaved runs of {} timed steps "
      "after {} warm-up steps; codesim arithmetic {}, {}\n",
      o.batch, o.runs, steps, o.warmup, models::arithmetic_name(o.arithmetic),
      o.coded ? "the whole train_coded run (uncoded 1x1 on one node)" : "the reference's steps");
  out << fmt::format("codesim steps/s: {:.1f} (median; runs {})\n", ours_median, list(ours));
  if (!peer.empty()) {
    out << fmt::format("pytorch steps/s: {:.1f} (median; runs {})\n", peer_median, list(peer));
    out << fmt::format("ratio: {:.2f}x (target >= 1x: {})\n", ours_median / peer_median,
                       ours_median >= peer_median ? "met" : "missed");
  }
  return 0;
}

}  // namespace

std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string capture_command(const std::string& command, int& status) {
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
  std::string output;
  std::array<char, 4096> buffer{};
  for (std::size_t got; (got = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0;)
    output.append(buffer.data(), got);
  status = ::pclose(pipe);
  return output;
}

int run_cnn_bench(const std::vector<std::string>& args, models::Arithmetic arithmetic,
                  std::ostream& out) {
  try {
    CnnBenchOptions options = parse_options(args);
    options.arithmetic = arithmetic;
    if (options.help) {
      out << kUsage;
      return 0;
    }
    return options.agree ? run_cnn_agreement(options, out) : run_speed(options, out);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const std::runtime_error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace codesim::bench
