// Lua in rules: schema keys, rendering, lint, the sandbox, threads (rules/LUA_API.md).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "diagnose/warning_codes.h"
#include "lua_test_rules.h"
#include "rules/lua_runtime.h"
#include "rules/rule.h"
#include "triage/tools.h"
#include "triage/triage.h"

namespace triage {
namespace {

using lua_test::kBroadcast;
using lua_test::kGoodRule;
using lua_test::kMatmul;
using lua_test::MatmulRule;

std::string Problems(const LoadResult& r) {
  std::string out;
  for (const Problem& p : r.problems) out += p.ToString() + "\n";
  return out;
}

const Diagnosis* Find(const Report& r, const std::string& rule) {
  for (const Diagnosis& d : r.diagnoses) {
    if (d.rule == rule) return &d;
  }
  return nullptr;
}

TEST(LuaRules, ValuesWhenAndScoreShapeTheDiagnosis) {
  const std::string yaml = R"lua(id: split
category: shape.matmul_mismatch
title: matmul
match:
  message: 'mat1 and mat2 shapes cannot be multiplied \((?P<rows>\d+)x(?P<got>\d+) and (?P<want>\d+)x(?P<out>\d+)\)'
values: lua:split
score: lua:score
explain: '{got} = {want} x {side} x {side}'
hypotheses:
  - id: channels-only
    when: lua:divisible
    text: 'built for the {want} channels only'
    test: t
    fix: f
  - id: never
    when: 'lua: captures.got == "1"'
    text: 'never shown'
    test: t
    fix: f
verify: ok
examples:
  - match: 'RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)'
)lua";
  const std::string lua = R"lua(
function split(ctx)
  local got, want = triage.number(ctx.captures.got), triage.number(ctx.captures.want)
  local side = triage.isqrt(got // want)
  return { side = side }
end
function divisible(ctx)
  return ctx.captures.got .. " = " .. ctx.captures.want .. " x " .. ctx.values.side .. "^2"
end
function score(ctx) return { confidence = 0.97, note = "(Lua checked the arithmetic)" } end
)lua";
  LoadResult r = LoadRulesFromStrings({{"shape/split.yaml", yaml}, {"shape/split.lua", lua}});
  ASSERT_TRUE(r.ok()) << Problems(r);
  Report rep = Engine(r.rules).DiagnoseText(kMatmul);
  const Diagnosis* d = Find(rep, "split");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->explanation, "57600 = 64 x 30 x 30 (Lua checked the arithmetic)");
  EXPECT_DOUBLE_EQ(d->confidence, 0.97);
  ASSERT_EQ(d->hypotheses.size(), 1u);
  EXPECT_EQ(d->hypotheses[0].id, "channels-only");
  EXPECT_EQ(d->hypotheses[0].evidence, "57600 = 64 x 30^2");
  EXPECT_EQ(d->captures.at("side"), "30");
  EXPECT_TRUE(rep.warnings.empty()) << rep.warnings[0].ToString();
}

// The note a rule's `score: lua:found` function added to its explanation, run on kMatmul.
std::string NoteOfFound(const std::string& lua) {
  LoadResult r = LoadRulesFromStrings({{"r.yaml", MatmulRule("r", "score: lua:found\n")}, {"r.lua", lua}});
  if (!r.ok()) return "load failed: " + Problems(r);
  const Report rep = Engine(r.rules).DiagnoseText(kMatmul);
  const Diagnosis* d = Find(rep, "r");
  return d == nullptr ? "no diagnosis" : d->explanation;
}

// triage.message_literal: the first of a list of plain literals found in an incident's message
// (incidents in order, then the list in order; no pattern characters), nil when none is.
TEST(LuaRules, MessageLiteralFindsTheFirstListedTextInTheIncidents) {
  const std::string lua = R"lua(
function found(ctx)
  local f = triage.message_literal(ctx.incidents, { "no such text", "(4x", "mat1 and mat2", "shapes" })
  if f == "(4x" and triage.message_literal(ctx.incidents, { "(4x.", "%d" }) == nil
     and triage.message_literal(nil, { "x" }) == nil then
    return { confidence = 0.5, note = "[" .. f .. "]" }
  end
  return false
end
)lua";
  const std::string note = NoteOfFound(lua);
  EXPECT_NE(note.find("[(4x]"), std::string::npos) << note;
}

// triage.rising_share: the share of steps at which the finite values rose strictly (nan and inf left
// out, equal values not a rise), with the count of finite values; 0 and the count below two values.
TEST(LuaRules, RisingShareCountsStrictRisesOfTheFiniteValues) {
  const std::string lua = R"lua(
function found(ctx)
  local a, na = triage.rising_share({ 1, 2, 2, 3, 0/0, 5, 4 })
  local b, nb = triage.rising_share({ 7, 1/0 })
  local c, nc = triage.rising_share(nil)
  if a == 0.6 and na == 6 and b == 0 and nb == 1 and c == 0 and nc == 0 then
    return { confidence = 0.5, note = "[share ok]" }
  end
  return { confidence = 0.5, note = "[" .. a .. " " .. na .. " " .. b .. " " .. nb .. "]" }
end
)lua";
  const std::string note = NoteOfFound(lua);
  EXPECT_NE(note.find("[share ok]"), std::string::npos) << note;
}

// triage.last_accuracy: the higher of the evaluation's and the training's last finite accuracy, as a fraction
// (a series with a value above 1 is a percentage, judged per series), with the name of its series; nil for no
// finite value or no table.
TEST(LuaRules, LastAccuracyReadsTheHigherSeriesAsAFraction) {
  const std::string lua = R"lua(
function found(ctx)
  local a, an = triage.last_accuracy({ val_acc = { values = { 12.5, 71.25, 0 / 0 } }, acc = { values = { 0.4, 0.6 } } })
  local b, bn = triage.last_accuracy({ val_acc = { values = { 0.3 } }, acc = { values = { 0.2, 0.9 } } })
  local c = triage.last_accuracy({ acc = { values = { 1 / 0 } } })
  local d = triage.last_accuracy(nil)
  local e, en = triage.last_accuracy({ val_acc = { values = { 0.5 } }, acc = { values = { 50 } } })
  if a == 0.7125 and an == "val_acc" and b == 0.9 and bn == "acc" and c == nil and d == nil
     and e == 0.5 and en == "val_acc" then
    return { confidence = 0.5, note = "[accuracy ok]" }
  end
  return { confidence = 0.5, note = "[" .. tostring(a) .. " " .. tostring(an) .. " " .. tostring(b) .. " " ..
                                    tostring(bn) .. " " .. tostring(c) .. " " .. tostring(e) .. "]" }
end
)lua";
  const std::string note = NoteOfFound(lua);
  EXPECT_NE(note.find("[accuracy ok]"), std::string::npos) << note;
}

// triage.embedding_table: the innermost frame calling a known table decides (a token table in an outer frame
// does not), with its kind, name, frame and evidence text; nil for no such call and for bad arguments.
// triage.embedding_evidence: that text for the kind asked, false for another kind, true for "none" only
// when no table is called.
TEST(LuaRules, EmbeddingTableNamesTheInnermostTableCalled) {
  const std::string note = NoteOfFound(R"lua(
function found(ctx)
  local frames = {
    { file = "/a/modeling_bert.py", line = 10, source = "inputs_embeds = self.word_embeddings(input_ids)" },
    { file = "C:\\env\\modeling_bert.py", line = 20, source = "position_embeddings = self.position_embeddings (position_ids)" },
    { file = "/t/module.py", line = 30, source = "return forward_call(*args, **kwargs)" },
  }
  local k, name, f, where = triage.embedding_table(frames)
  local k2 = triage.embedding_table({ frames[1], frames[3] })
  local none = { frames[3], { source = "x = self.user_table(ids)" } }
  if k == "positions" and name == "position_embeddings" and f.line == 20
     and where == "self.position_embeddings(...) at modeling_bert.py:20"
     and k2 == "tokens" and triage.embedding_table(none) == nil and triage.embedding_table(nil) == nil
     and triage.embedding_evidence(frames, "positions") == "the failing call is " .. where
     and triage.embedding_evidence(frames, "tokens") == false
     and triage.embedding_evidence(frames, "none") == false
     and triage.embedding_evidence(none, "none") == true and triage.embedding_evidence(none, "positions") == false then
    return { confidence = 0.5, note = "[tables ok]" }
  end
  return { confidence = 0.5, note = "[" .. tostring(k) .. " " .. tostring(where) .. " " .. tostring(k2) .. "]" }
end
)lua");
  EXPECT_NE(note.find("[tables ok]"), std::string::npos) << note;
}

// triage.data_loading (Note: [Data loading in frames]): the worker's re-raise line beside the incident, a frame
// of torch.utils.data (a Windows path too) or the user's __getitem__ say data loading; a library's own
// __getitem__ (h5py) and the user's other frames do not; no frame of the user's is "unknown", as is a bad argument.
TEST(LuaRules, DataLoadingReadsWhereTheErrorWasRaised) {
  const std::string note = NoteOfFound(R"lua(
function found(ctx)
  local worker = { file = "C:\\env\\Lib\\site-packages\\torch\\utils\\data\\_utils\\worker.py", func = "_worker_loop" }
  local pil = { file = "/usr/lib/python3/dist-packages/PIL/Image.py", func = "open" }
  local h5 = { file = "/usr/lib/python3/dist-packages/h5py/_hl/dataset.py", func = "__getitem__" }
  local script = { file = "/home/u/infer.py", func = "main", user = true }
  local getitem = { file = "/home/u/io_utils.py", func = "__getitem__", user = true }
  local a = triage.data_loading({ frames = { worker, pil } })
  local b = triage.data_loading({ frames = { script, getitem, pil } })
  local c = triage.data_loading({ frames = { script, h5 } })
  local d = triage.data_loading({ frames = { script }, context = { "OSError: Caught OSError in DataLoader worker process 3." } })
  local e = triage.data_loading({ frames = { pil } })
  local f = triage.data_loading({ frames = {} })
  local g = triage.data_loading(nil)
  if a == "frames" and b == "frames" and c == false and d == "worker" and e == "unknown" and f == "unknown"
     and g == "unknown" then
    return { confidence = 0.5, note = "[data ok]" }
  end
  return { confidence = 0.5, note = "[" .. tostring(a) .. " " .. tostring(b) .. " " .. tostring(c) .. " " .. tostring(d)
                                   .. " " .. tostring(e) .. "]" }
end
)lua");
  EXPECT_NE(note.find("[data ok]"), std::string::npos) << note;
}

// triage.class_count_evidence (Note: [Class count in frames]): the innermost frame that flattens the logits to a
// named count of labels or classes decides; a number, or a name that is no class count, is none; false for none
// and for bad arguments.
TEST(LuaRules, ClassCountEvidenceNamesTheCountALossLineFlattensTo) {
  const std::string note = NoteOfFound(R"lua(
function found(ctx)
  local hf = {
    { file = "/a/trainer.py", line = 5, source = "outputs = model(**inputs)" },
    { file = "/a/transformers/models/bert/modeling_bert.py", line = 1564,
      source = "loss = loss_fct(logits.view(-1, self.num_labels), labels.view(-1))" },
    { file = "/t/functional.py", line = 3026, source = "return torch._C._nn.cross_entropy_loss(input, target)" },
  }
  local joint = { { file = "C:\\p\\modeling_jointbert.py", line = 44,
    source = "intent_loss = intent_loss_fct(intent_logits.view(-1, self.num_intent_labels), intent_label_ids.view(-1))" } }
  local reshaped = { { file = "seg.py", line = 9, source = "loss = ce(out.reshape(-1, n_classes), y.reshape(-1))" } }
  local others = { { source = "loss = ce(logits.view(-1, 10), y.view(-1))" }, { source = "x = h.view(-1, self.hidden_size)" } }
  if triage.class_count_evidence(hf) == "the loss flattens the logits to self.num_labels classes at modeling_bert.py:1564"
     and triage.class_count_evidence(joint) == "the loss flattens the logits to self.num_intent_labels classes at modeling_jointbert.py:44"
     and triage.class_count_evidence(reshaped) == "the loss flattens the logits to n_classes classes at seg.py:9"
     and triage.class_count_evidence(others) == false and triage.class_count_evidence(nil) == false then
    return { confidence = 0.5, note = "[counts ok]" }
  end
  return { confidence = 0.5, note = "[" .. tostring(triage.class_count_evidence(hf)) .. "|" ..
           tostring(triage.class_count_evidence(joint)) .. "]" }
end
)lua");
  EXPECT_NE(note.find("[counts ok]"), std::string::npos) << note;
}

// triage.printed_rows: rows of a printed tensor that hold only the listed texts ("..." always counts),
// and whether another row holds anything else; bad arguments give 0, false. triage.lines_with: the
// lines holding any of the literals, in order (plain text: "(4x" is no pattern).
TEST(LuaRules, PrintedRowsAndLinesWithReadMessagesLineByLine) {
  const std::string lua = R"lua(
function found(ctx)
  local n, other = triage.printed_rows("tensor([[nan, nan,  ..., nan],\n        [nan, nan,  ..., nan]])", { "nan" })
  local m, other2 = triage.printed_rows("[[0., 0.],\n [0., 0.7]]", { "0." })
  local z, other3 = triage.printed_rows(nil, { "0." })
  local w = triage.lines_with("a skip\nkept\nb (4x\nskip again", { "skip", "(4x" })
  if n == 2 and not other and m == 1 and other2 and z == 0 and not other3
     and #w == 3 and w[1] == "a skip" and w[2] == "b (4x" and w[3] == "skip again"
     and #triage.lines_with(nil, { "x" }) == 0 then
    return { confidence = 0.5, note = "[rows ok]" }
  end
  return { confidence = 0.5, note = "[" .. n .. tostring(other) .. m .. tostring(other2) .. "]" }
end
)lua";
  const std::string note = NoteOfFound(lua);
  EXPECT_NE(note.find("[rows ok]"), std::string::npos) << note;
}

TEST(LuaRules, ScoreFalseVetoesTheCandidate) {
  LoadResult r = LoadRulesFromStrings({{"r.yaml", MatmulRule("r", "score: 'lua: captures.rows ~= \"4\"'\n")}});
  ASSERT_TRUE(r.ok()) << Problems(r);
  EXPECT_EQ(Find(Engine(r.rules).DiagnoseText(kMatmul), "r"), nullptr);
  Report other = Engine(r.rules).DiagnoseText(
      "RuntimeError: mat1 and mat2 shapes cannot be multiplied (16x1568 and 1152x10)");
  EXPECT_NE(Find(other, "r"), nullptr);
}

// A signal rule's Lua runs as a message rule's does (rules/README.md, "Lua in the ranking"): `values`
// names, `score` (a confidence, a veto) and `when`. The rule reads the loss the log printed; each
// call sees what the series holds.
TEST(LuaRules, SignalRulesRunTheirLua) {
  const std::string yaml = R"lua(id: nan-seen
category: numerics.nan_loss
title: nan
confidence: 0.8
signal:
  detector: nonfinite
  series: loss
values: lua:counts
score: lua:score
explain: 'loss {value} at {onset} after {finite}'
hypotheses:
  - id: told
    when: lua:told
    text: t
    test: t
    fix: f
  - id: never
    when: 'lua: ctx == nil'
    text: t
    test: t
    fix: f
verify: v
examples:
  - match: "step 1 loss=2.31\nstep 2 loss=nan\nstep 3 loss=nan\nstep 4 loss=nan\n"
)lua";
  const std::string lua = R"lua(
function counts(ctx) return { finite = ctx.metrics.loss.count - ctx.metrics.loss.nonfinite } end
function score(ctx)
  if ctx.metrics.loss.count > 5 then return false end
  return { confidence = 0.42, note = "(scored in Lua)" }
end
function told(ctx) return "the " .. ctx.incident.kind .. " says " .. ctx.captures.nonfinite end
)lua";
  LoadResult r = LoadRulesFromStrings({{"signals/nan-seen.yaml", yaml}, {"signals/nan-seen.lua", lua}});
  ASSERT_TRUE(r.ok()) << Problems(r);
  Engine engine(r.rules);
  Report rep = engine.DiagnoseText("step 1 loss=2.31\nstep 2 loss=nan\nstep 3 loss=nan\nstep 4 loss=nan\n");
  const Diagnosis* d = Find(rep, "nan-seen");
  ASSERT_NE(d, nullptr);
  EXPECT_DOUBLE_EQ(d->confidence, 0.42);
  EXPECT_NE(d->explanation.find("after 1 (scored in Lua)"), std::string::npos) << d->explanation;
  ASSERT_EQ(d->hypotheses.size(), 1u);
  EXPECT_EQ(d->hypotheses[0].id, "told");
  EXPECT_EQ(d->hypotheses[0].evidence, "the signal says 3");
  EXPECT_TRUE(rep.warnings.empty()) << rep.warnings[0].ToString();
  // Six printed losses: the score vetoes the signature.
  Report vetoed = engine.DiagnoseText(
      "step 1 loss=2.31\nstep 2 loss=2.2\nstep 3 loss=2.1\nstep 4 loss=nan\nstep 5 loss=nan\nstep 6 loss=nan\n");
  EXPECT_EQ(Find(vetoed, "nan-seen"), nullptr);
}

TEST(LuaRules, CrossIncidentContextSeesEveryIncident) {
  // Two real incidents in one log; the rule fires only when an earlier incident exists.
  LoadResult r = LoadRulesFromStrings({{"r.yaml", MatmulRule("r", "score: 'lua: incident.index > 1 and #incidents == 2'\n")}});
  ASSERT_TRUE(r.ok()) << Problems(r);
  EXPECT_EQ(Find(Engine(r.rules).DiagnoseText(kMatmul), "r"), nullptr);
  std::string two = std::string(kBroadcast) + "\n" + kMatmul + "\n";
  EXPECT_NE(Find(Engine(r.rules).DiagnoseText(two), "r"), nullptr);
}

TEST(LuaRules, OneInputsCallsShareOneIncidentsTable) {
  // rules/LUA_API.md "Reading every incident": a rule keeps what it read of ctx.incidents, keyed on the
  // table, and each call's score vetoes unless the incidents were read once for the whole input. All
  // three incidents are kept only when every call of the input got the same table.
  const std::string lua =
      "local seen, reads = nil, 0\n"
      "function s(ctx)\n"
      "  if ctx.incidents ~= seen then seen = ctx.incidents; reads = reads + 1 end\n"
      "  if reads == 1 then return nil end\n"
      "  return false\n"
      "end\n";
  LoadResult r = LoadRulesFromStrings({{"r.yaml", MatmulRule("r", "score: lua:s\n")}, {"r.lua", lua}});
  ASSERT_TRUE(r.ok()) << Problems(r);
  std::string log;
  for (int i = 1; i <= 3; ++i) {
    log += "step " + std::to_string(i) + "\nRuntimeError: mat1 and mat2 shapes cannot be multiplied (4x" +
           std::to_string(i) + " and 64x128)\n\n";
  }
  Engine engine(r.rules);
  for (int input = 0; input < 2; ++input) {  // the next input gets a table, and a file, of its own
    Report rep = engine.DiagnoseText(log);
    ASSERT_EQ(rep.incidents.size(), 3u);
    const Diagnosis* d = Find(rep, "r");
    ASSERT_NE(d, nullptr) << input;
    EXPECT_EQ(d->occurrences, 3) << input;
  }
}

TEST(LuaRules, PerInputRunsOncePerInput) {
  // triage.per_input (Note: [Per-input memo]): `count` runs once for all the calls of one input, its
  // results (two of them, the second nil) come back to every call, and the next input, with another
  // number of incidents, gets its own answer. A second run on one input makes `s` raise (lua-error).
  const std::string lua =
      "local runs = 0\n"
      "local function count(incidents) runs = runs + 1; return #incidents, nil end\n"
      "function v(ctx)\n"
      "  local n, none = triage.per_input(ctx, count)\n"
      "  assert(none == nil and select('#', triage.per_input(ctx, count)) == 2)\n"
      "  return { n = n }\n"
      "end\n"
      "function s(ctx)\n"
      "  triage.per_input(ctx, count)\n"
      "  if runs ~= 1 then error('count ran ' .. runs .. ' times') end\n"
      "  return nil\n"
      "end\n"
      "function test_hand_made_ctx()\n"
      "  local a, b = { incidents = { {}, {} } }, { incidents = { {} } }\n"
      "  assert(v(a).n == 2 and v(b).n == 1 and v(a).n == 2)\n"
      "  assert(v({}).n == 0 and v({}).n == 0, 'no incidents: fn({}) every call')\n"
      "  assert(not pcall(triage.per_input, nil, count) and not pcall(triage.per_input, a, 3))\n"
      "end\n";
  LoadResult r = LoadRulesFromStrings(
      {{"r.yaml", MatmulRule("r", "values: lua:v\nscore: lua:s\n", "n={n}")}, {"r.lua", lua}});
  ASSERT_TRUE(r.ok()) << Problems(r);
  auto log = [](int incidents) {
    std::string text;
    for (int i = 1; i <= incidents; ++i) {
      text += "step " + std::to_string(i) + "\nRuntimeError: mat1 and mat2 shapes cannot be multiplied (4x" +
              std::to_string(i) + " and 64x128)\n\n";
    }
    return text;
  };
  Engine engine(r.rules);
  for (int incidents : {3, 2, 3}) {
    Report rep = engine.DiagnoseText(log(incidents));
    EXPECT_TRUE(rep.warnings.empty()) << rep.warnings[0].message;
    const Diagnosis* d = Find(rep, "r");
    ASSERT_NE(d, nullptr) << incidents;
    EXPECT_EQ(d->occurrences, incidents);
    EXPECT_EQ(d->explanation, "n=" + std::to_string(incidents));
  }
  RuleTestReport t = RunRuleExamples(*r.rules);
  EXPECT_EQ(t.failed, 0) << t.ToText();
  EXPECT_EQ(std::count_if(t.results.begin(), t.results.end(),
                          [](const ExampleResult& e) { return e.kind == ExampleKind::kLuaTest && e.passed; }),
            1) << t.ToText();
}

// Note: [Lazy ctx]: ctx.incidents is copied into a rule's state only when the rule reads it, as one
// table for all the calls of the input that holds ctx.incident's own table; pairs(ctx) lists it.
TEST(LuaRules, CtxIncidentsAreMadeAtTheirFirstRead) {
  std::vector<Incident> incidents(400);
  for (size_t i = 0; i < incidents.size(); ++i) {
    incidents[i].exception = "RuntimeError";
    incidents[i].message = "incident " + std::to_string(i) + " " + std::string(2000, 'x');
  }
  const std::string lua =
      "function own(ctx) return { n = #ctx.incident.message } end\n"
      "local first\n"
      "function all(ctx)\n"
      "  local same = ctx.incidents[ctx.incident.index] == ctx.incident and (first == nil or first == ctx.incidents)\n"
      "  first = first or ctx.incidents\n"
      "  return { n = #ctx.incidents, same = same }\n"
      "end\n"
      "function listed(ctx)\n"
      "  local keys = {}\n"
      "  for k in pairs(ctx) do keys[#keys + 1] = k end\n"
      "  table.sort(keys)\n"
      "  return { keys = table.concat(keys, ' ') }\n"
      "end\n";
  auto state = LuaState::Create(LuaLimits());
  ASSERT_TRUE(state);
  LuaError error;
  ASSERT_TRUE(state->LoadRule(0, {{"r.lua", lua}}, &error)) << error.message;
  std::map<std::string, std::string> captures;
  LuaCallInput input;
  input.incidents = &incidents;
  input.captures = &captures;
  LuaValue out;
  const std::size_t loaded = state->memory_used();
  for (int i : {3, 7, 11}) {
    input.incident = i;
    ASSERT_TRUE(state->Call(0, "own", &input, &out, &error)) << error.message;
    EXPECT_EQ(out.fields["n"].number, static_cast<double>(incidents[static_cast<size_t>(i)].message.size()));
  }
  // Three incidents' tables, not four hundred (~800 KB of messages).
  EXPECT_LT(state->memory_used(), loaded + (64u << 10)) << "ctx.incidents was copied without being read";
  for (int i : {3, 250}) {
    input.incident = i;
    ASSERT_TRUE(state->Call(0, "all", &input, &out, &error)) << error.message;
    EXPECT_EQ(out.fields["n"].number, 400);
    EXPECT_TRUE(out.fields["same"].boolean) << i;
  }
  EXPECT_GT(state->memory_used(), loaded + (700u << 10));
  ASSERT_TRUE(state->Call(0, "listed", &input, &out, &error)) << error.message;
  EXPECT_EQ(out.fields["keys"].string, "captures confidence facts incident incidents metrics probes rule values");
}

TEST(LuaRules, MetricsCarryTheExactCountsOfEachSeries) {
  // The rule fires only when ctx.metrics.loss holds the printed loss's counts: 4 values, 2 of them NaN,
  // and one return to a finite value after a NaN (the placeholder NaN before the first value is not one).
  LoadResult r = LoadRulesFromStrings({{"r.yaml", MatmulRule("r",
      "score: 'lua: metrics.loss ~= nil and metrics.loss.count == 4 and metrics.loss.nonfinite == 2 and "
      "metrics.loss.recoveries == 1'\n")}});
  ASSERT_TRUE(r.ok()) << Problems(r);
  EXPECT_EQ(Find(Engine(r.rules).DiagnoseText(kMatmul), "r"), nullptr) << "no loss printed: no loss series";
  std::string log = std::string("loss=0.9\nloss=nan\nloss=0.8\nloss=0.7\n") + kMatmul + "\n";
  EXPECT_EQ(Find(Engine(r.rules).DiagnoseText(log), "r"), nullptr) << "3 finite values and 1 NaN: counts differ";
  log = std::string("loss=nan\nloss=0.9\nloss=nan\nloss=0.8\n") + kMatmul + "\n";
  EXPECT_NE(Find(Engine(r.rules).DiagnoseText(log), "r"), nullptr);
}

TEST(LuaRules, WholeLuaRuleLoadsAndRuns) {
  const std::string lua = R"lua(
rule = {
  id = "all-lua",
  category = "shape.matmul_mismatch",
  title = "written in Lua",
  match = { message = [[mat1 and mat2 shapes cannot be multiplied \((?P<rows>\d+)x(?P<got>\d+) and (?P<want>\d+)x(?P<out>\d+)\)]] },
  values = "lua:ratio",
  explain = "ratio {ratio}",
  hypotheses = { { id = "h", text = "t", test = "t", fix = "f" } },
  verify = "ok",
  examples = { { match = "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)",
                 captures = { ratio = 900 } } },
}
function ratio(ctx) return { ratio = triage.number(ctx.captures.got) // triage.number(ctx.captures.want) } end
)lua";
  LoadResult r = LoadRulesFromStrings({{"shape/all-lua.lua", lua}});
  ASSERT_TRUE(r.ok()) << Problems(r);
  const Report rep = Engine(r.rules).DiagnoseText(kMatmul);  // d points into it
  const Diagnosis* d = Find(rep, "all-lua");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->explanation, "ratio 900");
  RuleTestReport t = RunRuleExamples(*r.rules);
  EXPECT_EQ(t.failed, 0) << t.ToText();
}

// A whole-Lua rule's table has no YAML marks: its problems name the file, no line or column (as when
// yaml-cpp built the nodes; Note: [Rule file YAML]).
TEST(LuaRules, WholeLuaRuleProblemsHaveNoPosition) {
  const std::string lua = R"lua(
rule = {
  id = "all-lua", category = "shape.matmul_mismatch", title = "written in Lua",
  match = { message = { "mat1 and mat2 shapes cannot be multiplied" } },
  explain = "e", hypotheses = { { id = "h", text = "t", test = "t", fix = "f" } }, verify = "ok",
  examples = { { match = "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x5 and 6x7)" } },
  surplus = true, confidence = "high",
}
)lua";
  LoadResult r = LoadRulesFromStrings({{"shape/all-lua.lua", lua}});
  int seen = 0;
  for (const Problem& p : r.problems) {
    if (p.code != "unknown-key" && p.code != "bad-value") continue;
    ++seen;
    EXPECT_EQ(p.line, 0) << p.code << " " << p.message;
    EXPECT_EQ(p.column, 0) << p.code << " " << p.message;
  }
  EXPECT_EQ(seen, 2) << Problems(r);
}

TEST(LuaRules, LuaUnitTestsRunAndFail) {
  const std::string lua = R"lua(
function half(ctx) return { half = triage.number(ctx.captures.got) / 2 } end
function test_half_passes() assert(half({ captures = { got = "10" } }).half == 5) end
function test_half_fails() assert(half({ captures = { got = "10" } }).half == 6, "10/2 is not 6") end
)lua";
  LoadResult r = LoadRulesFromStrings({{"r.yaml", MatmulRule("r", "values: lua:half\n")}, {"r.lua", lua}});
  ASSERT_TRUE(r.ok()) << Problems(r);
  RuleTestReport t = RunRuleExamples(*r.rules);
  EXPECT_EQ(t.failed, 1) << t.ToText();
  bool saw = false;
  for (const ExampleResult& e : t.results) {
    if (e.kind == ExampleKind::kLuaTest && !e.passed) {
      saw = true;
      EXPECT_EQ(e.file, "r.lua");
      EXPECT_EQ(e.line, 4);
      EXPECT_NE(e.detail.find("10/2 is not 6"), std::string::npos) << e.detail;
    }
  }
  EXPECT_TRUE(saw) << t.ToText();
}

TEST(LuaRules, ExampleHypothesesAreChecked) {
  LoadResult r = LoadRulesFromStrings({{"r.yaml", MatmulRule("r", R"lua(    hypotheses: [only, missing]
)lua")}});
  ASSERT_TRUE(r.ok()) << Problems(r);
  RuleTestReport t = RunRuleExamples(*r.rules);
  ASSERT_EQ(t.failed, 1) << t.ToText();
  EXPECT_NE(t.ToText().find("expected [only, missing], got [only]"), std::string::npos) << t.ToText();
}

// Lint: each broken rule gives the code and position listed.
TEST(LuaLint, ReportsErrorsWithPositions) {
  struct Case {
    const char* name;
    std::string yaml_extra;
    std::string lua;
    const char* code;
    const char* file;
    int line;
  };
  const std::vector<Case> cases = {
      {"syntax", "values: lua:v\n", "function v(ctx)\n  return {\nend\n", "lua-syntax", "r.lua", 3},
      {"unknown function", "values: lua:nope\n", "function v(ctx) return {} end\n", "unknown-lua-function", "r.yaml", 16},
      {"no lua file", "values: lua:v\n", "", "unknown-lua-function", "r.yaml", 16},
      {"top-level error", "values: lua:v\n", "function v() end\nlocal x = nil + 1\n", "lua-error", "r.lua", 2},
      {"top-level loop", "values: lua:v\n", "function v() end\nwhile true do end\n", "lua-budget", "r.lua", 2},
      {"top-level os", "values: lua:v\n", "function v() end\nos.exit(1)\n", "lua-error", "r.lua", 2},
      {"bad inline", "score: 'lua: captures..'\n", "", "lua-syntax", "r.yaml", 16},
      {"not lua", "values: split\n", "", "bad-value", "r.yaml", 16},
  };
  for (const Case& c : cases) {
    std::vector<std::pair<std::string, std::string>> files = {{"r.yaml", MatmulRule("r", c.yaml_extra)}};
    if (!c.lua.empty()) files.push_back({"r.lua", c.lua});
    LoadResult r = LoadRulesFromStrings(files);
    EXPECT_FALSE(r.ok()) << c.name;
    EXPECT_TRUE(r.rules->rules.empty()) << c.name;
    bool found = false;
    for (const Problem& p : r.problems) {
      if (p.code == c.code) {
        found = true;
        EXPECT_EQ(p.file, c.file) << c.name << ": " << p.ToString();
        EXPECT_EQ(p.line, c.line) << c.name << ": " << p.ToString();
        EXPECT_EQ(p.rule_id, "r") << c.name << ": " << p.ToString();
      }
    }
    EXPECT_TRUE(found) << c.name << " wanted " << c.code << ", got:\n" << Problems(r);
  }
}

// Note: [Shared check state]: the Lua files of one load are checked in one lua_State. Every broken
// file is still reported with its position, whichever files come before or after it, and what one
// rule's top level does (edits of its library copies, memory it keeps, a runaway loop, running out
// of memory) changes nothing for the rules checked after it.
TEST(LuaLint, EachRulesCheckIsItsOwn) {
  const std::string keep_10mb = "big = {}\nfor i = 1, 1000 do big[i] = string.rep('x', 10000) .. i end\n";
  std::vector<std::pair<std::string, std::string>> files = {
      {"a.yaml", MatmulRule("a", "values: lua:v\n")},
      {"a.lua", "function v() return {} end\nstring.format = nil; triage.number = nil; table.concat = nil\n"
                "getmetatable('').x = 1\n"},  // the last line fails: the string metatable is protected
      {"b.yaml", MatmulRule("b", "values: lua:v\n")},
      {"b.lua", "local s = string.format('%d', 1) .. triage.number('2') .. table.concat({'x'})\n"
                "function v() return { s = s } end\n"},
      {"c.yaml", MatmulRule("c", "values: lua:v\n")},
      {"c.lua", "function v(ctx)\n  return {\nend\n"},
      {"d.yaml", MatmulRule("d", "values: lua:v\n")},
      {"d.lua", "function v() end\nwhile true do end\n"},
      {"e.yaml", MatmulRule("e", "values: lua:v\n")},
      {"e.lua", "function v() end\nlocal t = {} for i = 1, 1e9 do t[i] = string.rep('x', 1000) .. i end\n"},
      {"f.yaml", MatmulRule("f", "values: lua:v\n")},
      {"f.lua", "function v() return { n = tostring(#big) } end\n" + keep_10mb},
      {"g.yaml", MatmulRule("g", "values: lua:v\n")},
      {"g.lua", "function v() return { n = tostring(#big) } end\n" + keep_10mb},
      {"h.yaml", MatmulRule("h", "values: lua:v\n")},
      {"h.lua", "function v() end\nlocal x = nil + 1\n"},
      {"i.yaml", MatmulRule("i", "values: lua:v\n")},
      {"i.lua", "function v() return { s = string.format('%d', 7) } end\nassert(string.format and table.concat)\n"},
  };
  LoadResult r = LoadRulesFromStrings(files);
  std::map<std::string, const Problem*> by_rule;
  for (const Problem& p : r.problems) {
    EXPECT_EQ(by_rule.count(p.rule_id), 0u) << Problems(r);
    by_rule[p.rule_id] = &p;
  }
  struct Want {
    const char* rule;
    const char* codes;
    int line;
  };
  for (const Want& w : std::vector<Want>{{"a", "lua-error", 3},
                                         {"c", "lua-syntax", 3},
                                         {"d", "lua-budget", 2},
                                         {"e", "lua-memory|lua-budget", -1},
                                         {"h", "lua-error", 2}}) {
    ASSERT_EQ(by_rule.count(w.rule), 1u) << w.rule << "\n" << Problems(r);
    const Problem& p = *by_rule[w.rule];
    EXPECT_NE(("|" + std::string(w.codes) + "|").find("|" + p.code + "|"), std::string::npos) << p.ToString();
    EXPECT_EQ(p.file, std::string(w.rule) + ".lua") << p.ToString();
    if (w.line >= 0) {
      EXPECT_EQ(p.line, w.line) << p.ToString();
    }
    if (p.code == "lua-memory") {
      EXPECT_NE(p.message.find("limit 16777216 bytes per rule"), std::string::npos) << p.ToString();
    }
  }
  EXPECT_EQ(by_rule.size(), 5u) << Problems(r);
  std::vector<std::string> loaded;
  for (const Rule& rule : r.rules->rules) loaded.push_back(rule.id);
  EXPECT_EQ(loaded, (std::vector<std::string>{"b", "f", "g", "i"})) << Problems(r);
  // The rules that loaded run, each in a state of its own, with what their files made.
  const Report rep = Engine(r.rules).DiagnoseText(kMatmul);
  for (const char* id : {"b", "i"}) EXPECT_NE(Find(rep, id), nullptr) << id;
  const Diagnosis* g = Find(rep, "g");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->captures.at("n"), "1000");
}

// Note: [Inline-only checks]: a rule whose only Lua is its inline expressions is checked in a plain
// table, in the load's shared state between rules with Lua files (one whose top level fails, one that
// edits its library copies): each of its expressions is found (the rule loads, and at diagnosis its
// values, score and when all act), and a name it gives with no Lua file is reported where it stands.
TEST(LuaLint, InlineOnlyRulesAreCheckedBetweenOthers) {
  const std::string inline_keys =
      "values: 'lua: { side = tostring(triage.isqrt(tonumber(captures.got) // tonumber(captures.want))) }'\n"
      "score: 'lua: captures.rows == \"4\" and 0.93 or false'\n";
  std::string inline_only = MatmulRule("b", inline_keys, "side {side}");
  inline_only.replace(inline_only.find("  - id: only\n"), std::string("  - id: only\n").size(),
                      "  - id: only\n    when: 'lua: values.side == \"30\" and \"side \" .. values.side'\n");
  std::string named = MatmulRule("d", "score: 'lua: 1 > 0'\nvalues: lua:absent\n");
  LoadResult r = LoadRulesFromStrings({
      {"a.yaml", MatmulRule("a", "values: lua:v\n")},
      {"a.lua", "function v() return {} end\nstring.format = nil\nlocal x = nil + 1\n"},
      {"b.yaml", inline_only},
      {"c.yaml", MatmulRule("c", "values: lua:v\n")},
      {"c.lua", "function v() return { s = string.format('%d', 3) } end\ntriage.number = nil\n"},
      {"d.yaml", named},
  });
  std::map<std::string, const Problem*> by_rule;
  for (const Problem& p : r.problems) by_rule[p.rule_id] = &p;
  EXPECT_EQ(r.problems.size(), 2u) << Problems(r);
  ASSERT_EQ(by_rule.count("a"), 1u) << Problems(r);
  EXPECT_EQ(by_rule["a"]->code, "lua-error");
  EXPECT_EQ(by_rule["a"]->file, "a.lua");
  EXPECT_EQ(by_rule["a"]->line, 3);
  ASSERT_EQ(by_rule.count("d"), 1u) << Problems(r);
  EXPECT_EQ(by_rule["d"]->code, "unknown-lua-function");
  EXPECT_EQ(by_rule["d"]->file, "d.yaml");
  EXPECT_EQ(by_rule["d"]->line, 17) << by_rule["d"]->ToString();
  EXPECT_NE(by_rule["d"]->message.find("there is no d.lua next to the rule"), std::string::npos) << by_rule["d"]->ToString();
  std::vector<std::string> loaded;
  for (const Rule& rule : r.rules->rules) loaded.push_back(rule.id);
  EXPECT_EQ(loaded, (std::vector<std::string>{"b", "c"})) << Problems(r);
  const Report rep = Engine(r.rules).DiagnoseText(kMatmul);
  const Diagnosis* b = Find(rep, "b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->captures.at("side"), "30");
  EXPECT_EQ(b->explanation, "side 30");
  EXPECT_DOUBLE_EQ(b->confidence, 0.93);
  ASSERT_EQ(b->hypotheses.size(), 1u);
  EXPECT_EQ(b->hypotheses[0].evidence, "side 30");
  EXPECT_TRUE(rep.warnings.empty()) << rep.warnings[0].ToString();
}

TEST(LuaLint, WarnsAboutUnusedGlobalFunctions) {
  const std::string lua = "function v(ctx) return {} end\n\nfunction forgotten() end\nlocal function helper() end\n";
  LoadResult r = LoadRulesFromStrings({{"r.yaml", MatmulRule("r", "values: lua:v\n")}, {"r.lua", lua}});
  EXPECT_TRUE(r.ok()) << Problems(r);
  ASSERT_EQ(r.problems.size(), 1u) << Problems(r);
  EXPECT_EQ(r.problems[0].code, "unused-lua-function");
  EXPECT_EQ(r.problems[0].file, "r.lua");
  EXPECT_EQ(r.problems[0].line, 3);
  EXPECT_NE(r.problems[0].message.find("'forgotten'"), std::string::npos) << r.problems[0].message;
  LoadResult strict = LoadRulesFromStrings({{"r.yaml", MatmulRule("r", "values: lua:v\n")}, {"r.lua", lua}}, true);
  EXPECT_FALSE(strict.ok());
}

TEST(LuaLint, OrphanLuaFileIsAnError) {
  LoadResult r = LoadRulesFromStrings({{"lonely.lua", "function f() end\n"}});
  ASSERT_EQ(r.problems.size(), 1u) << Problems(r);
  EXPECT_EQ(r.problems[0].code, "orphan-lua");
  EXPECT_EQ(r.problems[0].file, "lonely.lua");
}

// Every escape attempt or runaway, run as a `values` function: the rule is disabled for that call and
// reported with the rule id and the Lua file (and line where Lua knows it); the other rule still
// diagnoses; the process survives.
TEST(LuaSandbox, EscapesAndRunawaysDisableOnlyThatRule) {
  struct Case {
    const char* body;
    const char* code;
    int line;  // 0: Lua gives no line (memory errors)
  };
  const std::vector<Case> cases = {
      {"return { x = io.open('/etc/passwd'):read('a') }", "lua-error", 2},
      {"os.execute('touch /tmp/triage-escaped')", "lua-error", 2},
      {"return require('os')", "lua-error", 2},
      {"return load('return 1')()", "lua-error", 2},
      {"return loadfile('/etc/passwd')", "lua-error", 2},
      {"return dofile('/etc/passwd')", "lua-error", 2},
      {"collectgarbage('stop')", "lua-error", 2},
      {"print('hi')", "lua-error", 2},
      {"return debug.getregistry()", "lua-error", 2},
      {"return package.loaded", "lua-error", 2},
      {"return getmetatable('').__index.rep('x', 3)", "lua-error", 2},
      {"getmetatable('').__index = {}", "lua-error", 2},
      {"return { b = string.dump(function() end) }", "lua-error", 2},
      {"return { b = ('').dump(function() end) }", "lua-error", 2},
      {"return { s = string.rep('x', math.maxinteger) }", "lua-error", 2},  // "resulting string too large"
      {"return { s = string.rep('x', 1 << 28) }", "lua-memory", 0},
      // Near the cap every allocation runs a full collection, so the time limit may come first.
      {"local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 1000) .. i end", "lua-memory|lua-budget", 0},
      {"while true do end", "lua-budget", 2},
      // Which limit stops unbounded recursion first (stack, memory, instructions) is Lua's business.
      {"local function f(n) return 1 + f(n + 1) end return { v = f(1) }", "lua-error|lua-memory|lua-budget", 0},
      {"setmetatable({}, { __gc = function() end })", "lua-error", 2},
      {"leaked = 1", "lua-error", 2},
      {"error(setmetatable({}, { __tostring = function() while true do end end }))", "lua-error", 0},
      {"return function() end", "lua-bad-return", 0},
      {"return { nested = { 1 } }", "lua-bad-return", 0},
      {"return 42", "lua-bad-return", 0},
  };
  for (const Case& c : cases) {
    std::string lua = "function v(ctx)\n  " + std::string(c.body) + "\nend\n";
    LoadResult r = LoadRulesFromStrings(
        {{"bad.yaml", MatmulRule("bad", "values: lua:v\n")}, {"bad.lua", lua}, {"good.yaml", kGoodRule}});
    ASSERT_TRUE(r.ok()) << c.body << "\n" << Problems(r);
    Engine engine(r.rules);
    std::string log = std::string(kBroadcast) + "\n" + kMatmul + "\n";
    Report rep = engine.DiagnoseText(log);
    EXPECT_EQ(Find(rep, "bad"), nullptr) << c.body;
    EXPECT_NE(Find(rep, "good"), nullptr) << c.body;
    ASSERT_EQ(rep.warnings.size(), 1u) << c.body;
    const Problem& w = rep.warnings[0];
    EXPECT_NE(("|" + std::string(c.code) + "|").find("|" + w.code + "|"), std::string::npos)
        << c.body << ": " << w.ToString();
    EXPECT_TRUE(IsWarningCode(w.code)) << "not in diagnose/warning_codes.h: " << w.ToString();
    EXPECT_EQ(w.rule_id, "bad") << w.ToString();
    EXPECT_EQ(w.file, "bad.lua") << w.ToString();
    if (c.line) {
      EXPECT_EQ(w.line, c.line) << c.body << ": " << w.ToString();
    }
    // The state is still usable: the next input diagnoses normally.
    EXPECT_NE(Find(engine.DiagnoseText(kBroadcast), "good"), nullptr) << c.body;
  }
}

TEST(LuaSandbox, NothingEscapedToTheFileSystem) {
  // The os.execute case above must not have run: the file it would create does not exist.
  std::FILE* f = std::fopen("/tmp/triage-escaped", "r");
  EXPECT_EQ(f, nullptr);
  if (f) std::fclose(f);
}

TEST(LuaSandbox, LimitsAreConfigurable) {
  // A loop of ~60k instructions passes the default budget and fails a 10k one.
  const std::string lua = "function v(ctx)\n  local s = 0\n  for i = 1, 20000 do s = s + i end\n  return { s = s }\nend\n";
  std::string dir = ::testing::TempDir() + "/lua_limits";
  std::filesystem::create_directories(dir);
  { std::FILE* f = std::fopen((dir + "/r.yaml").c_str(), "w"); std::fputs(MatmulRule("r", "values: lua:v\n").c_str(), f); std::fclose(f); }
  { std::FILE* f = std::fopen((dir + "/r.lua").c_str(), "w"); std::fputs(lua.c_str(), f); std::fclose(f); }
  LoadOptions o;
  o.bundled = o.system = o.user = o.project = o.env_path = false;
  o.dirs = {dir};
  LoadResult normal = LoadRules(o);
  ASSERT_TRUE(normal.ok()) << Problems(normal);
  const Report normal_rep = Engine(normal.rules).DiagnoseText(kMatmul);  // d points into it
  const Diagnosis* d = Find(normal_rep, "r");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->captures.at("s"), "200010000");
  o.lua.instructions = 10000;
  LoadResult tight = LoadRules(o);
  Report rep = Engine(tight.rules).DiagnoseText(kMatmul);
  EXPECT_EQ(Find(rep, "r"), nullptr);
  ASSERT_EQ(rep.warnings.size(), 1u);
  EXPECT_EQ(rep.warnings[0].code, "lua-budget");
  o.lua = LuaLimits();
  o.lua.memory_bytes = 8 << 10;  // too small for even the standard libraries
  LoadResult tiny = LoadRules(o);
  EXPECT_FALSE(tiny.ok());
  EXPECT_EQ(tiny.problems.at(0).code, "lua-unavailable") << Problems(tiny);
}

// Many threads diagnose different inputs with one rule set; each answer is checked against the
// arithmetic for its own input, so a state shared across threads would show up as wrong values.
TEST(LuaThreads, ManyThreadsGetTheirOwnAnswers) {
  const std::string lua = R"lua(
function v(ctx)
  local got, want = triage.number(ctx.captures.got), triage.number(ctx.captures.want)
  local f = triage.factor(got)
  return { ratio = got // want, factors = table.concat(f, "*") }
end
)lua";
  LoadResult r = LoadRulesFromStrings({{"r.yaml", MatmulRule("r", "values: lua:v\n")}, {"r.lua", lua}});
  ASSERT_TRUE(r.ok()) << Problems(r);
  Engine engine(r.rules);
  std::atomic<int> wrong{0}, done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 150; ++i) {
        int want = 2 + (t * 150 + i) % 97;
        int got = want * (3 + i % 11);
        std::string msg = "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x" + std::to_string(got) +
                          " and " + std::to_string(want) + "x10)";
        Report rep = engine.DiagnoseText(msg);
        const Diagnosis* d = Find(rep, "r");
        // Expected factorisation computed here, independently of the Lua helper.
        std::string factors;
        int n = got;
        for (int p = 2; p * p <= n; ++p) {
          while (n % p == 0) { factors += (factors.empty() ? "" : "*") + std::to_string(p); n /= p; }
        }
        if (n > 1) factors += (factors.empty() ? "" : "*") + std::to_string(n);
        if (!d || d->captures.at("ratio") != std::to_string(got / want) || d->captures.at("factors") != factors) ++wrong;
        ++done;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(done.load(), 8 * 150);
  EXPECT_EQ(wrong.load(), 0);
  // States are pooled: never more than one per thread.
  EXPECT_LE(r.rules->lua->states_created(), 8);
  EXPECT_GE(r.rules->lua->states_created(), 1);
}

// A diagnosis makes a rule's Lua state at the rule's first call, not one for every Lua rule of the
// set (Note: [Lua threads]): a log that hits one Lua rule starts one VM.
TEST(LuaThreads, ARulesStateIsMadeAtItsFirstCall) {
  const std::string lua = "function v(ctx) return { twice = tostring(2 * triage.number(ctx.captures.got)) } end\n";
  LoadResult r = LoadRulesFromStrings({{"a.yaml", MatmulRule("a", "values: lua:v\n", "{twice}")},
                                       {"a.lua", lua},
                                       {"b.yaml", MatmulRule("b", "values: lua:v\n", "{twice}")},
                                       {"b.lua", lua}});
  ASSERT_TRUE(r.ok()) << Problems(r);
  ASSERT_EQ(r.rules->rules.size(), 2u);
  LuaRuntime::Lease lease = r.rules->lua->Acquire();
  ASSERT_TRUE(lease);
  EXPECT_FALSE(lease->HasRule(0));
  EXPECT_FALSE(lease->HasRule(1));
  std::map<std::string, std::string> captures = {{"got", "21"}};
  LuaCallInput input;
  input.captures = &captures;
  LuaValue out;
  LuaError error;
  ASSERT_TRUE(lease->Call(1, "v", &input, &out, &error)) << error.message;
  EXPECT_EQ(out.fields["twice"].string, "42");
  EXPECT_TRUE(lease->HasRule(1));
  EXPECT_FALSE(lease->HasRule(0));
  // A call of a slot with no rule, or with a rule that has no Lua, still fails as it did.
  EXPECT_FALSE(lease->Call(7, "v", &input, &out, &error));
  EXPECT_EQ(error.code, "lua-error");
}

}  // namespace
}  // namespace triage
