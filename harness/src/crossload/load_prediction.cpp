#include "crossload/load_prediction.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "util/hash.h"

namespace opmatrix {

namespace {

constexpr std::size_t kListed = 20;

// The C and C++ runtimes every process has: their sonames need no runtime's word.
bool system_soname(const std::string& s) {
  for (const char* prefix : {"libc.so", "libm.so", "libdl.so", "libpthread.so", "librt.so", "libgcc_s.so",
                             "libstdc++.so", "ld-linux", "linux-vdso"})
    if (s.rfind(prefix, 0) == 0) return true;
  return false;
}

std::string demangled(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> plain(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                               std::free);
  return status == 0 && plain ? std::string(plain.get()) : name;
}

const nlohmann::json& field(const nlohmann::json& j, const char* key, const char* what) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_array())
    throw std::runtime_error(fmt::format("{}: no \"{}\" list", what, key));
  return j[key];
}

void note(LoadPrediction& p, const std::string& item) {
  if (p.missing.size() < kListed) p.missing.push_back(item);
  ++p.missing_count;
}

}  // namespace

std::vector<LibraryImports> imports_from_json(const nlohmann::json& report) {
  std::vector<LibraryImports> out;
  for (const auto& lib : field(report, "imports", "abi_surface.py --imports")) {
    LibraryImports li;
    li.library = lib.value("library", "");
    for (const auto& n : field(lib, "needed", "an imports entry")) li.needed.push_back(n.get<std::string>());
    for (const auto& u : field(lib, "undefined", "an imports entry")) {
      if (!u.is_array() || u.size() != 2) throw std::runtime_error("an undefined symbol is not [name, version]");
      li.undefined.emplace_back(u[0].get<std::string>(), u[1].get<std::string>());
    }
    if (lib.contains("runpath"))
      for (const auto& d : field(lib, "runpath", "an imports entry")) li.runpath.push_back(d.get<std::string>());
    out.push_back(std::move(li));
  }
  return out;
}

RuntimeExports exports_from_json(const nlohmann::json& report) {
  if (!report.is_object() || !report.contains("exports"))
    throw std::runtime_error("abi_surface.py --exports: no \"exports\" object");
  const nlohmann::json& e = report["exports"];
  RuntimeExports out;
  for (const auto& s : field(e, "sonames", "exports")) out.sonames.insert(s.get<std::string>());
  for (const auto& v : field(e, "versions", "exports")) out.versions.insert(v.get<std::string>());
  for (const auto& h : field(e, "symbols", "exports")) out.symbols.insert(h.get<std::string>());
  if (e.contains("folders")) {
    if (!e["folders"].is_object()) throw std::runtime_error("exports: \"folders\" is not an object");
    for (const auto& [folder, names] : e["folders"].items())
      for (const auto& n : names) out.folders[folder].insert(n.get<std::string>());
  }
  return out;
}

LoadPrediction predict_load(const LibraryImports& build, const RuntimeExports& runtime) {
  LoadPrediction p;
  const auto in_runpath = [&](const std::string& soname) {
    for (const auto& folder : build.runpath) {
      auto f = runtime.folders.find(folder);
      if (f != runtime.folders.end() && f->second.count(soname)) return true;
    }
    return false;
  };
  for (const auto& soname : build.needed)
    if (!system_soname(soname) && !runtime.sonames.count(soname) && !in_runpath(soname)) note(p, soname);
  for (const auto& [name, version] : build.undefined)
    if (!version.empty() && !runtime.versions.count(version)) note(p, fmt::format("version {} (of {})", version, name));
  if (p.missing_count > 0) {
    p.outcome = "missing_library";
    p.reason = fmt::format("the runtime has no {}", p.missing.front());
    return p;
  }
  for (const auto& [name, version] : build.undefined) {
    if (!version.empty() || name.rfind("Py", 0) == 0 || name.rfind("_Py", 0) == 0) continue;
    if (!runtime.symbols.count(Fnv64().add(name).hex())) note(p, demangled(name));
  }
  if (p.missing_count > 0) {
    p.outcome = "undefined_symbol";
    p.reason = fmt::format("no library loaded here defines {}{}", p.missing.front(),
                           p.missing_count > 1 ? fmt::format(" (and {} more)", p.missing_count - 1) : "");
    return p;
  }
  p.outcome = "loads";
  p.reason = "every soname, symbol version and symbol it needs is there";
  return p;
}

bool prediction_agrees(const std::string& predicted, const std::string& measured) {
  if (measured == "not_registered") return predicted == "loads";
  return predicted == measured;
}

nlohmann::json to_json(const LoadPrediction& p) {
  return {{"outcome", p.outcome}, {"reason", p.reason}, {"missing", p.missing}, {"missing_count", p.missing_count}};
}

}  // namespace opmatrix
