// ChromeTraceWriter: one JSON event per line, written through stdio's buffer; the closing lines
// record whether the cap truncated the trace.
#include "analysis/chrome_trace_writer.hpp"

#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <utility>

#include <sys/stat.h>
#include <unistd.h>

#include "analysis/temporary_file.hpp"

namespace codesim::analysis {

namespace {

// Chrome traces count microseconds.
constexpr double kMicrosecondsPerSecond = 1e6;
constexpr std::array<std::string_view, 3> kLaneNames = {"compute", "protocol", "state"};

}  // namespace

ChromeTraceWriter::ChromeTraceWriter(std::string path, const TraceOptions& options, int nodes)
    : path_(std::move(path)), options_(options), job_pid_(nodes) {
  // Like the fault logs, a trace may go to a directory the run creates.
  const std::filesystem::path parent = std::filesystem::path(path_).parent_path();
  std::error_code ignored;  // a failure shows as the error below
  if (!parent.empty()) std::filesystem::create_directories(parent, ignored);
  // A unique name beside the trace: no file of the user's is replaced before the rename.
  const TemporaryFile temporary = make_temporary_beside(path_);
  temporary_ = temporary.path;
  if (temporary.fd >= 0) file_ = ::fdopen(temporary.fd, "wb");
  if (file_ == nullptr) {
    const int saved = errno;
    if (temporary.fd >= 0) {
      ::close(temporary.fd);
      std::remove(temporary_.c_str());
    }
    throw std::runtime_error("cannot write the trace " + path_ + ": " + std::strerror(saved));
  }
  ::fchmod(temporary.fd, 0644);
  write_raw("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
  // Metadata (not counted against the cap): process and lane names, the job first.
  for (int pid = 0; pid <= nodes; ++pid) {
    const std::string name = pid == nodes ? "job" : "node " + std::to_string(pid);
    begin_event("process_name", 'M', pid == nodes ? sim::kJobTrack : pid, 0, 0.0);
    write_raw(",\"args\":{\"name\":");
    write_string(name);
    write_raw("}},\n");
    begin_event("process_sort_index", 'M', pid == nodes ? sim::kJobTrack : pid, 0, 0.0);
    write_raw(",\"args\":{\"sort_index\":");
    write_integer(pid == nodes ? -1 : pid);
    write_raw("}},\n");
    for (int lane = 0; lane < (pid == nodes ? 1 : 3); ++lane) {
      begin_event("thread_name", 'M', pid == nodes ? sim::kJobTrack : pid, lane, 0.0);
      write_raw(",\"args\":{\"name\":");
      write_string(pid == nodes ? "job" : kLaneNames[static_cast<std::size_t>(lane)]);
      write_raw("}},\n");
    }
  }
}

ChromeTraceWriter::~ChromeTraceWriter() {
  if (file_ != nullptr) {
    std::fclose(file_);
    std::remove(temporary_.c_str());  // not closed: the run failed, no partial trace is left
  }
}

bool ChromeTraceWriter::in_window(double start_s, double end_s) const {
  return end_s >= options_.from_s && start_s <= options_.to_s &&
         iterations_ >= options_.from_iteration && iterations_ < options_.to_iteration;
}

bool ChromeTraceWriter::admit() {
  if (written_ < options_.max_events) {
    ++written_;
    return true;
  }
  ++dropped_;
  return false;
}

void ChromeTraceWriter::slice(int track, sim::TraceLane lane, std::string_view name, double start_s,
                              double duration_s, sim::TraceArgs args) {
  if (!in_window(start_s, start_s + duration_s) || !admit()) return;
  begin_event(name, 'X', track, static_cast<int>(lane), start_s);
  write_raw(",\"dur\":");
  write_number(duration_s * kMicrosecondsPerSecond);
  write_args(args);
  write_raw("},\n");
}

void ChromeTraceWriter::instant(int track, std::string_view name, double time_s,
                                sim::TraceArgs args) {
  if (!in_window(time_s, time_s) || !admit()) return;
  begin_event(name, 'i', track, 0, time_s);
  write_raw(",\"s\":\"t\"");
  write_args(args);
  write_raw("},\n");
}

void ChromeTraceWriter::counter(std::string_view name, double time_s, double value) {
  if (!in_window(time_s, time_s) || !admit()) return;
  begin_event(name, 'C', sim::kJobTrack, 0, time_s);
  write_raw(",\"args\":{");
  write_string(name);
  write_raw(":");
  write_number(value);
  write_raw("}},\n");
}

void ChromeTraceWriter::flow(std::string_view name, int from, double from_s, int to, double to_s) {
  if (!options_.flows || !in_window(from_s, to_s)) return;
  // Both ends or neither: a flow start without its end would dangle.
  if (written_ + 2 > options_.max_events) {
    dropped_ += 2;
    return;
  }
  written_ += 2;
  const std::uint64_t id = next_flow_id_++;
  begin_event(name, 's', from, static_cast<int>(sim::TraceLane::protocol), from_s);
  write_raw(",\"cat\":\"flow\",\"id\":");
  write_integer(id);
  write_raw("},\n");
  begin_event(name, 'f', to, static_cast<int>(sim::TraceLane::protocol), to_s);
  write_raw(",\"cat\":\"flow\",\"bp\":\"e\",\"id\":");
  write_integer(id);
  write_raw("},\n");
}

void ChromeTraceWriter::close() {
  if (file_ == nullptr) return;
  // The last event has no comma after it: an empty metadata event ends the array.
  write_raw("{\"name\":\"trace_end\",\"ph\":\"M\",\"pid\":");
  write_integer(job_pid_);
  write_raw(",\"tid\":0,\"args\":{}}\n],\"otherData\":{\"time_unit\":");
  write_string("microseconds of simulated time");
  write_raw(",\"truncated\":");
  write_raw(truncated() ? "true" : "false");
  write_raw(",\"max_events\":");
  write_integer(options_.max_events);
  write_raw(",\"events_written\":");
  write_integer(written_);
  write_raw(",\"events_dropped\":");
  write_integer(dropped_);
  write_raw("}}\n");
  // The first failure's errno says why (a full disk: "No space left on device").
  int saved = std::fflush(file_) != 0 ? errno : (std::ferror(file_) != 0 ? EIO : 0);
  if (std::fclose(file_) != 0 && saved == 0) saved = errno;
  file_ = nullptr;
  if (saved == 0 && std::rename(temporary_.c_str(), path_.c_str()) != 0) saved = errno;
  if (saved != 0) {
    std::remove(temporary_.c_str());
    throw std::runtime_error("cannot write the trace " + path_ + ": " + std::strerror(saved));
  }
}

void ChromeTraceWriter::begin_event(std::string_view name, char phase, int track, int lane,
                                    double time_s) {
  write_raw("{\"name\":");
  write_string(name);
  write_raw(",\"ph\":\"");
  std::fputc(phase, file_);
  write_raw("\",\"pid\":");
  write_integer(track == sim::kJobTrack ? job_pid_ : track);
  write_raw(",\"tid\":");
  write_integer(lane);
  if (phase != 'M') {
    write_raw(",\"ts\":");
    write_number(time_s * kMicrosecondsPerSecond);
  }
}

void ChromeTraceWriter::write_args(sim::TraceArgs args) {
  if (args.size() == 0) return;
  write_raw(",\"args\":{");
  bool first = true;
  for (const sim::TraceArg& arg : args) {
    if (!first) write_raw(",");
    first = false;
    write_string(arg.key);
    write_raw(":");
    if (arg.is_text) {
      write_string(arg.text);
    } else {
      write_number(arg.number);
    }
  }
  write_raw("}");
}

void ChromeTraceWriter::write_string(std::string_view text) {
  std::fputc('"', file_);
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      std::fputc('\\', file_);
      std::fputc(c, file_);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      std::fprintf(file_, "\\u%04x", static_cast<unsigned>(c));
    } else {
      std::fputc(c, file_);
    }
  }
  std::fputc('"', file_);
}

// Shortest round-trip text; JSON has no infinity or NaN, which are written as null.
void ChromeTraceWriter::write_number(double value) {
  if (!std::isfinite(value)) {
    write_raw("null");
    return;
  }
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  std::fwrite(buffer.data(), 1, static_cast<std::size_t>(result.ptr - buffer.data()), file_);
}

void ChromeTraceWriter::write_integer(std::int64_t value) { write_raw(std::to_string(value)); }

void ChromeTraceWriter::write_raw(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), file_);
}

}  // namespace codesim::analysis
