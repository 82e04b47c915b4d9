// The global calibration map: one monotone function applied by the ranker to every final confidence
// (Note: [Calibration map] in rules/README.md).
#ifndef TRIAGE_ENGINE_CALIBRATION_H_
#define TRIAGE_ENGINE_CALIBRATION_H_

#include <string>
#include <utility>
#include <vector>

namespace triage {

// A piecewise-linear map of [0, 1] onto [0, 1] through knots (before, after): the first knot's `before`
// is 0 and the last's is 1, `before` strictly increases and `after` never decreases, so the map covers
// every confidence and never reorders two candidates.
class CalibrationMap {
 public:
  // Parses the text of a calibration.yaml (`knots: [[before, after], ...]`). On failure returns false
  // and sets *error to a sentence naming what is wrong (1-based line in *line when known).
  static bool Parse(const std::string& text, CalibrationMap* out, std::string* error, int* line);

  // Makes the map of `knots` (before, after, before, after, ...: the rule cache's form of knots());
  // false when they do not describe a map Parse accepts.
  static bool FromFlat(const std::vector<double>& knots, CalibrationMap* out);
  // Returns knots() as FromFlat takes them.
  std::vector<double> Flat() const;

  // The calibrated confidence; `p` outside [0, 1] is clamped first.
  double Apply(double p) const;

  const std::vector<std::pair<double, double>>& knots() const { return knots_; }

 private:
  std::vector<std::pair<double, double>> knots_;
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_CALIBRATION_H_
