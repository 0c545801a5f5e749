// Fuzz harness bodies: the readers' documented errors are caught here and nothing else is.
#include "harnesses.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "app/config/fault_log_json.hpp"
#include "app/config/scenario_error.hpp"
#include "app/config/scenario_loader.hpp"
#include "app/exec/runner.hpp"
#include "models/data/dataset.hpp"
#include "models/data/idx_loader.hpp"
#include "models/data/mnist_json_loader.hpp"

namespace codesim::fuzz {
namespace {

// The name error messages give the input; a scenario's default name is its stem.
constexpr const char* kInputName = "fuzz-input.json";

std::string as_text(std::span<const std::uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// An anonymous in-memory file holding the input, reachable by path through /proc so the readers
// open it like any file; no disk traffic and nothing left behind. Linux only.
class MemoryFile {
 public:
  explicit MemoryFile(std::span<const std::uint8_t> bytes)
      : fd_(::memfd_create("codesim-fuzz", MFD_CLOEXEC)) {
    if (fd_ < 0) throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t wrote = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote <= 0) {
        ::close(fd_);
        throw std::runtime_error(std::string("memfd write: ") + std::strerror(errno));
      }
      done += static_cast<std::size_t>(wrote);
    }
  }
  ~MemoryFile() { ::close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  /// Opening this path gives a fresh file description that reads from the start.
  std::filesystem::path path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

}  // namespace

Verdict scenario_harness(std::span<const std::uint8_t> bytes) {
  try {
    const app::Json document = app::parse_scenario_text(as_text(bytes), kInputName);
    const app::Experiment experiment = app::make_experiment(document, kInputName);
    if (experiment.points.empty()) throw std::logic_error("make_experiment returned no points");
    return Verdict::accepted;
  } catch (const app::ScenarioError&) {
    return Verdict::rejected;
  }
}

Verdict idx_harness(std::span<const std::uint8_t> bytes) {
  const MemoryFile file(bytes);
  try {
    const models::IdxArray array = models::read_idx(file.path());
    std::size_t count = 1;
    for (std::uint32_t size : array.dimensions) count *= size;
    if (array.dimensions.empty() || count != array.values.size())
      throw std::logic_error("read_idx returned values that do not fill its dimensions");
    return Verdict::accepted;
  } catch (const models::DatasetError&) {
    return Verdict::rejected;
  }
}

Verdict mnist_json_harness(std::span<const std::uint8_t> bytes) {
  const MemoryFile file(bytes);
  try {
    const std::vector<std::uint8_t> pixels = models::read_mnist_json_digit(file.path());
    if (pixels.empty() || pixels.size() % models::kMnistPixels != 0)
      throw std::logic_error("read_mnist_json_digit returned a partial image");
    return Verdict::accepted;
  } catch (const models::DatasetError&) {
    return Verdict::rejected;
  }
}

Verdict fault_log_harness(std::span<const std::uint8_t> bytes) {
  try {
    const app::Json document = app::parse_scenario_text(as_text(bytes), kInputName);
    (void)app::fault_log_from_json(document, kInputName);
    return Verdict::accepted;
  } catch (const app::ScenarioError&) {
    return Verdict::rejected;
  }
}

std::vector<std::string_view> harness_names() {
  return {"scenario", "idx", "mnist_json", "fault_log"};
}

Harness find_harness(std::string_view name) {
  if (name == "scenario") return scenario_harness;
  if (name == "idx") return idx_harness;
  if (name == "mnist_json") return mnist_json_harness;
  if (name == "fault_log") return fault_log_harness;
  return nullptr;
}

}  // namespace codesim::fuzz
