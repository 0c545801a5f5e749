// Results documents: aggregation with summarize() and write-to-temporary-then-rename output.
#include "analysis/results_json.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "analysis/summary_statistics.hpp"
#include "analysis/temporary_file.hpp"

namespace codesim::analysis {

nlohmann::ordered_json finite_or_null(double value) {
  return std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
}

namespace {

std::runtime_error write_error(const std::filesystem::path& path, std::string_view what,
                               int error) {
  return std::runtime_error("cannot write " + path.string() + ": " + std::string(what) + ": " +
                            std::strerror(error));
}

}  // namespace

nlohmann::ordered_json replica_json(std::uint64_t replica, const sim::MetricSet& metrics) {
  nlohmann::ordered_json entry = nlohmann::ordered_json::object();
  entry["replica"] = replica;
  for (const auto& [name, value] : metrics.scalars()) entry[name] = finite_or_null(value);
  for (const auto& [name, text] : metrics.notes()) entry[name] = text;
  // Series (e.g. accuracy versus time) go under their name as {columns, rows}.
  for (const sim::MetricSeries& series : metrics.all_series()) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (std::size_t r = 0; r < series.rows(); ++r) {
      nlohmann::ordered_json values = nlohmann::ordered_json::array();
      for (std::size_t c = 0; c < series.columns.size(); ++c)
        values.push_back(finite_or_null(series.at(r, c)));
      rows.push_back(std::move(values));
    }
    entry[series.name] = {{"columns", series.columns}, {"rows", std::move(rows)}};
  }
  return entry;
}

nlohmann::ordered_json aggregate_json(std::span<const sim::MetricSet> replicas) {
  std::vector<std::string> names;
  for (const auto& metrics : replicas) {
    for (const auto& entry : metrics.scalars()) {
      bool known = false;
      for (const auto& name : names) known = known || name == entry.first;
      if (!known) names.push_back(entry.first);
    }
  }
  nlohmann::ordered_json aggregate = nlohmann::ordered_json::object();
  std::vector<double> values;
  for (const auto& name : names) {
    values.clear();
    for (const auto& metrics : replicas)
      if (metrics.contains(name)) values.push_back(metrics.get(name));
    const SummaryStatistics s = summarize(values);
    aggregate[name] = {{"mean", finite_or_null(s.mean)},
                       {"stderr", finite_or_null(s.stderr_mean)},
                       {"ci95", finite_or_null(s.ci95)},
                       {"n", s.n}};
  }
  return aggregate;
}

nlohmann::ordered_json point_json(nlohmann::ordered_json params, const std::string& label,
                                  std::span<const sim::MetricSet> replicas,
                                  std::span<const std::uint64_t> numbers) {
  nlohmann::ordered_json point = nlohmann::ordered_json::object();
  point["params"] = std::move(params);
  point["label"] = label;
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  for (std::size_t r = 0; r < replicas.size(); ++r)
    entries.push_back(replica_json(numbers.empty() ? r : numbers[r], replicas[r]));
  point["replicas"] = std::move(entries);
  point["aggregate"] = aggregate_json(replicas);
  return point;
}

std::string json_text(const nlohmann::ordered_json& document) {
  // Invalid UTF-8 in strings is replaced rather than thrown, so any document can be written.
  return document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

void write_text_atomically(std::string_view text, const std::filesystem::path& path) {
  const std::filesystem::path directory =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) throw write_error(path, "cannot create the directory", error.value());

  // A unique name in the same directory, so the rename below stays atomic.
  const TemporaryFile file = make_temporary_beside(path);
  const int fd = file.fd;
  const std::string& temporary = file.path;
  if (fd < 0) throw write_error(path, "cannot create a temporary file", errno);
  auto fail = [&](std::string_view what) {
    const int saved = errno;
    ::close(fd);
    ::unlink(temporary.c_str());
    return write_error(path, what, saved);
  };
  if (::fchmod(fd, 0644) != 0) throw fail("cannot set permissions");
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw fail("write failed");
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) throw fail("fsync failed");
  if (::close(fd) != 0) {
    const int saved = errno;
    ::unlink(temporary.c_str());
    throw write_error(path, "close failed", saved);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    ::unlink(temporary.c_str());
    throw write_error(path, "rename failed", saved);
  }
}

void write_json_atomically(const nlohmann::ordered_json& document,
                           const std::filesystem::path& path) {
  write_text_atomically(json_text(document), path);
}

}  // namespace codesim::analysis
