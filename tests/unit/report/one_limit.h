// What the verdict tests say of a cell that works with one limit: that limit, by its first
// words (the rest names counts and ops that each test spells out where they matter).
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "report/verdict.h"

namespace opmatrix {

inline void expect_one_limit(const CellVerdict& v, const std::string& first_words) {
  EXPECT_EQ(v.verdict, Verdict::works_with_limits);
  ASSERT_EQ(v.limits.size(), 1u);
  EXPECT_EQ(v.limits[0].rfind(first_words, 0), 0u) << v.limits[0];
}

}  // namespace opmatrix
