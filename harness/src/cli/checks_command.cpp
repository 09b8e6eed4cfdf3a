#include <ostream>

#include "checks/registry.h"
#include "cli/commands.h"

namespace opmatrix {

int checks_command(const ChecksOptions& opts, std::ostream& out, std::ostream& /*err*/) {
  const std::string format = opts.json ? "json" : opts.format;
  if (format == "json") out << registry_json().dump(2) << "\n";
  else if (format == "md") out << "## Checks\n\n" << checks_markdown() << "\n## Steps\n\n" << steps_markdown();
  else out << registry_text();
  return kExitOk;
}

}  // namespace opmatrix
