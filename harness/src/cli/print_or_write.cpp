#include <ostream>

#include "cli/commands.h"
#include "util/atomic_write.h"

namespace opmatrix {

bool writes_to_stdout(const std::string& output) { return output.empty() || output == "-"; }

bool print_or_write(const std::string& output, const std::string& text, const std::string& command,
                    std::ostream& out, std::ostream& err) {
  if (writes_to_stdout(output)) {
    out << text;
    return true;
  }
  try {
    write_file_atomically(output, text);  // a reader never sees half a report
  } catch (const std::exception& e) {
    err << "opmatrix " << command << ": error: " << e.what() << "\n";
    return false;
  }
  return true;
}

}  // namespace opmatrix
