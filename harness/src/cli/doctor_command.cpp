#include <algorithm>
#include <ostream>

#include "cli/commands.h"
#include "doctor/doctor.h"

namespace opmatrix {

// Exit 1 when a known failure applies; 2 when one of doctor's own scripts failed (its error is
// in the output, and the findings that needed it are unknown).
int doctor_command(const DoctorOptions& opts, std::ostream& out, std::ostream& err) {
  DoctorReport report = run_doctor({opts.python, opts.libtorch});
  if (opts.json) out << doctor_json(report).dump(2) << '\n';
  else out << format_doctor_text(report);
  const auto failed = failed_scripts(report.environment);
  for (const auto& f : failed) err << "opmatrix doctor: " << f << " (its stderr tail is in the output)\n";
  if (!failed.empty()) return kExitUsage;
  const bool any = std::any_of(report.findings.begin(), report.findings.end(), [](const auto& f) { return f.applies; });
  return any ? kExitFailed : kExitOk;
}

}  // namespace opmatrix
