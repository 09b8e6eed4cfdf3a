#include <gtest/gtest.h>

#include "matrix/yaml_tree.h"

namespace opmatrix {

namespace {

std::string first_error(const std::string& text, const YamlLimits& limits = {}) {
  Diagnostics d("f.yaml");
  EXPECT_EQ(parse_yaml(text, d, limits), nullptr);
  auto all = d.sorted();
  return all.empty() ? "(no error)" : format_diagnostic(all.front());
}

}  // namespace

TEST(YamlTree, KeepsPositionsAndRawScalarText) {
  Diagnostics d("f.yaml");
  auto root = parse_yaml("a: 1.10\nb:\n  - \"x\"\n  - ~\n", d);
  ASSERT_NE(root, nullptr);
  ASSERT_EQ(root->kind, YamlNode::Kind::map);
  const YamlEntry* a = root->find("a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->value->text, "1.10");  // not the float 1.1
  EXPECT_FALSE(a->value->quoted);
  EXPECT_EQ(a->key_pos.line, 1);
  EXPECT_EQ(a->value->pos.column, 4);
  const YamlEntry* b = root->find("b");
  ASSERT_EQ(b->value->items.size(), 2u);
  EXPECT_TRUE(b->value->items[0]->quoted);
  EXPECT_EQ(b->value->items[0]->pos.line, 3);
  EXPECT_EQ(b->value->items[0]->pos.column, 5);
  EXPECT_EQ(b->value->items[1]->kind, YamlNode::Kind::null);
}

TEST(YamlTree, DuplicateKeyNamesBothPlaces) {
  Diagnostics d("f.yaml");
  parse_yaml("a: 1\nb: 2\na: 3\n", d);
  ASSERT_TRUE(d.has_errors());
  EXPECT_EQ(format_diagnostic(d.sorted()[0]), "f.yaml:3:1: error: duplicate key 'a' (first at line 1, column 1)");
}

TEST(YamlTree, MergeKeysLetExplicitKeysWin) {
  Diagnostics d("f.yaml");
  auto root = parse_yaml("base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  y: 3\n", d);
  ASSERT_NE(root, nullptr);
  const YamlNode& c = *root->find("c")->value;
  ASSERT_NE(c.find("x"), nullptr);
  EXPECT_EQ(c.find("x")->value->text, "1");
  EXPECT_EQ(c.find("y")->value->text, "3");
}

TEST(YamlTree, SyntaxErrorsCarryYamlCppsPosition) {
  EXPECT_EQ(first_error("a: [1, 2\n"), "f.yaml:2:1: error: YAML syntax: end of sequence flow not found");
}

TEST(YamlTree, TabIndentationIsRejectedWhereItIs) {
  EXPECT_EQ(first_error("a:\n\t- 1\n"), "f.yaml:2:1: error: tab in indentation; YAML indents with spaces only");
}

TEST(YamlTree, InvalidUtf8IsRejectedAtTheByte) {
  EXPECT_EQ(first_error("a: b\nc: d\xff\n"), "f.yaml:2:5: error: invalid UTF-8 (byte 0xFF); save the file as UTF-8");
  EXPECT_EQ(first_error("a: \xc0\xaf\n"), "f.yaml:1:4: error: invalid UTF-8 (byte 0xC0); save the file as UTF-8");
}

TEST(YamlTree, ValidUtf8IsAccepted) {
  Diagnostics d("f.yaml");
  EXPECT_NE(parse_yaml("note: \"Debian's torch \xe2\x80\x94 ok \xf0\x9f\x98\x80\"\n", d), nullptr);
}

TEST(YamlTree, AliasBombStopsAtTheNodeBudget) {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    const char prev = static_cast<char>(c - 1);
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) bomb += std::string(i ? ", " : "") + "*" + prev;
    bomb += "]\n";
  }
  const std::string e = first_error(bomb);
  EXPECT_NE(e.find("error: document expands to more than 200000 nodes (alias bomb?)"), std::string::npos) << e;
}

TEST(YamlTree, DeepNestingStops) {
  std::string deep(100, '[');
  deep += std::string(100, ']') + "\n";
  EXPECT_EQ(first_error(deep), "f.yaml:1:65: error: nesting deeper than 64 levels");
}

TEST(YamlTree, OversizedTextIsRefusedBeforeParsing) {
  YamlLimits small;
  small.max_bytes = 16;
  EXPECT_EQ(first_error("key: a value that is long\n", small),
            "f.yaml:1:1: error: file is 26 bytes; a matrix file may be at most 16 bytes");
}

TEST(YamlTree, SecondDocumentIsAnError) {
  EXPECT_EQ(first_error("a: 1\n---\nb: 2\n"),
            "f.yaml:3:1: error: a matrix file holds one YAML document; found a second one");
}

TEST(YamlTree, NulByteIsNotText) {
  EXPECT_EQ(first_error(std::string("a: 1\nb\0", 8)), "f.yaml:2:2: error: NUL byte: this is not a text file");
}

}  // namespace opmatrix
