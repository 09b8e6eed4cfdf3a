#include <algorithm>
#include <ostream>

#include "cli/commands.h"
#include "doctor/doctor.h"

namespace opmatrix {

int doctor_command(const DoctorOptions& opts, std::ostream& out, std::ostream&) {
  DoctorReport report = run_doctor({opts.python, opts.libtorch});
  if (opts.json) out << doctor_json(report).dump(2) << '\n';
  else out << format_doctor_text(report);
  const bool any = std::any_of(report.findings.begin(), report.findings.end(), [](const auto& f) { return f.applies; });
  return any ? kExitFailed : kExitOk;
}

}  // namespace opmatrix
