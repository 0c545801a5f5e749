// `codesim-bench cnn`: LeNet-5 training steps per second against the PyTorch peer
// (bench/peers/torch_lenet.py), and, with --agree, the same training in both checked loss by loss.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "models/linalg/dense_kernels.hpp"

namespace codesim::bench {

struct CnnBenchOptions {
  bool agree = false;  ///< --agree: the agreement run instead of the speed runs
  /// --coded: codesim's side is the whole train_coded run of LeNet-5 (uncoded 1x1 on one
  /// simulated node: the protocol, its products, the steps at the node, set-up and read-out)
  /// instead of the bare reference steps.
  bool coded = false;
  int batch = 64;
  int steps = 0;                    ///< 0: the mode's default (speed 60, agreement 50, or --epochs)
  int epochs = 0;                   ///< agreement: train this many epochs instead of --steps
  int runs = 5;                     ///< speed: interleaved runs per side
  int warmup = 5;                   ///< speed: untimed steps before the timed ones, on both sides
  std::string data = "mnist";       ///< agreement: mnist or fashion-mnist (their default places)
  std::vector<int> evaluate_after;  ///< agreement: steps after which test accuracy is compared
  double tolerance = 1e-9;          ///< agreement: largest relative loss difference accepted
  double accuracy_points = 0.1;     ///< agreement: largest accuracy difference, percentage points
  std::string python = "/usr/bin/python3";
  std::string peer;  ///< the peer script; "" = bench/peers/torch_lenet.py of this source tree
  bool no_peer = false;
  std::string keep;  ///< agreement: write the replay files here and keep them ("" = temporary)
  std::uint64_t seed = 1;
  models::Arithmetic arithmetic = models::fastest_arithmetic();
  bool json = false;
  bool help = false;
};

/// Runs `command` through the shell; its standard output, and its exit status in `status`.
std::string capture_command(const std::string& command, int& status);
/// `text` quoted for the shell.
std::string shell_quoted(const std::string& text);

/// The agreement run: 0 when every loss and accuracy agrees, 1 when not, 2 on bad input (data
/// missing), after a report on `out`.
int run_cnn_agreement(const CnnBenchOptions& options, std::ostream& out);

}  // namespace codesim::bench
