#include <algorithm>

#include <gtest/gtest.h>

#include "init/source_lexer.h"
#include "testbed.h"

namespace opmatrix {

namespace {
std::vector<std::string> values(const LexedSource& s) { return testbed::members_of(s.literals, &StringLiteral::value); }
}  // namespace

TEST(CppLexer, CommentsAreBlankedAndLiteralsLifted) {
  const std::string text = "a(\"x // y\"); // TORCH_LIBRARY(no, m) {\n/* TORCH_LIBRARY\n(no) */ b('{');\n";
  const LexedSource s = lex_cpp(text);
  ASSERT_EQ(s.code.size(), text.size());
  EXPECT_EQ(s.code.find("TORCH_LIBRARY"), std::string::npos);
  EXPECT_EQ(s.code.find('{'), std::string::npos) << "a brace in a char literal is no brace";
  EXPECT_EQ(values(s), std::vector<std::string>{"x // y"});
  EXPECT_EQ(std::count(s.code.begin(), s.code.end(), '\n'), 3) << "lines are kept";
}

TEST(CppLexer, RawStringsPrefixesAndDigitSeparators) {
  const LexedSource s = lex_cpp("int n = 1'000'000; auto a = R\"sch(f(Tensor \"x\") -> Tensor)sch\"; auto b = u8\"\\n\";");
  EXPECT_EQ(values(s), (std::vector<std::string>{"f(Tensor \"x\") -> Tensor", "\n"}));
}

TEST(CodeCursor, AdjacentLiteralsAcrossLinesAreOneString) {
  const LexedSource s = lex_cpp("def(\"box_iou(Tensor a, \"\n      // a comment between\n      \"Tensor b) -> Tensor\")");
  CodeCursor c(s, 3);
  ASSERT_TRUE(c.take('('));
  std::string v;
  ASSERT_TRUE(c.string_run(v));
  EXPECT_EQ(v, "box_iou(Tensor a, Tensor b) -> Tensor");
  EXPECT_TRUE(c.take(')'));
}

TEST(PythonLexer, HashCommentsTripleQuotesAndPrefixes) {
  const LexedSource s = lex_python("# define(\"no::op\")\nx = r'a\\b' '''doc\n# not a comment'''\ny = f\"z\"\n");
  EXPECT_EQ(s.code.find("define"), std::string::npos);
  EXPECT_EQ(values(s), (std::vector<std::string>{"a\\b", "doc\n# not a comment", "z"}));
}

TEST(MatchingClose, SkipsNestedBrackets) {
  const std::string code = "{ a { b } ( '}' ) }";
  EXPECT_EQ(matching_close(lex_cpp(code).code, 0), code.size() - 1);
  EXPECT_EQ(matching_close("{ {", 0), 3u) << "unbalanced: the end";
}

}  // namespace opmatrix
