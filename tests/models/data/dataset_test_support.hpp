// Helpers for the dataset tests: a scratch directory, raw file writers, and DatasetError capture.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "models/data/dataset.hpp"
#include "support/temp_directory.hpp"

namespace codesim::test {

/// Scratch directories come from the shared test support.
using ScratchDir = TempDirectory;

inline void write_bytes(const std::filesystem::path& file, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

inline std::vector<std::uint8_t> read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The message of the DatasetError `action` throws, or a marker when it throws none.
template <class Action>
std::string dataset_error_message(const Action& action) {
  try {
    action();
  } catch (const models::DatasetError& error) {
    return error.what();
  }
  return "(no DatasetError thrown)";
}

inline bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

}  // namespace codesim::test
