// `codesim-bench cnn --agree`: LeNet-5 trained by codesim (models/nn/cnn) and by the PyTorch
// peer from codesim's initial weights on codesim's batches; every loss and the test accuracies
// compared. The replay files' format is in bench/peers/torch_lenet.py.
#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <variant>

#include "bench/bench_timing.hpp"
#include "bench/cnn_bench.hpp"
#include "models/data/dataset_source.hpp"
#include "models/nn/cnn.hpp"
#include "sim/random_stream.hpp"

namespace codesim::bench {
namespace {

using models::Matrix;
using Json = nlohmann::ordered_json;

// The training samples of every step, in order: step i holds samples i B .. i B + B - 1 of the
// concatenated epochs, epoch e in seeded_permutation order keyed by (seed, 0, "batch_order", e),
// as coded training orders its batches.
std::vector<int> batch_order(int samples, int steps, int batch, std::uint64_t seed) {
  std::vector<int> order;
  std::vector<int> epoch_order;
  for (std::int64_t k = 0; k < std::int64_t{steps} * batch; ++k) {
    const std::int64_t epoch = k / samples;
    if (k % samples == 0) {
      epoch_order = models::seeded_permutation(
          samples, sim::stream_seed({seed, 0, "batch_order", static_cast<std::uint64_t>(epoch)}));
    }
    order.push_back(epoch_order[static_cast<std::size_t>(k % samples)]);
  }
  return order;
}

void write_raw(const std::filesystem::path& file, const void* data, std::size_t bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

void write_matrix(const std::filesystem::path& file, const Matrix& m) {
  write_raw(file, m.data(), sizeof(double) * static_cast<std::size_t>(m.size()));
}

// The kind and its fields by member name (out_channels, kernel, ...), as torch_lenet.py reads them.
Json layer_json(const models::Layer& layer) {
  const models::LayerDescriptor& kind = models::layer_descriptor(layer);
  Json j;
  j["kind"] = std::string(kind.name);
  const std::vector<int> values = kind.values(layer);
  for (std::size_t i = 0; i < values.size(); ++i) j[std::string(kind.fields[i].member)] = values[i];
  return j;
}

// The initial weights (row-major in PyTorch's shapes) and biases, one file each.
Json write_parameters(const std::filesystem::path& dir, const models::NetworkSpec& spec,
                      const models::NetworkParameters& p) {
  Json entries = Json::array();
  for (const models::LayerGeometry& g : models::network_geometry(spec)) {
    if (g.weighted_index < 0) continue;
    const auto i = static_cast<std::size_t>(g.weighted_index);
    Json shape = {g.weight_rows, g.weight_cols};
    if (!g.input.flat) {
      const int k = static_cast<int>(std::lround(std::sqrt(g.weight_cols / g.input.channels)));
      shape = {g.weight_rows, g.input.channels, k, k};
    }
    const Matrix row_major = p.weights[i].transpose();  // column-major storage of W^T
    const std::string weight = fmt::format("weight_{}.f64", i),
                      bias = fmt::format("bias_{}.f64", i);
    write_matrix(dir / weight, row_major);
    write_matrix(dir / bias, p.biases[i]);
    entries.push_back(Json{{"weight", weight}, {"shape", shape}, {"bias", bias}});
  }
  return entries;
}

// The samples at `order` (or all), as images (NCHW per sample) and int32 labels.
Json write_samples(const std::filesystem::path& dir, const std::string& part,
                   const models::Dataset& data, const std::vector<int>& order) {
  Matrix images(data.features(), static_cast<Eigen::Index>(order.size()));
  std::vector<std::int32_t> labels;
  for (std::size_t j = 0; j < order.size(); ++j) {
    images.col(static_cast<Eigen::Index>(j)) = data.images.col(order[j]);
    labels.push_back(data.labels[static_cast<std::size_t>(order[j])]);
  }
  write_matrix(dir / (part + "_images.f64"), images);
  write_raw(dir / (part + "_labels.i32"), labels.data(), sizeof(std::int32_t) * labels.size());
  return Json{{"images", part + "_images.f64"},
              {"labels", part + "_labels.i32"},
              {"samples", order.size()}};
}

struct SideResult {
  std::vector<double> losses;
  std::vector<std::pair<int, double>> accuracies;  // (after step, test accuracy)
  double wall_s = 0.0;
};

SideResult train_codesim(const models::NetworkSpec& spec, const models::SgdSettings& sgd,
                         models::NetworkParameters p, const models::DatasetSplit& data,
                         const std::vector<int>& order, int steps,
                         const std::vector<int>& evaluate_after, models::Arithmetic arithmetic) {
  const models::DenseKernels kernels(arithmetic);
  const int batch = sgd.batch_size;
  SideResult result;
  const auto start = std::chrono::steady_clock::now();
  models::NetworkWorkspace workspace;
  Matrix x(data.train.features(), batch);
  std::vector<int> labels(static_cast<std::size_t>(batch));
  for (int step = 0; step < steps; ++step) {
    for (int b = 0; b < batch; ++b) {
      const int sample = order[static_cast<std::size_t>(step * batch + b)];
      x.col(b) = data.train.images.col(sample);
      labels[static_cast<std::size_t>(b)] = data.train.labels[static_cast<std::size_t>(sample)];
    }
    result.losses.push_back(
        models::network_sgd_step(p, spec, sgd.learning_rate, x, labels, kernels, workspace));
    if (std::find(evaluate_after.begin(), evaluate_after.end(), step + 1) != evaluate_after.end())
      result.accuracies.emplace_back(step + 1,
                                     models::network_accuracy(spec, p, data.test, kernels));
  }
  result.wall_s = seconds_since(start);
  return result;
}

SideResult run_peer(const CnnBenchOptions& options, const std::filesystem::path& dir) {
  const std::string command = shell_quoted(options.python) + " " + shell_quoted(options.peer) +
                              " replay " + shell_quoted(dir.string());
  int status = 0;
  const std::string output = capture_command(command, status);
  if (status != 0) throw std::runtime_error("the peer failed (" + command + ")");
  const Json j = Json::parse(output);
  SideResult result;
  result.losses = j.at("losses").get<std::vector<double>>();
  for (const Json& entry : j.at("accuracies"))
    result.accuracies.emplace_back(entry.at(0).get<int>(), entry.at(1).get<double>());
  result.wall_s = j.at("wall_s").get<double>();
  return result;
}

// A temporary directory (removed on destruction), or the kept one.
class ReplayDirectory {
 public:
  explicit ReplayDirectory(const std::string& keep) : keep_(!keep.empty()) {
    if (keep_) {
      path_ = keep;
      std::filesystem::create_directories(path_);
      return;
    }
    std::string pattern = (std::filesystem::temp_directory_path() / "codesim-cnn-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create " + pattern);
    path_ = pattern;
  }
  ~ReplayDirectory() {
    std::error_code ignored;
    if (!keep_) std::filesystem::remove_all(path_, ignored);
  }
  ReplayDirectory(const ReplayDirectory&) = delete;
  ReplayDirectory& operator=(const ReplayDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  bool keep_;
  std::filesystem::path path_;
};

struct Comparison {
  double max_relative = 0.0;  // over every step
  int worst_step = 0;         // 1-based
  double max_relative_first50 = 0.0;
  double max_accuracy_points = 0.0;
  bool passed = true;
};

Comparison compare(const CnnBenchOptions& options, const SideResult& ours, const SideResult& peer) {
  Comparison c;
  if (peer.losses.size() != ours.losses.size() || peer.accuracies.size() != ours.accuracies.size())
    throw std::runtime_error("the peer returned a different number of losses or accuracies");
  for (std::size_t i = 0; i < ours.losses.size(); ++i) {
    const double relative = std::abs(ours.losses[i] - peer.losses[i]) / std::abs(peer.losses[i]);
    if (!(relative <= c.max_relative)) {  // NaN counts as the worst
      c.max_relative = std::isnan(relative) ? INFINITY : relative;
      c.worst_step = static_cast<int>(i) + 1;
    }
    if (i < 50) c.max_relative_first50 = std::max(c.max_relative_first50, relative);
  }
  for (std::size_t i = 0; i < ours.accuracies.size(); ++i) {
    const double points = 100.0 * std::abs(ours.accuracies[i].second - peer.accuracies[i].second);
    c.max_accuracy_points = std::max(c.max_accuracy_points, points);
  }
  c.passed =
      c.max_relative <= options.tolerance && c.max_accuracy_points <= options.accuracy_points;
  return c;
}

void report(const CnnBenchOptions& options, const models::DatasetSplit& data, int steps,
            const SideResult& ours, const SideResult& peer, const Comparison& c,
            std::ostream& out) {
  if (options.json) {
    Json j;
    j["data"] = options.data;
    j["train_samples"] = data.train.samples();
    j["test_samples"] = data.test.samples();
    j["steps"] = steps;
    j["arithmetic"] = std::string(models::arithmetic_name(options.arithmetic));
    j["max_relative_loss_difference"] = c.max_relative;
    j["max_relative_loss_difference_first_50"] = c.max_relative_first50;
    j["worst_step"] = c.worst_step;
    Json accuracies = Json::array();
    for (std::size_t i = 0; i < ours.accuracies.size(); ++i)
      accuracies.push_back(Json{{"after_step", ours.accuracies[i].first},
                                {"codesim", ours.accuracies[i].second},
                                {"pytorch", peer.accuracies[i].second}});
    j["accuracies"] = accuracies;
    j["codesim_wall_s"] = ours.wall_s;
    j["pytorch_wall_s"] = peer.wall_s;
    j["passed"] = c.passed;
    out << j.dump(2) << "\n";
    return;
  }
  out << fmt::format(
      "LeNet-5 on {} ({} training, {} test samples), batch {}, {} steps, lr {}, float64, "
      "arithmetic {}\n",
      options.data, data.train.samples(), data.test.samples(), options.batch, steps,
      models::kLenet5LearningRate, models::arithmetic_name(options.arithmetic));
  out << fmt::format(
      "losses: first {:.12g} / {:.12g}, last {:.12g} / {:.12g} (codesim / pytorch)\n",
      ours.losses.front(), peer.losses.front(), ours.losses.back(), peer.losses.back());
  out << fmt::format(
      "max relative loss difference: {:.3g} (step {}); first 50 steps {:.3g}; tolerance {:.3g}\n",
      c.max_relative, c.worst_step, c.max_relative_first50, options.tolerance);
  for (std::size_t i = 0; i < ours.accuracies.size(); ++i) {
    out << fmt::format("test accuracy after step {}: codesim {:.4f}%, pytorch {:.4f}%\n",
                       ours.accuracies[i].first, 100 * ours.accuracies[i].second,
                       100 * peer.accuracies[i].second);
  }
  out << fmt::format("max accuracy difference: {:.4f} points (tolerance {})\n",
                     c.max_accuracy_points, options.accuracy_points);
  out << fmt::format("wall: codesim {:.2f} s, pytorch {:.2f} s (training and evaluation)\n",
                     ours.wall_s, peer.wall_s);
  out << (c.passed ? "agreement: met\n" : "agreement: MISSED\n");
}

}  // namespace

int run_cnn_agreement(const CnnBenchOptions& options, std::ostream& out) {
  const models::NetworkSpec spec = models::lenet5();
  const models::SgdSettings sgd{models::kLenet5LearningRate, options.batch};
  models::DatasetSource source;
  const auto kind = models::parse_dataset_kind(options.data);
  if (!kind || (*kind != models::DatasetKind::mnist && *kind != models::DatasetKind::fashion_mnist))
    throw std::invalid_argument("--data expects mnist or fashion-mnist");
  source.kind = *kind;
  models::DatasetSplit data;
  try {
    data = models::load_dataset(source, options.seed);
  } catch (const models::DatasetError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return 2;
  }
  if (data.train.features() != spec.input.size())
    throw std::invalid_argument("the data's samples are not 1 x 28 x 28 images");
  const int steps =
      options.epochs > 0
          ? static_cast<int>(std::int64_t{options.epochs} * data.train.samples() / options.batch)
          : (options.steps > 0 ? options.steps : 50);
  std::vector<int> evaluate_after = options.evaluate_after;
  if (evaluate_after.empty()) evaluate_after = {std::min(50, steps), steps};
  std::sort(evaluate_after.begin(), evaluate_after.end());
  evaluate_after.erase(std::unique(evaluate_after.begin(), evaluate_after.end()),
                       evaluate_after.end());

  const models::NetworkParameters initial = models::glorot_init(spec, options.seed);
  const std::vector<int> order =
      batch_order(data.train.samples(), steps, options.batch, options.seed);
  std::vector<int> all_test(static_cast<std::size_t>(data.test.samples()));
  for (std::size_t i = 0; i < all_test.size(); ++i) all_test[i] = static_cast<int>(i);

  const ReplayDirectory dir(options.keep);
  Json header;
  header["format"] = "codesim-cnn-replay";
  header["version"] = 1;
  header["input"] = {spec.input.channels, spec.input.height, spec.input.width};
  header["layers"] = Json::array();
  for (const models::Layer& layer : spec.layers) header["layers"].push_back(layer_json(layer));
  header["learning_rate"] = sgd.learning_rate;
  header["batch_size"] = sgd.batch_size;
  header["steps"] = steps;
  header["evaluate_after"] = evaluate_after;
  header["parameters"] = write_parameters(dir.path(), spec, initial);
  header["train"] = write_samples(dir.path(), "train", data.train, order);
  header["test"] = write_samples(dir.path(), "test", data.test, all_test);
  std::ofstream(dir.path() / "network.json") << header.dump(2) << "\n";

  const SideResult ours =
      train_codesim(spec, sgd, initial, data, order, steps, evaluate_after, options.arithmetic);
  const SideResult peer = run_peer(options, dir.path());
  const Comparison c = compare(options, ours, peer);
  report(options, data, steps, ours, peer, c, out);
  return c.passed ? 0 : 1;
}

}  // namespace codesim::bench
