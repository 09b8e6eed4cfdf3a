#include <csignal>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "engine/process.h"

namespace opmatrix {

TEST(Process, CapturesStdoutAndExitCode) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo hello; exit 3"};
  spec.capture_stdout = true;
  ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.stdout_text, "hello\n");
  EXPECT_FALSE(r.ok());
}

TEST(Process, ArgumentsReachTheProgramLiterallyWithoutAShell) {
  ProcessSpec spec;
  spec.argv = {"printf", "%s|", "$(id)", "a b;c", "`x`"};
  spec.capture_stdout = true;
  ProcessResult r = run_process(spec);
  ASSERT_TRUE(r.ok()) << r.start_error;
  EXPECT_EQ(r.stdout_text, "$(id)|a b;c|`x`|");
}

TEST(Process, TimeoutStopsTheWholeProcessGroup) {
  ProcessSpec spec;
  // The child of the shell must die too, or the pipe would stay open.
  spec.argv = {"/bin/sh", "-c", "sleep 30 & sleep 30"};
  spec.timeout_s = 0.5;
  ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_FALSE(r.ok());
}

// At its time limit a step says what was still running (a compiler at work, or nothing: a hang):
// on_timeout's output, in the log under kTimeLimitListing, before the kill.
TEST(Process, AtTheTimeLimitWhatStillRunsIsListedInTheLog) {
  const std::string log = ::testing::TempDir() + "opmatrix-time-limit.log";
  std::remove(log.c_str());
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo compiling; sleep 30"};
  spec.log_path = log;
  spec.timeout_s = 0.5;
  spec.on_timeout = {"/bin/sh", "-c", "echo COMMAND; echo cc1plus; echo ninja"};
  ASSERT_TRUE(run_process(spec).timed_out);
  std::ifstream in(log);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, std::string("compiling\n\n") + kTimeLimitListing + "\nCOMMAND\ncc1plus\nninja\n");
  // A step that ends in time lists nothing.
  spec.argv = {"/bin/true"};
  std::remove(log.c_str());
  ASSERT_TRUE(run_process(spec).ok());
  std::ifstream none(log);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(none)), std::istreambuf_iterator<char>()), "");
}

TEST(Process, SignalIsReported) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "kill -SEGV $$"};
  ProcessResult r = run_process(spec);
  EXPECT_EQ(r.signal, SIGSEGV);
}

TEST(Process, MissingProgramIsAStartErrorNamingIt) {
  ProcessSpec spec;
  spec.argv = {"opmatrix-no-such-program"};
  ProcessResult r = run_process(spec);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.start_error.find("opmatrix-no-such-program"), std::string::npos);
}

TEST(Process, EnvironmentIsAdded) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "printf %s \"$OPMATRIX_TEST_VAR\""};
  spec.env = {{"OPMATRIX_TEST_VAR", "x y"}};
  spec.capture_stdout = true;
  EXPECT_EQ(run_process(spec).stdout_text, "x y");
}

TEST(Process, DisplayQuotingIsReversibleByAShell) {
  EXPECT_EQ(shell_quote_for_display({"cmake", "-DX=a b", "it's", "plain/path:1"}),
            "cmake '-DX=a b' 'it'\\''s' plain/path:1");
}

}  // namespace opmatrix
