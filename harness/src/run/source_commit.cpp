#include "run/source_commit.h"

#include "engine/process.h"

namespace opmatrix {

namespace {

ProcessResult git(const std::string& folder, std::vector<std::string> args) {
  ProcessSpec spec;
  spec.argv = {"git", "-C", folder};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.capture_stdout = true;
  spec.timeout_s = 30;
  spec.ignore_stop = true;
  return run_process(spec);
}

}  // namespace

std::string source_commit(const std::string& folder) {
  ProcessResult head = git(folder, {"rev-parse", "--verify", "HEAD"});
  if (!head.ok()) return "";
  std::string commit = head.stdout_text.substr(0, head.stdout_text.find('\n'));
  ProcessResult status = git(folder, {"status", "--porcelain", "--untracked-files=no"});
  if (status.ok() && !status.stdout_text.empty()) commit += "+dirty";
  return commit;
}

}  // namespace opmatrix
