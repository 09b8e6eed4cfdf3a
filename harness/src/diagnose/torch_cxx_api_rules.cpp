// Compile errors whose cause is a C++ API that a torch release removed: the compiler's words
// ("cannot convert 'const at::DeprecatedTypeProperties' to 'c10::ScalarType'") say nothing of
// torch, so without this table the diagnosis would blame the toolkit or the code in general.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "diagnose/step_rules.h"
#include "matrix/versions.h"

namespace opmatrix::step_rules {

namespace {

// A name no header declares any more. g++: "‘AT_CHECK’ was not declared in this scope" (or
// "does not name a type"); nvcc (EDG): 'identifier "AT_CHECK" is undefined'. g++ quotes with
// ‘ ’ in a UTF-8 locale and with ' in the C locale.
std::string undeclared(const std::string& name) {
  return "(?:‘|'|\")" + name + "(?:’|'|\") (?:was not declared|is undefined|does not name a type)";
}

// A member a class lost. g++: "‘const class at::Tensor’ has no member named ‘is_variable’";
// nvcc: 'class "at::Tensor" has no member "is_variable"'.
std::string no_member(const std::string& cls, const std::string& member) {
  return cls + "(?:’|'|\") has no member (?:named )?(?:‘|'|\")" + member + "\\b";
}

// A name a namespace lost. g++: "‘variant’ in namespace ‘c10’ does not name a template type",
// "‘holds_alternative’ is not a member of ‘c10’"; nvcc: 'namespace "c10" has no member "variant"'.
std::string not_in_namespace(const std::string& ns, const std::string& names) {
  const std::string q = "(?:‘|’|'|\")";
  return q + "(?:" + names + ")" + q + " (?:in namespace " + q + ns + q + " does not name|is not a member of " + q +
         ns + q + ")|namespace \"" + ns + "\" has no member \"(?:" + names + ")\"";
}

// A header the release deleted. g++ (which also preprocesses for nvcc): "c10/util/variant.h: No
// such file or directory"; clang: "'c10/util/variant.h' file not found"; EDG: 'cannot open source
// file "c10/util/variant.h"'.
std::string missing_header(const std::string& path) {
  return "(?:^|\\s|'|\")" + path + "(?:'|\")?:? (?:No such file or directory|file not found)" +
         "|cannot open source file \"" + path + "\"";
}

// One C++ API change that breaks compiling an op library. Every version was read from the headers
// that release's PyPI wheel installs (torch/include), the last release that has the API next to
// the first without it, and then confirmed by compiling the row's source (tests/data/torch_cxx_api)
// with g++ 12 against both (-fsyntax-only): it compiles with the first and fails with the second,
// in the words `words` matches; nvcc 13.0's words come from compiling it against the second
// (AT_CHECK: against 1.5 and 1.13 only, 1.4's headers predate g++ 12).
struct CxxApiChange {
  const char* api;            // the API as code writes it
  std::vector<std::string> words;  // what g++ and nvcc say where it is used: one regex each
  const char* replacement;    // what to write instead (it compiles with torch 1.13 too)
  const char* breaks_in;      // the first torch release whose headers reject it
  const char* deprecated_in;  // the oldest release checked (1.4) that marks it deprecated, or nullptr
};

const std::vector<CxxApiChange>& cxx_api_changes() {
  static const std::vector<CxxApiChange> changes = {
      // Dispatch.h's `detail::scalar_type(const at::DeprecatedTypeProperties&)` (deprecated by
      // pytorch PR #17996; it warns in 1.4 and 1.13): in 2.5.1, not in 2.6.0.
      {"AT_DISPATCH_*(x.type(), …) (the dispatch macros' at::DeprecatedTypeProperties overload)",
       {R"(DeprecatedTypeProperties\W* to \W*(?:c10|at)::ScalarType)"},
       "pass `x.scalar_type()` instead of `x.type()`", "2.6", "1.4"},
      // Dispatch.h's deprecated macros: AT_DISPATCH_ALL_TYPES_AND_HALF in 2.5.1, not in 2.6.0.
      {"AT_DISPATCH_ALL_TYPES_AND_HALF",
       {undeclared("AT_DISPATCH_ALL_TYPES_AND_HALF")},
       "use AT_DISPATCH_ALL_TYPES_AND(at::ScalarType::Half, x.scalar_type(), NAME, …) instead", "2.6", "1.4"},
      // TensorBody.h's `bool is_variable() const`: in 2.13.0, not in 2.14.1.
      {"Tensor::is_variable()",
       {no_member("at::Tensor", "is_variable")},
       "drop the call: every tensor is a variable (since torch 1.0)", "2.14", "1.4"},
      // c10/core/ScalarType.h's one-argument isIntegralType: in 2.13.0, not in 2.14.1. nvcc says
      // "too few arguments in function call": the call is on the source line it echoes.
      {"isIntegralType(ScalarType) without includeBool",
       {R"((?:too few arguments to function|no matching function for call to) \W*(?:bool )?(?:c10::|at::)?)"
        R"(isIntegralType\b)",
        R"(too few arguments in function call\n.*\bisIntegralType\s*\()"},
       "call `isIntegralType(t, /*includeBool=*/false)`", "2.14", "1.4"},
      // c10/util/variant.h: in 2.1.2, not in 2.2.2, and no c10::variant alias is left.
      {"c10::variant (c10/util/variant.h)",
       {missing_header("c10/util/variant\\.h"),
        not_in_namespace("c10", "variant|holds_alternative|get_if|visit|monostate")},
       "use std::variant, std::holds_alternative, std::get, std::visit from <variant> instead", "2.2", nullptr},
      // torch/csrc/utils/auto_gil.h (AutoGIL, AutoNoGIL): in 2.1.2, not in 2.2.2.
      {"AutoGIL / AutoNoGIL (torch/csrc/utils/auto_gil.h)",
       {missing_header("torch/csrc/utils/auto_gil\\.h"), undeclared("Auto(?:No)?GIL")},
       "use pybind11::gil_scoped_acquire / pybind11::gil_scoped_release instead", "2.2", nullptr},
      // c10/util/Exception.h's AT_CHECK: defined in 1.4.0 (marked deprecated, its warning switched
      // off), not in 1.5.0 nor in 1.13 (whose g++ error our test compiles): older than every torch a
      // matrix has, but old code still uses it.
      {"AT_CHECK",
       {undeclared("AT_CHECK")},
       "use TORCH_CHECK(cond, message…) instead", "1.5", "1.4"},
  };
  return changes;
}

// Where an error in a torch header was reached from the code being built: g++ reports the
// error at the torch line a macro expands to and the code's own line in a note after it.
struct Location {
  std::string file, line;
};

bool torch_header(const std::string& file) {
  static const std::regex torch(R"((?:^|/)(?:torch/include|ATen|c10|torch/csrc)/)");
  return std::regex_search(file, torch);
}

Location code_location(const std::vector<std::string>& lines, std::size_t at, Location where) {
  static const std::regex note(R"(^\s*(\S+?):(\d+):\d+:\s+(?:note|required from))");
  static const std::regex next_error(R"(\berror\b)");
  for (std::size_t i = at + 1; i < lines.size() && i < at + 30 && torch_header(where.file); ++i) {
    std::smatch m;
    if (std::regex_search(lines[i], m, note) && !torch_header(m[1].str())) return {m[1].str(), m[2].str()};
    if (std::regex_search(lines[i], next_error)) break;
  }
  return where;
}

// A compile error at lines[i]: g++ "file:line:col: error: …" (pip indents it), nvcc "file(line):
// error: …". nvcc echoes the source line under its error, and some of its messages name no
// function ("too few arguments in function call"): its message is both lines.
bool compile_error(const std::vector<std::string>& lines, std::size_t i, Location& where, std::string& message) {
  static const std::regex gxx(R"(^\s*(\S+?):(\d+):(?:\d+:)? (?:fatal )?error: (.*)$)");
  static const std::regex nvcc(R"(^\s*(\S+?)\((\d+)\): (?:catastrophic )?error: (.*)$)");
  std::smatch m;
  const bool from_gxx = std::regex_search(lines[i], m, gxx);
  const bool from_nvcc = !from_gxx && std::regex_search(lines[i], m, nvcc);
  if (!from_gxx && !from_nvcc) return false;
  where = {m[1].str(), m[2].str()};
  message = m[3].str() + (from_nvcc && i + 1 < lines.size() ? "\n" + lines[i + 1] : std::string());
  return true;
}

const CxxApiChange* change_named_by(const std::string& message) {
  static const auto patterns = [] {
    std::vector<std::pair<std::regex, const CxxApiChange*>> out;
    for (const auto& change : cxx_api_changes())
      for (const auto& words : change.words) out.emplace_back(std::regex(words), &change);
    return out;
  }();
  for (const auto& [re, change] : patterns)
    if (std::regex_search(message, re)) return change;
  return nullptr;
}

// Every removed API the compile errors name, each once, in the log's order: `what` holds their
// rows' `api`s and `how` the code's file:line of each, one per line. A library that fails on two
// (neural-renderer-pytorch 1.1.3: `AT_DISPATCH_*(x.type(), …)`, gone in 2.6, and AT_CHECK, gone in
// 1.5) needs both fixed, and builds with no torch from the oldest break on. `rest` holds the
// errors no row names at a line no named error is at, one per line ("file:line: message"): what a
// torch bound does not fix (torch-unique 1.0.3: `at::zeros(x.type().toScalarType(at::kByte), {n})`
// at line 22, which torch 1.13 rejects as 2.6 does, beside the dispatch macros' `x.type()` at
// line 23). The errors nvcc adds at a named error's own line (the macro's expansion: "expected an
// expression") are that error's.
bool removed_cxx_api(const std::string& log, Evidence& e) {
  const auto lines = lines_of(log);
  std::vector<const CxxApiChange*> seen;
  std::vector<std::string> named_places;
  std::vector<std::pair<std::string, std::string>> unnamed;  // place, message
  for (std::size_t i = 0; i < lines.size(); ++i) {
    Location where;
    std::string message;
    if (!compile_error(lines, i, where, message)) continue;
    const Location code = code_location(lines, i, where);
    const std::string place = code.file + ":" + code.line;
    const CxxApiChange* change = change_named_by(message);
    if (!change) {
      unnamed.emplace_back(place, message.substr(0, message.find('\n')));
      continue;
    }
    named_places.push_back(place);
    if (std::find(seen.begin(), seen.end(), change) != seen.end()) continue;
    if (seen.empty()) e.line = trimmed(lines[i]);
    e.what += (seen.empty() ? "" : "\n") + std::string(change->api);
    e.how += (seen.empty() ? "" : "\n") + place;
    seen.push_back(change);
  }
  // `named_places` grows with each place listed in `rest`: every place once.
  for (const auto& [place, message] : unnamed) {
    if (std::find(named_places.begin(), named_places.end(), place) != named_places.end()) continue;
    named_places.push_back(place);
    e.rest += (e.rest.empty() ? "" : "\n") + place + ": " + trimmed(message);
  }
  return !seen.empty();
}

const CxxApiChange& change_for(const std::string& api) {
  const auto& changes = cxx_api_changes();
  return *std::find_if(changes.begin(), changes.end(), [&](const CxxApiChange& c) { return api == c.api; });
}

void explain_removed_cxx_api(const StepFailure&, const Evidence& e, Diagnosis& d) {
  const auto apis = lines_of(e.what);
  const auto places = lines_of(e.how);
  const CxxApiChange& first = change_for(apis.front());
  d.kind = "torch_api_removed";
  d.summary = fmt::format("{} uses {}, which torch {} removed from its C++ API{}", places.front(), first.api,
                          first.breaks_in,
                          first.deprecated_in ? fmt::format(" (deprecated already in torch {})", first.deprecated_in)
                                              : std::string());
  std::vector<std::string> also, fixes;
  std::string oldest = first.breaks_in;
  for (std::size_t i = 0; i < apis.size() && i < places.size(); ++i) {
    const CxxApiChange& change = change_for(apis[i]);
    if (i > 0) also.push_back(fmt::format("{} at {} (removed in torch {})", change.api, places[i], change.breaks_in));
    fixes.push_back(fmt::format("at {}: {}", places[i], change.replacement));
    if (version_less(change.breaks_in, oldest)) oldest = change.breaks_in;
  }
  if (!also.empty()) d.summary += fmt::format("; and {}", fmt::join(also, ", "));
  if (!e.rest.empty()) {
    // A bound below the oldest break would still meet these errors: no torch is known to build it.
    const auto rest = lines_of(e.rest);
    constexpr std::size_t kShown = 3;
    std::vector<std::string> shown(rest.begin(), rest.begin() + std::min(rest.size(), kShown));
    const std::string listed = fmt::format("{}{}", fmt::join(shown, "; "),
                                           rest.size() > kShown ? fmt::format(" (and {} more)", rest.size() - kShown)
                                                                : std::string());
    d.summary += "; and errors no removed torch API explains: " + listed;
    d.fix = fmt::format("{}; and fix the errors no removed torch API explains ({}): no torch release is known to "
                        "build this code as it is, so no torch bound is the fix",
                        fmt::join(fixes, "; "), listed);
    return;
  }
  d.fix = fmt::format("{}; or declare `torch<{}` and expect this cell to fail. Confirm the first torch where the cell "
                      "breaks with `opmatrix bisect --cells '<project>-*' --check build`",
                      fmt::join(fixes, "; "), oldest);
}

}  // namespace

const std::vector<StepRule>& torch_cxx_api_rules() {
  static const std::vector<StepRule> rules = {own_rule(removed_cxx_api, explain_removed_cxx_api)};
  return rules;
}

}  // namespace opmatrix::step_rules
