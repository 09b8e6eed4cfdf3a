#include "images/image_build_progress.h"

#include <algorithm>
#include <regex>

#include <fmt/format.h>

#include "images/run_cost.h"

namespace opmatrix {

namespace {

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

// What kind of work an instruction is, in the words of the brief a person reads.
std::string activity_of(const std::string& instruction) {
  if (instruction.rfind("FROM", 0) == 0) return "base";
  if (instruction.rfind("COPY", 0) == 0 || instruction.rfind("ADD", 0) == 0) return "files";
  if (instruction.rfind("RUN", 0) != 0) return "settings";
  // A RUN may do both (apt-get install python3-dev, then pip): what it does first. The output
  // then says when it moves on (feed_build_line).
  const auto apt = std::min(instruction.find("apt-get"), instruction.find("dpkg"));
  const auto pip = instruction.find("pip");
  if (apt == std::string::npos && pip == std::string::npos) return "commands";
  return apt < pip ? "packages" : "wheels";
}

std::string shorten(const std::string& s, std::size_t n) {
  std::string one = std::regex_replace(s, std::regex("\\s+"), " ");
  return one.size() <= n ? one : one.substr(0, n) + "…";
}

void start_step(ImageBuildProgress& p, std::string stage, std::string step, std::string instruction) {  // copies: p is reset
  const int lines = p.lines;
  p = ImageBuildProgress();
  p.lines = lines;
  p.stage = stage;
  p.step = step;
  p.instruction = shorten(instruction, 60);
  p.activity = activity_of(instruction);
}

}  // namespace

double parse_size(const std::string& number, const std::string& unit) {
  double n = 0;
  try {
    n = std::stod(number);
  } catch (const std::exception&) {
    return 0;
  }
  // apt and pip print decimal units; pip-wheelhouse-install.sh binary ones.
  if (unit == "B") return n;
  if (unit == "kB" || unit == "KB") return n * 1e3;
  if (unit == "MB") return n * 1e6;
  if (unit == "GB") return n * 1e9;
  if (unit == "KiB") return n * 1024;
  if (unit == "MiB") return n * 1024 * 1024;
  if (unit == "GiB") return n * 1024 * 1024 * 1024;
  return 0;
}

namespace {

// A line that starts a step (podman's STEP, BuildKit's [stage n/m]), says it is cached, commits
// the image, or makes a base image; false for any other. `raw` still has BuildKit's prefix.
bool feed_step_line(ImageBuildProgress& p, const std::string& raw, const std::string& line) {
  static const std::regex podman_step(R"(^(\[\d+/\d+\] )?STEP (\d+/\d+): (.*)$)");
  static const std::regex docker_step(R"(^\[([^\]]*?) ?(\d+/\d+)\] (.*)$)");
  std::smatch m;
  if (std::regex_match(line, m, podman_step)) {
    start_step(p, m[1].str().empty() ? "" : m[1].str().substr(0, m[1].length() - 1), m[2], m[3]);
    return true;
  }
  if (raw.rfind("#", 0) == 0 && std::regex_match(line, m, docker_step)) {
    start_step(p, m[1], m[2], m[3]);
    return true;
  }
  if (line.rfind("--> Using cache", 0) == 0 || line == "CACHED") {
    p.cached = true;
    return true;
  }
  if (contains(line, "COMMIT ") && (line.rfind("COMMIT", 0) == 0 || line.rfind("[", 0) == 0)) {
    start_step(p, p.stage, "", "");
    p.activity = "committing";
    return true;
  }
  if (line.rfind("make-base-image:", 0) == 0 || line.rfind("I: ", 0) == 0) {
    if (p.step.empty()) p.activity = "base";
    p.base_line = shorten(line, 80);
    return true;
  }
  return false;
}

// "1,234.5" -> "1234.5": apt groups thousands.
std::string without_commas(std::string number) {
  number.erase(std::remove(number.begin(), number.end(), ','), number.end());
  return number;
}

// apt's lines: what it will download, each download, and the packages unpacked and set up.
bool feed_apt_line(ImageBuildProgress& p, const std::string& line) {
  static const std::regex apt_need(R"(^Need to get ([\d.,]+) (B|kB|MB|GB)(/[\d.,]+ \w+)? of archives)");
  static const std::regex apt_get(R"(^Get:\d+ .*\[([\d.,]+) (B|kB|MB|GB)\]$)");
  std::smatch m;
  if (std::regex_search(line, m, apt_need)) {
    p.apt_total_bytes = parse_size(without_commas(m[1]), m[2]);
    p.apt_done_bytes = 0;
    p.apt_fetched = false;
    p.activity = "packages";
    return true;
  }
  if (std::regex_match(line, m, apt_get)) {
    if (p.apt_total_bytes > 0) p.apt_done_bytes += parse_size(without_commas(m[1]), m[2]);  // before it: index files
    return true;
  }
  if (line.rfind("Fetched ", 0) == 0 && p.apt_total_bytes > 0) {
    p.apt_fetched = true;
    return true;
  }
  if (line.rfind("Unpacking ", 0) == 0) {
    ++p.apt_unpacked;
    return true;
  }
  if (line.rfind("Setting up ", 0) == 0) {
    ++p.apt_set_up;
    return true;
  }
  return false;
}

// pip's lines: each wheel downloaded or found in the wheelhouse, then the install.
void feed_pip_line(ImageBuildProgress& p, const std::string& line) {
  static const std::regex pip_download(R"(^\s*Downloading (\S+) \(([\d.]+) (B|kB|MB|GB)\))");
  std::smatch m;
  if (std::regex_search(line, m, pip_download)) {
    ++p.wheels;
    p.wheel_bytes += parse_size(m[2], m[3]);
    std::string name = m[1];
    p.last_wheel = name.substr(name.find_last_of('/') + 1);
    p.activity = "wheels";
    return;
  }
  if (contains(line, "File was already downloaded")) {
    ++p.wheels_reused;
    p.activity = "wheels";
    return;
  }
  // pip's "Processing /path/x.whl", not dpkg's "Processing triggers for libc-bin".
  if ((line.rfind("Processing ", 0) == 0 && !contains(line, "triggers for")) ||
      line.rfind("Installing collected packages", 0) == 0)
    p.pip_installing = true;
}

}  // namespace

void feed_build_line(ImageBuildProgress& p, const std::string& raw) {
  ++p.lines;
  static const std::regex docker_prefix(R"(^#\d+ (\d+\.\d+ )?)");  // BuildKit plain: "#7 12.3 Get:1 …"
  std::string line = std::regex_replace(raw, docker_prefix, "");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (feed_step_line(p, raw, line) || feed_apt_line(p, line)) return;
  feed_pip_line(p, line);
}

namespace {

std::string pip_words(const ImageBuildProgress& p) {
  if (p.pip_installing)
    return fmt::format("pip: installing {} wheels ({} downloaded, {} from the wheelhouse)", p.wheels + p.wheels_reused,
                       human_bytes(p.wheel_bytes), p.wheels_reused);
  if (p.wheels == 0 && p.wheels_reused == 0) return "";
  return fmt::format("pip: {} wheels, {} so far{}{}", p.wheels, human_bytes(p.wheel_bytes),
                     p.wheels_reused ? fmt::format(", {} from the wheelhouse", p.wheels_reused) : "",
                     p.last_wheel.empty() ? "" : " (last " + p.last_wheel + ")");
}

std::string apt_words(const ImageBuildProgress& p) {
  if (p.apt_set_up > 0 || p.apt_unpacked > 0)
    return fmt::format("apt: {} packages unpacked, {} set up", p.apt_unpacked, p.apt_set_up);
  if (p.apt_total_bytes <= 0) return "";
  return p.apt_fetched ? fmt::format("apt: {} fetched", human_bytes(p.apt_total_bytes))
                       : fmt::format("apt: {} of {} fetched", human_bytes(p.apt_done_bytes), human_bytes(p.apt_total_bytes));
}

}  // namespace

std::string describe_build_progress(const ImageBuildProgress& p) {
  if (p.lines == 0) return "";
  if (p.activity == "committing") return fmt::format("{}committing the image (writing its layers; a 5 GB layer takes minutes)",
                                                     p.stage.empty() ? "" : p.stage + " ");
  if (p.step.empty()) return p.base_line.empty() ? "starting" : "base image: " + p.base_line;
  const std::string out = fmt::format("{}step {} ({}: {})", p.stage.empty() ? "" : p.stage + " ", p.step, p.activity, p.instruction);
  const std::string doing = p.cached                     ? "cached"
                            : p.activity == "wheels"   ? pip_words(p)
                            : p.activity == "packages" ? apt_words(p)
                                                       : "";
  return doing.empty() ? out : out + ": " + doing;
}

}  // namespace opmatrix
