// Tags every test with the op and the check it stands for, so the harness can build its
// op × check table from gtest's JSON output (docs/cell-contract.md).
#pragma once

#include <gtest/gtest.h>

#include <string>

#define OPMATRIX_CHECK(op, check)                      \
  do {                                                 \
    ::testing::Test::RecordProperty("op", (op));       \
    ::testing::Test::RecordProperty("check", (check)); \
  } while (0)

// gtest's JSON output drops GTEST_SKIP's message in older releases; the property keeps it.
#define OPMATRIX_SKIP(reason)                                         \
  do {                                                                \
    const std::string opmatrix_skip_reason_ = (reason);               \
    ::testing::Test::RecordProperty("skip_reason", opmatrix_skip_reason_); \
    GTEST_SKIP() << opmatrix_skip_reason_;                            \
  } while (0)
