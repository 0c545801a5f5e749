// JSON input with limits: the file checks (kind, size) before and after opening, and a SAX
// handler that builds the document knowing the pointer of every value, to reject duplicate keys
// and deep nesting.
#include "app/config/json_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <set>
#include <system_error>
#include <vector>

#include "app/config/json_pointer.hpp"
#include "app/config/scenario_error.hpp"

namespace codesim::app {

namespace {

// Where nlohmann's "... at line L, column C: DETAIL" puts L, C and DETAIL.
struct ParseErrorPosition {
  std::string line;
  std::string column;
  std::size_t detail_start = 0;
};

// Reads `digits` at `at` (advancing it); empty when there are none.
std::string read_digits(const std::string& text, std::size_t& at) {
  const std::size_t start = at;
  while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
  return text.substr(start, at - start);
}

std::optional<ParseErrorPosition> parse_error_position(const std::string& what) {
  for (std::size_t at = what.find("line "); at != std::string::npos;
       at = what.find("line ", at + 1)) {
    std::size_t cursor = at + 5;
    ParseErrorPosition p;
    p.line = read_digits(what, cursor);
    if (p.line.empty() || what.compare(cursor, 9, ", column ") != 0) continue;
    cursor += 9;
    p.column = read_digits(what, cursor);
    if (p.column.empty() || what.compare(cursor, 2, ": ") != 0) continue;
    p.detail_start = cursor + 2;
    return p;
  }
  return std::nullopt;
}

/// nlohmann's "... parse error at line L, column C: DETAIL; expected X" as our message.
ScenarioError syntax_error(const std::string& what, const std::string& file) {
  // Split by hand: std::regex recurses per character and overflowed the stack on the long
  // messages of a fuzzed input (tests/fuzz/regressions/fault_log).
  std::string location;
  std::string detail = what;
  if (const auto position = parse_error_position(what)) {
    location = " at line " + position->line + ", column " + position->column;
    detail = what.substr(position->detail_start);
  }
  std::string expected = "valid JSON";
  if (const auto semicolon = detail.find("; "); semicolon != std::string::npos) {
    const std::string rest = detail.substr(semicolon + 2);
    if (rest.starts_with("expected ")) expected = rest.substr(9);
    detail.resize(semicolon);
  }
  return ScenarioError(file, "",
                       "invalid JSON" + location + ": " + detail + " (expected " + expected + ")");
}

/// Parse failures as messages: nlohmann's "... at line L, column C: DETAIL; expected X" with its
/// position, other failures (a number too large for a double) without one.
ScenarioError parse_failure(const Json::exception& error, const std::string& file) {
  if (dynamic_cast<const Json::parse_error*>(&error) != nullptr) {
    return syntax_error(error.what(), file);
  }
  std::string detail = error.what();
  if (const auto bracket = detail.find("] "); detail.starts_with("[json.exception")) {
    detail = detail.substr(bracket + 2);
  }
  return ScenarioError(file, "", "invalid JSON: " + detail + " (expected valid JSON)");
}

/// A SAX handler of nlohmann's parser that builds the document like its own DOM builder, knowing
/// the pointer of every value: throws at the first key given twice in an object and at the first
/// container nested deeper than kMaxJsonDepth. (nlohmann's callback parser would do, but it scans
/// an array at the end of each of its objects: quadratic in an edge list.)
class CheckingBuilder {
 public:
  CheckingBuilder(const std::string& file, std::string_view at)
      : file_(file), at_(at), base_depth_(split_json_pointer(at, file, "").size()) {}

  Json take() { return std::move(root_); }

  bool null() { return add(nullptr); }
  bool boolean(bool value) { return add(value); }
  bool number_integer(Json::number_integer_t value) { return add(value); }
  bool number_unsigned(Json::number_unsigned_t value) { return add(value); }
  bool number_float(Json::number_float_t value, const Json::string_t&) { return add(value); }
  bool string(Json::string_t& value) { return add(std::move(value)); }
  bool binary(Json::binary_t& value) { return add(Json::binary(std::move(value))); }
  bool start_object(std::size_t) { return open(Json::object()); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(Json::string_t& key) {
    Frame& object = frames_.back();
    if (!object.keys.insert(key).second) {
      throw ScenarioError(
          file_, pointer() + "/" + escape_pointer_token(key),
          "duplicate key " + in_quotes(key) + " (expected each key at most once in an object)");
    }
    object.key = std::move(key);
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const Json::exception& error) {
    throw parse_failure(error, file_);
  }

 private:
  struct Frame {
    Json* container = nullptr;   ///< stays valid: only the innermost container grows
    std::string token;           ///< this container's token in its parent ("" for the root)
    std::string key;             ///< objects: the key of the value being read
    std::set<std::string> keys;  ///< objects: the keys seen
  };

  /// Puts `value` where the parser is (keys are unique, so an object only appends).
  Json* place(Json value) {
    if (frames_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Frame& parent = frames_.back();
    if (parent.container->is_array()) {
      Json::array_t& array = parent.container->get_ref<Json::array_t&>();
      array.push_back(std::move(value));
      return &array.back();
    }
    Json::object_t& object = parent.container->get_ref<Json::object_t&>();
    object.emplace_back(parent.key, std::move(value));
    return &object.back().second;
  }

  bool add(Json value) {
    place(std::move(value));
    return true;
  }

  bool open(Json container) {
    std::string token;
    if (!frames_.empty()) {
      const Json& parent = *frames_.back().container;
      token = parent.is_array() ? std::to_string(parent.size()) : frames_.back().key;
    }
    if (base_depth_ + frames_.size() + 1 > static_cast<std::size_t>(kMaxJsonDepth)) {
      throw ScenarioError(file_, pointer() + "/" + escape_pointer_token(token),
                          "arrays and objects nested deeper than " + std::to_string(kMaxJsonDepth) +
                              " levels (expected at most " + std::to_string(kMaxJsonDepth) + ")");
    }
    frames_.push_back({place(std::move(container)), std::move(token), {}, {}});
    return true;
  }

  bool close() {
    frames_.pop_back();
    return true;
  }

  /// The pointer of the innermost open container.
  std::string pointer() const {
    std::string text(at_);
    for (std::size_t i = 1; i < frames_.size(); ++i)
      text += "/" + escape_pointer_token(frames_[i].token);
    return text;
  }

  const std::string& file_;
  std::string at_;
  std::size_t base_depth_;
  Json root_;
  std::vector<Frame> frames_;
};

/// Throws unless `type` is a regular file of at most `max_bytes` (a whole number of MiB).
void check_input_file(std::filesystem::file_type type, std::uintmax_t bytes,
                      const std::string& path, const std::string& expected,
                      std::uintmax_t max_bytes = kMaxJsonFileBytes) {
  using std::filesystem::file_type;
  if (type == file_type::directory) {
    throw ScenarioError(path, "", "is a directory (expected " + expected + ")");
  }
  if (type != file_type::regular) {
    throw ScenarioError(
        path, "",
        "is " + describe_file_type(type) + ", not a regular file (expected " + expected + ")");
  }
  if (bytes > max_bytes) {
    throw ScenarioError(path, "",
                        "the file has " + std::to_string(bytes) +
                            " bytes, more than the limit of " + std::to_string(max_bytes >> 20) +
                            " MiB (expected " + expected + " of at most " +
                            std::to_string(max_bytes) + " bytes)");
  }
}

/// The status of the file at `path`; a ScenarioError when there is none.
std::filesystem::file_status existing_status(const std::string& path, const std::string& expected) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) {
    if (error && error != std::errc::no_such_file_or_directory &&
        error != std::errc::not_a_directory) {
      throw ScenarioError(
          path, "", "cannot read the file: " + error.message() + " (expected " + expected + ")");
    }
    throw ScenarioError(path, "", "no such file (expected " + expected + ")");
  }
  return status;
}

/// Reads the whole regular file open at `fd`, failing when it grows past the limit.
std::string read_all(int fd, const std::string& path, const std::string& expected,
                     std::uintmax_t max_bytes) {
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) return text;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw ScenarioError(path, "",
                          "cannot read the file: " + std::string(std::strerror(errno)) +
                              " (expected " + expected + ")");
    }
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) {
      throw ScenarioError(path, "",
                          "the file grew past the limit of " + std::to_string(max_bytes >> 20) +
                              " MiB while being read (expected " + expected + " of at most " +
                              std::to_string(max_bytes) + " bytes)");
    }
  }
}

}  // namespace

Json parse_json_text(std::string_view text, const std::string& file, std::string_view at) {
  CheckingBuilder builder(file, at);
  Json::sax_parse(text, &builder);
  return builder.take();
}

std::string describe_file_type(std::filesystem::file_type type) {
  using std::filesystem::file_type;
  switch (type) {
    case file_type::regular:
      return "a regular file";
    case file_type::directory:
      return "a directory";
    case file_type::fifo:
      return "a FIFO";
    case file_type::character:
      return "a character device";
    case file_type::block:
      return "a block device";
    case file_type::socket:
      return "a socket";
    default:
      return "not a regular file";
  }
}

std::string read_input_file(const std::string& path, const std::string& expected,
                            std::uintmax_t max_bytes) {
  namespace fs = std::filesystem;
  // Checked before opening: opening a FIFO waits for a writer, opening a device may act on it.
  const fs::file_status status = existing_status(path, expected);
  check_input_file(status.type(), 0, path, expected);
  // O_NONBLOCK: should the path have become a FIFO since, opening it does not wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    throw ScenarioError(path, "",
                        "cannot read the file: " + std::string(std::strerror(errno)) +
                            " (expected " + expected + ")");
  }
  std::string text;
  try {
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
      throw ScenarioError(path, "", "is no longer a regular file (expected " + expected + ")");
    }
    check_input_file(fs::file_type::regular, static_cast<std::uintmax_t>(info.st_size), path,
                     expected, max_bytes);
    text = read_all(fd, path, expected, max_bytes);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return text;
}

Json read_json_file(const std::string& path, const std::string& expected,
                    std::uintmax_t max_bytes) {
  return parse_json_text(read_input_file(path, expected, max_bytes), path);
}

void check_input_path(const std::string& path, const std::string& expected,
                      std::uintmax_t max_bytes) {
  namespace fs = std::filesystem;
  const fs::file_status status = existing_status(path, expected);
  std::error_code error;
  const std::uintmax_t bytes =
      status.type() == fs::file_type::regular ? fs::file_size(path, error) : 0;
  check_input_file(status.type(), error ? 0 : bytes, path, expected, max_bytes);
}

}  // namespace codesim::app
