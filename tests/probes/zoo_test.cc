// Runs every program of corpus/programs/zoo.h under the guard and the monitor, the way an embedder
// would, and checks the diagnosis: the planted bug's category first, with a hypothesis a probe
// confirmed; no diagnosis for clean controls.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <optional>

#include "triage/guard.h"
#include "zoo.h"

namespace triage::probes {
namespace {

constexpr int kSteps = 60;  // > MonitorOptions::weight_every, so a frozen model is seen

probes::ProbeContext ContextFor(zoo::Trainer& t) {
  ProbeContext ctx;
  ctx.model = Model(t.model);
  ctx.inputs = t.x;
  ctx.targets = t.y;
  ctx.forward = t.forward;
  ctx.loss = t.loss;
  ctx.loss_name = t.loss_name;
  ctx.train_step = t.step;
  ctx.optimizer = t.optimizer.get();
  return ctx;
}

// What the embedding looks like in a trainer: guarded steps, the monitor between backward() and
// optimizer.step() (so an alarm is investigated before a bad update lands), a checkup at the end
// for what the monitor cannot see.
struct Outcome {
  Report report;
  std::string path;  // exception | monitor | checkup
};

Outcome Train(zoo::Trainer& t) {
  Guard guard(ContextFor(t));
  Monitor monitor(Model(t.model));
  std::optional<Outcome> alarm;
  bool in_step = false;  // the hook acts for the trainer's own steps only, not for probes' steps
  *t.after_backward = [&](const torch::Tensor& loss) {
    if (!in_step || alarm) return;
    if (monitor.Observe(loss)) {
      in_step = false;
      alarm = Outcome{guard.Investigate(monitor), "monitor: " + monitor.alarm().message};
    }
  };
  Outcome out;
  for (int i = 0; i < kSteps && !alarm; ++i) {
    StepResult r = guard.Step([&] {
      struct Reset {
        bool* flag;
        ~Reset() { *flag = false; }
      } reset{&in_step};
      in_step = true;
      t.step(t.x, t.y);
    });
    if (!r.ok) {
      out = {r.report, "exception: " + r.message.substr(0, r.message.find('\n'))};
      *t.after_backward = nullptr;
      return out;
    }
  }
  if (alarm) {
    out = *alarm;
  } else {
    out = {guard.Checkup(), "checkup"};
  }
  *t.after_backward = nullptr;
  return out;
}

std::string Summary(const Report& report) {
  std::string out;
  for (const Diagnosis& d : report.diagnoses) {
    out += "  " + d.category + " (" + d.rule + ", " + std::to_string(d.confidence) + ")\n";
    for (const Hypothesis& h : d.hypotheses) {
      if (h.status != HypothesisStatus::kUntested) out += "    [" + std::string(HypothesisStatusName(h.status)) + "] " + h.id + " by " + h.probe + ": " + h.evidence + "\n";
    }
  }
  return out.empty() ? "  (no diagnosis)\n" : out;
}

class Zoo : public ::testing::TestWithParam<zoo::Program> {};

TEST_P(Zoo, DiagnosisNamesThePlantedBug) {
  const zoo::Program& program = GetParam();
  zoo::Trainer t = program.build();
  Outcome outcome = Train(t);
  const Report& report = outcome.report;
  std::string got = report.diagnoses.empty() ? "none" : report.diagnoses.front().category;
  std::string confirmed_by;
  if (!report.diagnoses.empty()) {
    for (const Hypothesis& h : report.diagnoses.front().hypotheses) {
      if (h.status == HypothesisStatus::kConfirmed && !h.probe.empty() && h.probe != "monitor") {
        confirmed_by += (confirmed_by.empty() ? "" : ", ") + h.probe + " (" + h.id + ")";
      }
    }
  }
  // The table in the report is built from these lines.
  std::cout << "ZOO | " << program.name << " | " << program.bug << " | " << program.expected << " | " << got << " | "
            << (confirmed_by.empty() ? "-" : confirmed_by) << " | " << outcome.path << "\n";
  EXPECT_EQ(got, program.expected) << "via " << outcome.path << "\n" << Summary(report);
  // A verdict of a probe that measures layer by layer brings its measurements, which the HTML report
  // draws as a bar chart (the Guard's and the Monitor's reports, as an embedder gets them).
  for (const Diagnosis& d : report.diagnoses) {
    for (const Hypothesis& h : d.hypotheses) {
      if (h.status == HypothesisStatus::kUntested ||
          (h.probe != "grad-health" && h.probe != "dead-activations" && h.probe != "weight-update")) {
        continue;
      }
      bool measured = std::any_of(d.layer_series.begin(), d.layer_series.end(),
                                  [&](const LayerSeries& s) { return s.probe == h.probe && !s.layers.empty(); });
      EXPECT_TRUE(measured) << d.rule << ": " << h.probe << " judged " << h.id << " but its per-layer values are missing";
      EXPECT_NE(ToHtml({report}).find("<svg class=\"layers\""), std::string::npos) << d.rule;
    }
  }
  if (std::string(program.expected) != "none") {
    EXPECT_FALSE(confirmed_by.empty()) << "no probe confirmed the top diagnosis\n" << Summary(report);
  }
}

TEST_P(Zoo, ProbesLeaveTheTrainerAsFound) {
  zoo::Trainer t = GetParam().build();
  // Take a few real steps first so gradients and optimizer state exist (unless the step throws).
  for (int i = 0; i < 2; ++i) {
    try {
      t.step(t.x, t.y);
    } catch (const std::exception&) {
      break;
    }
  }
  ProbeContext ctx = ContextFor(t);
  for (const ProbeInfo& info : ProbeList()) {
    std::string before = StateHash(ctx);
    std::vector<ProbeEvidence> ev;
    ASSERT_NO_THROW(ev = RunProbe(info.name, ctx)) << info.name;
    EXPECT_EQ(before, StateHash(ctx)) << info.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Programs, Zoo, ::testing::ValuesIn(zoo::Programs()),
                         [](const ::testing::TestParamInfo<zoo::Program>& info) {
                           std::string name = info.param.name;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace triage::probes
