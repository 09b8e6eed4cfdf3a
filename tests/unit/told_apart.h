// A predicate's cases as two lists, for the tests that tell one kind of string from the rest
// (a CUDA version, a GPU skip, a standard-library module): every input of `yes` satisfies it, none
// of `no` does. A failure names the input, since the line it points at is this one.
#pragma once

#include <initializer_list>

#include <gtest/gtest.h>

namespace opmatrix::testbed {

template <typename Predicate>
void expect_told_apart(Predicate is, std::initializer_list<const char*> yes, std::initializer_list<const char*> no) {
  for (const char* s : yes) EXPECT_TRUE(is(s)) << "\"" << s << "\" should be, and is not";
  for (const char* s : no) EXPECT_FALSE(is(s)) << "\"" << s << "\" should not be, and is";
}

}  // namespace opmatrix::testbed
