#include "rules/calibration.h"

#include <algorithm>
#include <cmath>

#include "rules/yaml_tree.h"

namespace triage {

namespace {

bool Fail(std::string* error, int* line, const YAML::Mark& mark, const std::string& why) {
  *error = why;
  *line = mark.line >= 0 ? mark.line + 1 : 0;
  return false;
}

}  // namespace

bool CalibrationMap::Parse(const std::string& text, CalibrationMap* out, std::string* error, int* line) {
  *line = 0;
  YamlTree tree;  // Note: [Rule file YAML] in yaml_tree.cc
  try {
    LoadYamlTree(text, &tree);
  } catch (const YAML::Exception& e) {
    return Fail(error, line, e.mark, e.msg);
  }
  const YamlNode root = tree.Root();
  if (!root.IsMap() || !root["knots"] || !root["knots"].IsSequence()) {
    return Fail(error, line, root.Mark(), "calibration.yaml must be a mapping with a list 'knots: [[before, after], ...]'");
  }
  for (const auto& kv : root) {
    if (kv.first.Scalar() != "knots") return Fail(error, line, kv.first.Mark(), "unknown key '" + kv.first.Scalar() + "'");
  }
  std::vector<std::pair<double, double>> knots;
  for (const YamlNode& k : root["knots"]) {
    if (!k.IsSequence() || k.size() != 2 || !k[0].IsScalar() || !k[1].IsScalar()) {
      return Fail(error, line, k.Mark(), "each knot is a pair [before, after]");
    }
    double before = 0, after = 0;
    if (!DecodeYaml(k[0], &before) || !DecodeYaml(k[1], &after)) {
      return Fail(error, line, k.Mark(), "a knot's values must be numbers");
    }
    if (!std::isfinite(before) || !std::isfinite(after) || before < 0 || before > 1 || after < 0 || after > 1) {
      return Fail(error, line, k.Mark(), "a knot's values must lie in [0, 1]");
    }
    if (!knots.empty() && before <= knots.back().first) {
      return Fail(error, line, k.Mark(), "knots must be in strictly increasing order of 'before'");
    }
    if (!knots.empty() && after < knots.back().second) {
      return Fail(error, line, k.Mark(), "the map must not decrease: a knot's 'after' is below the previous one's");
    }
    knots.emplace_back(before, after);
  }
  if (knots.size() < 2 || knots.front().first != 0 || knots.back().first != 1) {
    return Fail(error, line, root["knots"].Mark(), "the knots must start at before = 0 and end at before = 1");
  }
  out->knots_ = std::move(knots);
  return true;
}

bool CalibrationMap::FromFlat(const std::vector<double>& flat, CalibrationMap* out) {
  if (flat.size() < 4 || flat.size() % 2 != 0) return false;
  std::vector<std::pair<double, double>> knots;
  for (size_t i = 0; i < flat.size(); i += 2) {
    const double before = flat[i], after = flat[i + 1];
    if (!(before >= 0 && before <= 1 && after >= 0 && after <= 1)) return false;  // NaN fails too
    if (!knots.empty() && (before <= knots.back().first || after < knots.back().second)) return false;
    knots.emplace_back(before, after);
  }
  if (knots.front().first != 0 || knots.back().first != 1) return false;
  out->knots_ = std::move(knots);
  return true;
}

std::vector<double> CalibrationMap::Flat() const {
  std::vector<double> out;
  for (const auto& [before, after] : knots_) {
    out.push_back(before);
    out.push_back(after);
  }
  return out;
}

double CalibrationMap::Apply(double p) const {
  if (knots_.size() < 2) return p;
  p = std::clamp(p, 0.0, 1.0);
  auto hi = std::lower_bound(knots_.begin(), knots_.end(), p,
                             [](const std::pair<double, double>& k, double v) { return k.first < v; });
  if (hi == knots_.begin()) return hi->second;
  auto lo = hi - 1;
  double t = (p - lo->first) / (hi->first - lo->first);
  return lo->second + t * (hi->second - lo->second);
}

}  // namespace triage
