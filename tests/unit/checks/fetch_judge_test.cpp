// The `fetch` check from fetch_pypi.py's JSON: the file PyPI lists, or why there is none for
// this cell, the run's fault (network) told apart from the library's.
#include <gtest/gtest.h>

#include "checks/fetch/fetch_judge.h"

namespace opmatrix {
namespace {

using json = nlohmann::json;

// FetchContext's fields in their order: {project, repro, log, seconds}, downloads_dir, timed_out,
// exit_code.
FetchContext context() {
  return FetchContext{{"pypi torch-scatter==2.1.2", "podman run ... fetch_pypi.py", "fetch_pypi.py: something\n", 0},
                      "/work/downloads", false, 1};
}

}  // namespace

TEST(FetchCheck, AFileNamesItsSha256AndWhereItCameFrom) {
  const json ok = {{"ok", true}, {"filename", "torch_scatter-2.1.2.tar.gz"}, {"size", 108045}, {"sha256", "69b3aa43"},
                   {"cached", true}, {"url", "https://files.pythonhosted.org/x/torch_scatter-2.1.2.tar.gz"}};
  const CheckResult c = fetch_check(ok, context());
  EXPECT_EQ(c.status, Status::pass);
  EXPECT_EQ(c.message, "pypi torch-scatter==2.1.2: torch_scatter-2.1.2.tar.gz, 108045 bytes, sha256 69b3aa43 as PyPI "
                       "lists it, from the downloads cache (https://files.pythonhosted.org/x/torch_scatter-2.1.2.tar.gz)");
  EXPECT_FALSE(c.diagnosis);
}

TEST(FetchCheck, TheLibrarysAbsenceIsAFailWithPypisFactsAndTheFix) {
  const json none = {{"ok", false}, {"error", "no_such_version"},
                     {"message", "https://pypi.org has no version 9.9.9 of torch-scatter (newest: 2.1.2)"}};
  const CheckResult c = fetch_check(none, context());
  EXPECT_EQ(c.status, Status::fail);
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, "no_such_version");
  EXPECT_EQ(c.message, "https://pypi.org has no version 9.9.9 of torch-scatter (newest: 2.1.2)");
  EXPECT_EQ(c.diagnosis->fix, "fix the project's NAME==VERSION in the matrix");
  EXPECT_EQ(c.diagnosis->repro, "podman run ... fetch_pypi.py");
  EXPECT_EQ(c.diagnosis->evidence, "fetch_pypi.py: something\n");
}

TEST(FetchCheck, NetworkAndTimeoutsAreTheRunsFault) {
  const CheckResult offline = fetch_check({{"ok", false}, {"error", "network"}, {"message", "no route"}}, context());
  EXPECT_EQ(offline.status, Status::error);
  FetchContext slow = context();
  slow.timed_out = true;
  const CheckResult timed_out = fetch_check(json(), slow);  // killed: no JSON at all
  EXPECT_EQ(timed_out.status, Status::error);
  EXPECT_EQ(timed_out.diagnosis->kind, "network");
  EXPECT_EQ(timed_out.message, "the download from PyPI ran past its time limit");
}

TEST(FetchCheck, ScriptWithoutAnswerOrAHashMismatchNamesWhatToDo) {
  const CheckResult silent = fetch_check(json(), context());
  EXPECT_EQ(silent.status, Status::fail);
  EXPECT_EQ(silent.diagnosis->kind, "fetch_error");
  EXPECT_EQ(silent.message, "fetch_pypi.py printed no result (exit 1; see the log)");
  const CheckResult changed = fetch_check({{"ok", false}, {"error", "hash_mismatch"}, {"message", "sha256 differs"}}, context());
  EXPECT_NE(changed.diagnosis->fix.find("remove /work/downloads"), std::string::npos) << changed.diagnosis->fix;
}

}  // namespace opmatrix
