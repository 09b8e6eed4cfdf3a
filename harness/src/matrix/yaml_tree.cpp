#include "matrix/yaml_tree.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_set>

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

namespace opmatrix {

const YamlEntry* YamlNode::find(const std::string& key) const {
  for (const auto& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}

const char* kind_name(YamlNode::Kind kind) {
  switch (kind) {
    case YamlNode::Kind::null: return "null";
    case YamlNode::Kind::scalar: return "scalar";
    case YamlNode::Kind::sequence: return "list";
    case YamlNode::Kind::map: return "mapping";
  }
  return "?";
}

namespace {

SourcePos to_pos(const YAML::Mark& mark) {
  if (mark.is_null()) return {};
  return {mark.line + 1, mark.column + 1};
}

// Thrown to stop the event stream once continuing would only produce noise or run away.
struct StopParsing {};

// Checks that need the raw bytes: yaml-cpp would accept some of these, or fail with a
// message that does not say what is wrong.
bool check_text(const std::string& text, Diagnostics& diag, const YamlLimits& limits) {
  if (text.size() > limits.max_bytes) {
    diag.error({1, 1}, fmt::format("file is {} bytes; a matrix file may be at most {} bytes",
                                   text.size(), limits.max_bytes));
    return false;
  }
  int line = 1, col = 1;
  bool at_indent = true;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t len = 1;
    if (c == 0) {
      diag.error({line, col}, "NUL byte: this is not a text file");
      return false;
    }
    if (c >= 0x80) {
      // UTF-8: lead byte gives the length; continuation bytes are 10xxxxxx; no overlongs.
      if (c >= 0xC2 && c <= 0xDF) len = 2;
      else if (c >= 0xE0 && c <= 0xEF) len = 3;
      else if (c >= 0xF0 && c <= 0xF4) len = 4;
      else len = 0;
      bool ok = len != 0 && i + len <= text.size();
      for (std::size_t k = 1; ok && k < len; ++k)
        ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
      if (ok && len == 3 && c == 0xE0) ok = static_cast<unsigned char>(text[i + 1]) >= 0xA0;
      if (ok && len == 4 && c == 0xF0) ok = static_cast<unsigned char>(text[i + 1]) >= 0x90;
      if (!ok) {
        diag.error({line, col}, fmt::format("invalid UTF-8 (byte 0x{:02X}); save the file as UTF-8", c));
        return false;
      }
    }
    if (c == '\t' && at_indent) {
      diag.error({line, col}, "tab in indentation; YAML indents with spaces only");
      return false;
    }
    if (c == '\n') {
      ++line;
      col = 1;
      at_indent = true;
    } else {
      if (c != ' ' && c != '\t') at_indent = false;
      ++col;
    }
    i += len;
  }
  return true;
}

class TreeBuilder : public YAML::EventHandler {
 public:
  TreeBuilder(Diagnostics& diag, const YamlLimits& limits) : diag_(diag), limits_(limits) {}

  YamlNodePtr root() const { return root_; }
  bool saw_document() const { return saw_document_; }

  void OnDocumentStart(const YAML::Mark&) override { saw_document_ = true; }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto node = std::make_shared<YamlNode>();
    node->kind = YamlNode::Kind::null;
    node->pos = to_pos(mark);
    remember(anchor, node);
    count_node(mark);
    add(node);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {
      diag_.error(to_pos(mark), "alias to an unknown anchor");
      throw StopParsing{};
    }
    if (open_.count(it->second.get())) {
      diag_.error(to_pos(mark), "alias refers to a node that contains it (recursive alias)");
      throw StopParsing{};
    }
    total_nodes_ += it->second->expanded_size;
    check_node_budget(mark);
    add(it->second);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    auto node = std::make_shared<YamlNode>();
    node->kind = YamlNode::Kind::scalar;
    node->pos = to_pos(mark);
    node->text = value;
    node->quoted = tag == "!";  // yaml-cpp tags non-plain scalars "!" and plain ones "?"
    if (tag == "?" && (value == "~" || value == "null" || value == "Null" || value == "NULL"))
      node->kind = YamlNode::Kind::null;
    remember(anchor, node);
    count_node(mark);
    add(node);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open_container(YamlNode::Kind::sequence, mark, anchor);
  }
  void OnSequenceEnd() override { close_container(); }

  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open_container(YamlNode::Kind::map, mark, anchor);
  }
  void OnMapEnd() override { close_container(); }

 private:
  struct Frame {
    std::shared_ptr<YamlNode> node;
    bool have_key = false;
    bool key_is_merge = false;
    std::string key;
    SourcePos key_pos;
    std::vector<YamlNodePtr> merges;  // `<<` values, applied when the map closes
  };

  void check_node_budget(const YAML::Mark& mark) {
    if (total_nodes_ > limits_.max_nodes) {
      diag_.error(to_pos(mark), fmt::format("document expands to more than {} nodes "
                                            "(alias bomb?); use fewer aliases",
                                            limits_.max_nodes));
      throw StopParsing{};
    }
  }

  void count_node(const YAML::Mark& mark) {
    ++total_nodes_;
    check_node_budget(mark);
  }

  void remember(YAML::anchor_t anchor, const YamlNodePtr& node) {
    if (anchor != YAML::NullAnchor) anchors_[anchor] = node;
  }

  void open_container(YamlNode::Kind kind, const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (static_cast<int>(stack_.size()) >= limits_.max_depth) {
      diag_.error(to_pos(mark), fmt::format("nesting deeper than {} levels", limits_.max_depth));
      throw StopParsing{};
    }
    auto node = std::make_shared<YamlNode>();
    node->kind = kind;
    node->pos = to_pos(mark);
    node->expanded_size = 1;
    remember(anchor, node);
    open_.insert(node.get());
    Frame frame;
    frame.node = node;
    stack_.push_back(std::move(frame));
    count_node(mark);
  }

  void close_container() {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    open_.erase(frame.node.get());
    if (frame.node->kind == YamlNode::Kind::map) apply_merges(frame);
    add(frame.node);
  }

  // YAML merge keys (`<<: *defaults`): keys written in the map win over merged ones.
  void apply_merges(Frame& frame) {
    for (const auto& source : frame.merges) {
      std::vector<YamlNodePtr> maps;
      if (source->kind == YamlNode::Kind::map) maps.push_back(source);
      else if (source->kind == YamlNode::Kind::sequence) maps = source->items;
      for (const auto& m : maps) {
        if (m->kind != YamlNode::Kind::map) {
          diag_.error(m->pos, "`<<` merges mappings only");
          continue;
        }
        for (const auto& e : m->entries)
          if (!frame.node->find(e.key)) {
            frame.node->entries.push_back(e);
            frame.node->expanded_size += e.value->expanded_size;
          }
      }
      if (source->kind != YamlNode::Kind::map && source->kind != YamlNode::Kind::sequence)
        diag_.error(source->pos, "`<<` needs a mapping or a list of mappings");
    }
  }

  void add(const YamlNodePtr& node) {
    if (stack_.empty()) {
      root_ = node;
      return;
    }
    Frame& top = stack_.back();
    auto& parent = *top.node;
    if (parent.kind == YamlNode::Kind::sequence) {
      parent.items.push_back(node);
      parent.expanded_size += node->expanded_size;
      return;
    }
    if (!top.have_key) {
      if (node->kind != YamlNode::Kind::scalar) {
        diag_.error(node->pos, "mapping keys must be plain words");
        throw StopParsing{};
      }
      top.have_key = true;
      top.key = node->text;
      top.key_pos = node->pos;
      top.key_is_merge = node->text == "<<" && !node->quoted;
      const YamlEntry* first = top.key_is_merge ? nullptr : parent.find(node->text);
      if (first)
        diag_.error(node->pos, fmt::format("duplicate key '{}' (first at line {}, column {})",
                                           node->text, first->key_pos.line, first->key_pos.column));
      return;
    }
    top.have_key = false;
    if (top.key_is_merge) {
      top.merges.push_back(node);
    } else {
      parent.entries.push_back({top.key, top.key_pos, node});
      parent.expanded_size += node->expanded_size;
    }
  }

  Diagnostics& diag_;
  YamlLimits limits_;
  YamlNodePtr root_;
  bool saw_document_ = false;
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, YamlNodePtr> anchors_;
  std::unordered_set<const YamlNode*> open_;
  std::size_t total_nodes_ = 0;
};

}  // namespace

YamlNodePtr parse_yaml(const std::string& text, Diagnostics& diag, const YamlLimits& limits) {
  if (!check_text(text, diag, limits)) return nullptr;
  std::istringstream in(text);
  try {
    YAML::Parser parser(in);
    TreeBuilder builder(diag, limits);
    parser.HandleNextDocument(builder);
    YamlNodePtr root = builder.root();
    TreeBuilder extra(diag, limits);
    if (parser.HandleNextDocument(extra) && extra.root()) {
      diag.error(extra.root()->pos, "a matrix file holds one YAML document; found a second one");
      return nullptr;
    }
    if (diag.has_errors()) return nullptr;
    if (!root) root = std::make_shared<YamlNode>();
    return root;
  } catch (const YAML::Exception& e) {
    diag.error(to_pos(e.mark), fmt::format("YAML syntax: {}", e.msg));
  } catch (const StopParsing&) {
  }
  return nullptr;
}

std::optional<std::string> read_yaml_file(const std::string& path, const std::string& what, const std::string& hint,
                                          std::vector<Diagnostic>& diagnostics) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    diagnostics.push_back({path, {1, 1}, Severity::error, fmt::format("is a directory, not a {}", what)});
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diagnostics.push_back({path, {1, 1}, Severity::error, fmt::format("cannot open the {} ({})", what, hint)});
    return std::nullopt;
  }
  // Refuse to slurp a huge file: the size check reads no more than one byte past the limit.
  const std::size_t limit = YamlLimits{}.max_bytes;
  std::string text(limit + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > limit) {
    const auto size = fs::file_size(path, ec);
    diagnostics.push_back({path, {1, 1}, Severity::error,
                           fmt::format("file is {} bytes; a {} may be at most {} bytes", ec ? text.size() : size, what,
                                       limit)});
    return std::nullopt;
  }
  return text;
}

}  // namespace opmatrix
