#include "matrix/promises.h"

#include <algorithm>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/suggest.h"

namespace opmatrix {

namespace {

using Kind = YamlNode::Kind;

const std::vector<std::string> kBackends = {"cpu", "cuda"};
const std::vector<std::string> kRegistered = {"always", "with_gpu", "on_some_cpus"};
const std::vector<std::string> kPromisesKeys = {"backends", "why", "ops"};
const std::vector<std::string> kOpKeys = {"backends", "registered", "arch", "why"};

class PromisesReader {
 public:
  PromisesReader(const std::vector<std::string>& ops, Diagnostics& diag) : ops_(ops), d_(diag) {}

  Promises read(const YamlNode& n) {
    Promises p;
    if (!is(n, Kind::map, "'promises'")) return p;
    keys(n, kPromisesKeys, "in 'promises'");
    if (const YamlEntry* e = n.find("backends")) p.backends = backends(*e->value);
    if (const YamlEntry* e = n.find("why")) p.why = text(*e->value, "'why'");
    if (!p.backends.empty() && p.why.empty())
      d_.error(n.pos, "'promises' declares 'backends': say why in 'why' (the upstream fact a reader can check)");
    if (const YamlEntry* e = n.find("ops")) {
      if (is(*e->value, Kind::map, "'promises: ops'"))
        for (const auto& entry : e->value->entries) read_op(entry, p);
    }
    return p;
  }

 private:
  void read_op(const YamlEntry& entry, Promises& p) {
    if (!ops_.empty() && std::find(ops_.begin(), ops_.end(), entry.key) == ops_.end()) {
      d_.error(entry.key_pos, fmt::format("'{}' is not one of the project's ops ({}){}", entry.key,
                                          fmt::join(ops_, ", "), did_you_mean(entry.key, ops_)));
      return;
    }
    const YamlNode& n = *entry.value;
    if (!is(n, Kind::map, fmt::format("the promise of '{}'", entry.key))) return;
    keys(n, kOpKeys, fmt::format("in the promise of '{}'", entry.key));
    OpPromise op;
    if (const YamlEntry* e = n.find("backends")) op.backends = backends(*e->value);
    if (const YamlEntry* e = n.find("registered")) {
      op.registered = text(*e->value, "'registered'");
      if (std::find(kRegistered.begin(), kRegistered.end(), op.registered) == kRegistered.end())
        d_.error(e->value->pos, fmt::format("'registered' must be one of {}, not '{}'{}", fmt::join(kRegistered, ", "),
                                            op.registered, did_you_mean(op.registered, kRegistered)));
    }
    if (const YamlEntry* e = n.find("arch")) {
      op.arch = text(*e->value, "'arch'");
      if (!std::regex_match(op.arch, std::regex(R"(\d{1,2}\.\d)")))
        d_.error(e->value->pos, fmt::format("'arch' '{}' must be a compute capability like \"10.0\"", op.arch));
      else if (op.registered != "with_gpu")
        d_.error(e->key_pos, "'arch' says which GPU a registration needs: it goes with 'registered: with_gpu'");
    }
    if (const YamlEntry* e = n.find("why")) op.why = text(*e->value, "'why'");
    if (op.why.empty())
      d_.error(entry.key_pos, fmt::format("the promise of '{}' needs 'why': the upstream fact a reader can check "
                                          "(e.g. \"CUDA kernel only: STABLE_TORCH_LIBRARY_IMPL(torchao, CUDA, ...)\")",
                                          entry.key));
    if (op.backends.empty() && op.registered == "always")
      d_.error(entry.key_pos, fmt::format("the promise of '{}' declares neither 'backends' nor 'registered'", entry.key));
    p.ops[entry.key] = op;
  }

  std::vector<std::string> backends(const YamlNode& n) {
    std::vector<std::string> out;
    if (!is(n, Kind::sequence, "'backends'")) return out;
    for (const auto& item : n.items) {
      const std::string b = text(*item, "a backend");
      if (std::find(kBackends.begin(), kBackends.end(), b) == kBackends.end())
        d_.error(item->pos, fmt::format("backend '{}' is not one of cpu, cuda{}", b, did_you_mean(b, kBackends)));
      else
        out.push_back(b);
    }
    if (n.items.empty()) d_.error(n.pos, "'backends' lists no backend: use [cpu], [cuda] or [cpu, cuda]");
    return out;
  }

  std::string text(const YamlNode& n, const std::string& what) {
    return is(n, Kind::scalar, what) ? n.text : std::string();
  }

  bool is(const YamlNode& n, Kind kind, const std::string& what) {
    if (n.kind == kind) return true;
    d_.error(n.pos, fmt::format("{} must be a {}, not a {}", what, kind_name(kind), kind_name(n.kind)));
    return false;
  }

  void keys(const YamlNode& map, const std::vector<std::string>& known, const std::string& context) {
    for (const auto& e : map.entries)
      if (std::find(known.begin(), known.end(), e.key) == known.end())
        d_.error(e.key_pos, fmt::format("unknown key '{}' {}{}", e.key, context, did_you_mean(e.key, known)));
  }

  const std::vector<std::string>& ops_;
  Diagnostics& d_;
};

}  // namespace

Promises read_promises(const YamlNode& n, const std::vector<std::string>& ops, Diagnostics& diag) {
  return PromisesReader(ops, diag).read(n);
}

}  // namespace opmatrix
