#pragma once

#include <string>

namespace opmatrix {

// Writes `content` to a temporary file beside `path`, flushes it to disk and renames it over
// `path`: a reader sees the old file or the new one, never half of one. Throws on failure.
void write_file_atomically(const std::string& path, const std::string& content);

std::string read_text_file(const std::string& path);  // "" if it cannot be read

}  // namespace opmatrix
