// A fresh folder under the system's temp dir for one test, removed with everything in it
// when the test ends; `write` puts a fixture file in it.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace opmatrix {

struct TempFolder {
  std::filesystem::path path;

  TempFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "opmatrix-init-test-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~TempFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  void write(const std::string& relative, const std::string& text) const {
    const std::filesystem::path file = path / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
  }
};

}  // namespace opmatrix
