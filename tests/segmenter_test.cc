// Segmenter on real PyTorch output (tests/fixtures/*/log.txt, produced by the program.py beside each).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "log/segmenter.h"
#include "source_paths.h"

namespace triage {
namespace {

std::string ReadFixture(const std::string& name) {
  std::ifstream in(std::string(TRIAGE_SOURCE_DIR) + "/tests/fixtures/" + name + "/log.txt", std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<Incident> Segment(const std::string& text, Segmenter::Classifier classify = nullptr) {
  Segmenter seg(SegmenterOptions(), std::move(classify));
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) seg.AddLine(line);
  seg.Finish();
  return seg.incidents();
}

std::string Dump(const std::vector<Incident>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    s += "#" + std::to_string(i) + " [" + v[i].exception + "] " + v[i].message.substr(0, 80) + " lines " +
         std::to_string(v[i].line_start) + "-" + std::to_string(v[i].line_end) + " cause " +
         std::to_string(v[i].caused_by) + " culprit '" + v[i].CulpritText() + "'\n";
  }
  return s;
}

TEST(Segmenter, ChainedDuringHandlingKeepsTheOriginalAsCause) {
  auto v = Segment(ReadFixture("chained_during_handling"));
  ASSERT_EQ(v.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].exception, "IndexError");
  EXPECT_EQ(v[0].message, "Target 10 is out of bounds.");
  EXPECT_EQ(v[0].kind, Incident::Kind::kTraceback);
  EXPECT_EQ(v[0].line_start, 1);
  EXPECT_EQ(v[0].line_end, 8);
  EXPECT_EQ(v[0].CulpritText(), "program.py:9 in <module>: loss = F.cross_entropy(logits, labels)");
  EXPECT_EQ(v[0].frames.size(), 2u);
  EXPECT_FALSE(v[0].frames[1].user);
  EXPECT_EQ(v[1].exception, "KeyError");
  EXPECT_EQ(v[1].message, "'fallback_lr'");
  EXPECT_EQ(v[1].caused_by, 0) << Dump(v);
}

TEST(Segmenter, DirectCauseLinksTheWrapperToTheCause) {
  auto v = Segment(ReadFixture("chained_direct_cause"));
  ASSERT_EQ(v.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].message, "mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)");
  EXPECT_EQ(v[0].CulpritText(), "program.py:12 in train_step: return model(x)");
  EXPECT_EQ(v[1].exception, "StepFailed");
  EXPECT_EQ(v[1].caused_by, 0);
}

TEST(Segmenter, DataLoaderReRaiseMakesTheWorkerErrorTheCause) {
  auto v = Segment(ReadFixture("dataloader_reraise"));
  ASSERT_EQ(v.size(), 2u) << Dump(v);
  // The worker's own traceback is emitted first and the main-process wrapper points at it.
  EXPECT_EQ(v[0].exception, "RuntimeError");
  EXPECT_EQ(v[0].message.rfind("stack expects each tensor to be equal size", 0), 0u) << Dump(v);
  EXPECT_EQ(v[0].culprit, -1) << "every frame of the worker is library code";
  ASSERT_FALSE(v[0].context.empty());
  EXPECT_EQ(v[0].context.back(), "Caught RuntimeError in DataLoader worker process 0.");
  EXPECT_EQ(v[1].message, "Caught RuntimeError in DataLoader worker process 0.");
  EXPECT_EQ(v[1].caused_by, 0);
  EXPECT_EQ(v[1].CulpritText(), "program.py:15 in <module>: for batch in DataLoader(Ragged(), batch_size=4, num_workers=1):");
}

// Note: [Empty nested incident]: a paste of a DataLoader worker's failure that ends on the "Original Traceback"
// header (here corpus/data/worker-getitem-exception/log.txt cut after its line 15) keeps the wrapper's exception
// line; and the wrapper suspended for that empty header is not left behind to become the wrapper of a later
// traceback.
TEST(Segmenter, EmptyNestedTracebackKeepsItsWrapper) {
  std::ifstream in(std::string(TRIAGE_SOURCE_DIR) + "/corpus/data/worker-getitem-exception/log.txt", std::ios::binary);
  std::string cut, line;
  for (int i = 0; i < 15 && std::getline(in, line); ++i) cut += line + "\n";
  auto v = Segment(cut);
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].exception, "KeyError");
  EXPECT_EQ(v[0].message, "Caught KeyError in DataLoader worker process 0.");
  EXPECT_EQ(v[0].caused_by, -1);
  EXPECT_FALSE(v[0].frames.empty());
  // From its tail: the wrapper's exception line and the header alone, then a later traceback of its own.
  v = Segment("KeyError: Caught KeyError in DataLoader worker process 0.\n"
              "Original Traceback (most recent call last):\n"
              "\n"
              "Traceback (most recent call last):\n"
              "  File \"train.py\", line 3, in <module>\n"
              "    raise ValueError(\"x\")\n"
              "ValueError: x\n");
  ASSERT_EQ(v.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].exception, "KeyError");
  EXPECT_EQ(v[1].exception, "ValueError");
  EXPECT_EQ(v[1].caused_by, -1) << Dump(v);
}

// Note: [Pre-1.2 worker re-raise]. Until 1.1 the DataLoader re-raised a worker's failure with the worker's
// whole traceback as the message (real output posted in BinWang-shu/pytorch_hed#2, PyTorch 0.3): the inner
// traceback is the failure, with its frames, and the outer one wraps it.
TEST(Segmenter, PreOneTwoWorkerReRaiseIsANestedTraceback) {
  const std::string worker =
      "RuntimeError: Traceback (most recent call last):\n"
      "  File \"/usr/local/lib/python2.7/dist-packages/torch/utils/data/dataloader.py\", line 40, in _worker_loop\n"
      "    samples = collate_fn([dataset[i] for i in batch_indices])\n"
      "  File \"/usr/local/lib/python2.7/dist-packages/torch/utils/data/dataloader.py\", line 91, in default_collate\n"
      "    return torch.stack(batch, 0, out=out)\n"
      "  File \"/usr/local/lib/python2.7/dist-packages/torch/functional.py\", line 66, in stack\n"
      "    return torch.cat(inputs, dim, out=out)\n"
      "RuntimeError: inconsistent tensor sizes at /pytorch/torch/lib/TH/generic/THTensorMath.c:2709\n";
  auto v = Segment("Traceback (most recent call last):\n"
                   "  File \"train.py\", line 143, in <module>\n"
                   "    for i, image in enumerate(train_loader):\n"
                   "  File \"/usr/local/lib/python2.7/dist-packages/torch/utils/data/dataloader.py\", line 221, in "
                   "_process_next_batch\n"
                   "    raise batch.exc_type(batch.exc_msg)\n" +
                   worker);
  ASSERT_EQ(v.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].exception, "RuntimeError");
  EXPECT_EQ(v[0].message, "inconsistent tensor sizes at /pytorch/torch/lib/TH/generic/THTensorMath.c:2709");
  ASSERT_EQ(v[0].frames.size(), 3u) << Dump(v);
  EXPECT_EQ(v[0].frames[1].function, "default_collate");
  EXPECT_EQ(v[1].caused_by, 0) << "the main process's re-raise wraps the worker's failure";
  EXPECT_EQ(v[1].CulpritText(), "train.py:143 in <module>: for i, image in enumerate(train_loader):");

  // The same re-raise pasted without the main process's traceback.
  auto alone = Segment(worker);
  ASSERT_EQ(alone.size(), 1u) << Dump(alone);
  EXPECT_EQ(alone[0].message, "inconsistent tensor sizes at /pytorch/torch/lib/TH/generic/THTensorMath.c:2709");
  EXPECT_EQ(alone[0].frames.size(), 3u) << Dump(alone);
}

// Note: [Nested chains]: a chain after a worker's text that ended with the worker loop's traceback
// belongs to the main process: two real runs' texts joined, the DataLoader re-raise caught by the
// script, whose handler then fails (the second half of tests/fixtures/chained_during_handling).
TEST(Segmenter, ChainAfterACompleteWorkerTextChainsToTheWrapper) {
  std::string handler = ReadFixture("chained_during_handling");
  handler = handler.substr(handler.find("\nDuring handling of the above exception"));
  auto v = Segment(ReadFixture("dataloader_reraise") + handler);
  ASSERT_EQ(v.size(), 3u) << Dump(v);
  EXPECT_EQ(v[1].message, "Caught RuntimeError in DataLoader worker process 0.");
  EXPECT_EQ(v[1].caused_by, 0) << Dump(v);
  EXPECT_EQ(v[2].exception, "KeyError");
  EXPECT_EQ(v[2].caused_by, 1) << Dump(v);
}

TEST(Segmenter, CppStackTraceIsNotPartOfTheMessage) {
  auto v = Segment(ReadFixture("cpp_stacktrace"));
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].message, "mat1 and mat2 shapes cannot be multiplied (3x4 and 5x6)");
  EXPECT_EQ(v[0].line_end, 38) << "the C++ frames belong to the incident's span";
}

TEST(Segmenter, BareErrorLine) {
  auto v = Segment(ReadFixture("bare_error_line"));
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].kind, Incident::Kind::kErrorLine);
  EXPECT_EQ(v[0].exception, "RuntimeError");
  EXPECT_EQ(v[0].message, "shape '[4, 2]' is invalid for input of size 6");
  EXPECT_EQ(v[0].line_start, 2);
}

// An exception line pasted into Markdown inside emphasis markers (wild: cszn/KAIR#112 posted
// "_RuntimeError: stack expects ..._ " in italics) is still the exception line; a line that only
// starts with an underscore is not.
TEST(Segmenter, ErrorLineInsideMarkdownEmphasis) {
  auto v = Segment("_RuntimeError: stack expects each tensor to be equal size, but got [3, 48, 48] at entry 0_ \n"
                   "**ValueError: too many values to unpack (expected 2)**\n"
                   "_private_name: not an exception\n");
  ASSERT_EQ(v.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].exception, "RuntimeError");
  EXPECT_EQ(v[0].message, "stack expects each tensor to be equal size, but got [3, 48, 48] at entry 0");
  EXPECT_EQ(v[1].exception, "ValueError");
  EXPECT_EQ(v[1].message, "too many values to unpack (expected 2)");
}

// A worker killed mid-write left a NUL before the main process's traceback header (real output:
// corpus/data/shm-file-system-strategy/log.txt line 4, frames shortened here).
TEST(Segmenter, NulBeforeATracebackHeaderIsNotText) {
  std::string log = std::string("step 64: cached 65 batches\n") + '\0' +
                    "Traceback (most recent call last):\n"
                    "  File \"/usr/lib/python3/dist-packages/torch/utils/data/_utils/signal_handling.py\", line 66, in "
                    "handler\n"
                    "    _error_if_any_worker_fails()\n"
                    "RuntimeError: DataLoader worker (pid 9144) is killed by signal: Bus error.\n";
  auto v = Segment(log);
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].kind, Incident::Kind::kTraceback);
  EXPECT_EQ(v[0].line_start, 2);
  ASSERT_EQ(v[0].frames.size(), 1u);
  EXPECT_EQ(v[0].frames[0].function, "handler");
}

TEST(Segmenter, TracebackCutBeforeItsExceptionKeepsTheLastSourceLine) {
  std::string text = ReadFixture("chained_direct_cause");
  // Keep the first 9 lines: the paste stops inside linear.py's frame.
  size_t pos = 0;
  for (int i = 0; i < 9; ++i) pos = text.find('\n', pos) + 1;
  auto v = Segment(text.substr(0, pos));
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].exception, "");
  EXPECT_EQ(v[0].message, "return F.linear(input, self.weight, self.bias)");
}

// A paste that stops right after a frame line (corpus/wild/data/dg-net-windows-spawn-child-cut-at-run-path,
// cut inside runpy): the frame has no source line, so the cut traceback keeps the frame's before it.
TEST(Segmenter, TracebackCutAfterAFrameLineKeepsTheSourceLineBefore) {
  const std::string text =
      "Traceback (most recent call last):\n"
      "  File \"<string>\", line 1, in <module>\n"
      "  File \"C:\\py\\lib\\multiprocessing\\spawn.py\", line 287, in _fixup_main_from_path\n"
      "    main_content = runpy.run_path(main_path,\n"
      "  File \"C:\\py\\lib\\runpy.py\", line 265, in run_path\n";
  auto v = Segment(text);
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].exception, "");
  ASSERT_EQ(v[0].frames.size(), 3u);
  EXPECT_EQ(v[0].frames[2].source, "");
  EXPECT_EQ(v[0].message, "main_content = runpy.run_path(main_path,");
}

TEST(Segmenter, ClassifiedLogLinesMergeWhenClose) {
  std::string text =
      "epoch 1 loss 0.5\n"
      "Assertion `t >= 0 && t < n_classes` failed. A\n"
      "Assertion `t >= 0 && t < n_classes` failed. B\n"
      "ordinary\n"
      "Assertion `t >= 0 && t < n_classes` failed. C\n"
      "1\n2\n3\n4\n5\n6\n7\n"
      "Assertion `t >= 0 && t < n_classes` failed. D\n";
  auto v = Segment(text, [](std::string_view line) { return line.find("Assertion") != std::string_view::npos ? 7 : -1; });
  ASSERT_EQ(v.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].kind, Incident::Kind::kLogLine);
  EXPECT_EQ(v[0].count, 3);
  EXPECT_EQ(v[0].line_start, 2);
  EXPECT_EQ(v[0].line_end, 5);
  EXPECT_EQ(v[1].line_start, 13);
}

// Note: [Repeated log lines]: a long run keeps its first eight lines and its newest, so the numbers it
// ended on (a loss scale halved step after step) are read too; the count is the whole run.
TEST(Segmenter, RepeatedLogLinesKeepTheirStartAndTheNewest) {
  std::string text;
  double scale = 65536;
  for (int i = 0; i < 17; ++i) {
    scale /= 2;
    char line[128];
    std::snprintf(line, sizeof line, "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to %g\n", scale);
    text += line;
  }
  auto v = Segment(text, [](std::string_view line) { return line.find("Gradient overflow") != std::string_view::npos ? 3 : -1; });
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].count, 17);
  EXPECT_EQ(v[0].line_end, 17);
  EXPECT_EQ(std::count(v[0].message.begin(), v[0].message.end(), '\n'), 8) << v[0].message;
  EXPECT_EQ(v[0].message.substr(0, v[0].message.find('\n')), "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768");
  EXPECT_EQ(v[0].message.substr(v[0].message.rfind('\n') + 1), "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 0.5");
}

// Note: [Glued headers]: a header at the end of a progress bar's line or after a Windows prompt starts the
// traceback, with its frames; a header quoted inside other text does not.
TEST(Segmenter, HeaderGluedToProgressBarOrPromptStartsTraceback) {
  const std::string text =
      "  0%|          | 0/40995 [00:00<?, ?it/s]Traceback (most recent call last):\n"
      "  File \"run_clm.py\", line 459, in <module>\n"
      "    main()\n"
      "  File \"/usr/lib/python3/dist-packages/torch/nn/functional.py\", line 2183, in embedding\n"
      "    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)\n"
      "IndexError: index out of range in self\n"
      "\n"
      "(torch14) D:\\proj>Traceback (most recent call last):\n"
      "  File \"<string>\", line 1, in <module>\n"
      "  File \"C:\\envs\\torch14\\lib\\multiprocessing\\spawn.py\", line 115, in _main\n"
      "    self = reduction.pickle.load(from_parent)\n"
      "EOFError: Ran out of input\n";
  auto v = Segment(text);
  ASSERT_EQ(v.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].exception, "IndexError");
  ASSERT_EQ(v[0].frames.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].frames[1].function, "embedding");
  EXPECT_EQ(v[1].exception, "EOFError");
  ASSERT_EQ(v[1].frames.size(), 2u) << Dump(v);
  EXPECT_EQ(v[1].frames[1].source, "self = reduction.pickle.load(from_parent)");

  // Quoted in a message or a log record, the header text starts nothing of its own (the frame line after
  // it is read on its own, Note: [Headerless tracebacks]).
  auto quoted = Segment(
      "ERROR:root:worker said: Traceback (most recent call last): see above\n"
      "  File \"train.py\", line 3, in <module>\n");
  for (const Incident& inc : quoted) EXPECT_NE(inc.line_start, 1) << Dump(quoted);
}

// Note: [Glued headers]: an exception line glued to a progress bar is read as one, with its type.
TEST(Segmenter, ExceptionLineGluedToProgressBarKeepsItsType) {
  auto v = Segment(
      "  3%|\xe2\x96\x89    | 4/127 [00:21<11:17,  5.51s/it]RuntimeError: a leaf Variable that requires grad is being used in "
      "an in-place operation.\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].exception, "RuntimeError");
  EXPECT_EQ(v[0].message, "a leaf Variable that requires grad is being used in an in-place operation.");
}

// A DataLoader worker's re-raise logged with a prefix on every line: the prefix learned from its
// "Original Traceback" header leaves "Original" out of the prefix, and that header starts the worker's
// traceback (its wrapper line came before any prefix was learned), so the worker's frames are kept.
TEST(Segmenter, LoggedWorkerReraiseKeepsOriginalTraceback) {
  const std::string p = "2024-01-01 00:00:00,000 - ERROR - ";
  auto v = Segment(p + "RuntimeError: Caught RuntimeError in DataLoader worker process 2.\n" + p +
                   "Original Traceback (most recent call last):\n" + p +
                   "  File \"/x/torch/utils/data/_utils/worker.py\", line 308, in _worker_loop\n" + p +
                   "    data = fetcher.fetch(index)\n" + p +
                   "RuntimeError: stack expects each tensor to be equal size, but got [4, 144, 112] at entry 0 and [4, "
                   "136, 120] at entry 3\n");
  const Incident* inner = nullptr;
  for (const Incident& inc : v) {
    if (inc.message.rfind("stack expects", 0) == 0) inner = &inc;
  }
  ASSERT_NE(inner, nullptr) << Dump(v);
  ASSERT_EQ(inner->frames.size(), 1u) << Dump(v);
  EXPECT_EQ(inner->frames[0].function, "_worker_loop");
  EXPECT_EQ(inner->frames[0].source, "data = fetcher.fetch(index)");
  EXPECT_EQ(inner->line_start, 2);
}

// Note: [Headerless tracebacks]: a paste that starts at a frame line is read as a traceback, with its
// frames; one cut before its exception line takes its last source line, as a headed one does.
TEST(Segmenter, TracebackWithoutHeaderKeepsItsFrames) {
  auto v = Segment(
      "  File \"/opt/conda/lib/python3.10/site-packages/torch/nn/modules/sparse.py\", line 162, in forward\n"
      "    return F.embedding(\n"
      "  File \"/opt/conda/lib/python3.10/site-packages/torch/nn/functional.py\", line 2233, in embedding\n"
      "    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)\n"
      "RuntimeError: CUDA error: device-side assert triggered\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].exception, "RuntimeError");
  EXPECT_EQ(v[0].message, "CUDA error: device-side assert triggered");
  ASSERT_EQ(v[0].frames.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].frames[1].function, "embedding");

  auto cut = Segment(
      "  File \"/usr/local/lib/python3.10/dist-packages/torch/cuda/amp/grad_scaler.py\", line 229, in _unscale_grads_\n"
      "    raise ValueError(\"Attempting to unscale FP16 gradients.\")\n");
  ASSERT_EQ(cut.size(), 1u) << Dump(cut);
  EXPECT_EQ(cut[0].exception, "ValueError");
  EXPECT_EQ(cut[0].message, "Attempting to unscale FP16 gradients.");

  // A frame flattened onto one line with its source and error is not a frame line: nothing starts there.
  auto flat = Segment("File \"C:\\env\\lib\\site-packages\\torch\\__init__.py\", line 130, in <module> raise err\n");
  for (const Incident& inc : flat) EXPECT_TRUE(inc.frames.empty()) << Dump(flat);
}

// Note: [Joined literals] in python_traceback.cc: a traceback cut at a raise whose message the source
// writes as adjacent string literals takes them joined, as Python does; the literal of a format call
// ends the message where it ends.
TEST(Segmenter, CutRaiseJoinsAdjacentLiterals) {
  const struct {
    const char* raise;
    const char* message;
  } cases[] = {
      {"raise RuntimeError(\"Distributed package doesn't have NCCL \" \"built in\")",
       "Distributed package doesn't have NCCL built in"},
      {"raise ValueError('a ' f'b' \"c\")", "a bc"},
      {"raise RuntimeError('x {}'.format(y))", "x {}"},
  };
  for (const auto& c : cases) {
    auto v = Segment(std::string("Traceback (most recent call last):\n"
                                 "  File \"/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py\", "
                                 "line 727, in _new_process_group_helper\n    ") +
                     c.raise + "\n");
    const Incident* tb = nullptr;
    for (const Incident& inc : v) {
      if (inc.kind == Incident::Kind::kTraceback) tb = &inc;
    }
    ASSERT_TRUE(tb) << Dump(v);
    EXPECT_EQ(tb->message, c.message) << c.raise;
  }
}

// Note: [Frames wrapped before their function]: a frame line broken at the blank before its `in F`
// (speechbrain#912's paste, flush left and cut at its raise) is one frame with F as its function, and
// the cut traceback takes its type and message from the raise line.
TEST(Segmenter, FrameLineWrappedBeforeItsFunctionIsOneFrame) {
  auto v = Segment(
      "...\n"
      "File \"/home/u/miniconda3/envs/sb/lib/python3.8/multiprocessing/reduction.py\", line 189,\n"
      "in recv_handle\n"
      "return recvfds(s, 1)[0]\n"
      "File \"/home/u/miniconda3/envs/sb/lib/python3.8/multiprocessing/reduction.py\", line 164,\n"
      "in recvfds\n"
      "raise RuntimeError('received %d items of ancdata' %\n");
  const Incident* tb = nullptr;
  for (const Incident& inc : v) {
    if (inc.kind == Incident::Kind::kTraceback) tb = &inc;
  }
  ASSERT_TRUE(tb) << Dump(v);
  ASSERT_EQ(tb->frames.size(), 2u) << Dump(v);
  EXPECT_EQ(tb->frames[0].function, "recv_handle");
  EXPECT_EQ(tb->frames[0].source, "return recvfds(s, 1)[0]");
  EXPECT_EQ(tb->frames[1].function, "recvfds");
  EXPECT_EQ(tb->exception, "RuntimeError");
  EXPECT_EQ(tb->message, "received %d items of ancdata");

  // Indented as Python prints it, the same; a line after the comma that is not `in F` is not taken for
  // the function.
  const struct {
    const char* second_line;
    const char* function;
  } wrapped[] = {{"in main\n", "main"}, {"", ""}};
  for (const auto& w : wrapped) {
    auto one = Segment(std::string("Traceback (most recent call last):\n  File \"train.py\", line 12,\n") +
                       w.second_line + "    loss.backward()\nValueError: bad\n");
    ASSERT_EQ(one.size(), 1u) << Dump(one);
    ASSERT_EQ(one[0].frames.size(), 1u) << Dump(one);
    EXPECT_EQ(one[0].frames[0].function, w.function);
    EXPECT_EQ(one[0].frames[0].source, "loss.backward()");
    EXPECT_EQ(one[0].message, "bad");
  }
}

// Note: [Headerless tracebacks] behind a padded logging prefix: the learned prefix ends with every blank
// before the message, the frames' two included, so a frame at column 0 whose prefix ended with three
// blanks or more starts the traceback; one that kept only the prefix's own blank is not a frame line.
TEST(Segmenter, HeaderlessTracebackBehindAPaddedLogPrefix) {
  const std::string p = "2024-01-02 10:11:12,345 INFO ";
  auto v = Segment(p + "  File \"/x/torch/utils/data/dataloader.py\", line 1043, in __init__\n" + p +
                   "    w.start()\n" + p + "  File \"C:\\env\\lib\\multiprocessing\\context.py\", line 327, in _Popen\n" + p +
                   "    return Popen(process_ob\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].kind, Incident::Kind::kTraceback) << Dump(v);
  ASSERT_EQ(v[0].frames.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].frames[0].source, "w.start()");

  // the same prefix before a frame that was at column 0 in the paste: a traceback too, since a frame at
  // column 0 is one (TracebackFromAFrameAtColumn0)
  auto flat = Segment(p + "File \"/x/torch/utils/data/_utils/collate.py\", line 162, in default_collate\n" + p +
                      "    return torch.stack(batch, 0, out=out)\n" + p + "RuntimeError: stack expects each tensor to be equal size\n");
  ASSERT_EQ(flat.size(), 1u) << Dump(flat);
  EXPECT_EQ(flat[0].kind, Incident::Kind::kTraceback) << Dump(flat);
  EXPECT_EQ(flat[0].exception, "RuntimeError");
  ASSERT_EQ(flat[0].frames.size(), 1u) << Dump(flat);
  EXPECT_EQ(flat[0].frames[0].source, "return torch.stack(batch, 0, out=out)");
}

// Note: [Headerless tracebacks] behind "... ERROR ", a logging prefix whose level is followed by one
// blank (tests/paste_forms_test.cc's timed_logging form of corpus/wild/data/witt-7-...): the frame's own
// two blanks after it looked like a level padded to rich's column (Note: [Aligned continuations]), so the
// record was read as one of rich's and the prefix was never learned; the frames were lost.
TEST(Segmenter, HeaderlessTracebackBehindALevelAndOneBlank) {
  const std::string text =
      "2024-05-01 12:00:00,000 ERROR   File \"train.py\", line 150, in train_one_epoch\n"
      "2024-05-01 12:00:00,137 ERROR     for batch_idx, (input, label) in enumerate(train_loader):\n"
      "2024-05-01 12:00:00,274 ERROR   File \"C:\\env\\lib\\multiprocessing\\context.py\", line 327, in _Popen\n"
      "2024-05-01 12:00:00,411 ERROR     return Popen(process_ob\n";
  auto v = Segment(text);
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].kind, Incident::Kind::kTraceback) << Dump(v);
  ASSERT_EQ(v[0].frames.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].frames[0].function, "train_one_epoch");
  EXPECT_EQ(v[0].frames[0].source, "for batch_idx, (input, label) in enumerate(train_loader):");
  EXPECT_EQ(v[0].message, "return Popen(process_ob");
  EXPECT_EQ(v[0].line_start, 1);
  EXPECT_EQ(v[0].line_end, 4);
  // a frame indented by one blank in the paste (corpus/wild/compile/inductor-triton-2-3-no-triton-key),
  // behind "... INFO ": no frame line, as without the prefix
  for (const std::string& p : {std::string(), std::string("2024-01-02 10:11:12,345 INFO ")}) {
    auto one = Segment(p + " File \"/x/torch/_inductor/codecache.py\", line 166, in get_system\n" + p +
                       "    from triton.compiler.compiler import triton_key\n");
    for (const Incident& inc : one) EXPECT_NE(inc.kind, Incident::Kind::kTraceback) << p << Dump(one);
  }
  // rich's own layout, a message padded to its column, is still joined with its continuation
  auto rich = Segment(
      "02:54:18-197331 ERROR    Could not load torch: [WinError 126] The specified module could not be found. Error loading\n"
      "                         \"P:\\kohya_ss\\venv\\lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.\n",
      [](std::string_view line) { return line.find("fbgemm.dll\" or one of") != std::string_view::npos ? 1 : -1; });
  ASSERT_EQ(rich.size(), 1u) << Dump(rich);
  EXPECT_EQ(rich[0].line_end, 2) << Dump(rich);
}

// Note: [Headerless tracebacks]: a frame line at column 0 starts a traceback. The forms are those of
// real pastes (corpus/wild): the selection's first frame flush left and the rest indented
// (bs-roformer-linear-attn-flash-no-kernel), every line flush left so that source lines are at column 0
// too (pytorch-semseg-106-loss-div-long-mask-sum-torch04), and each frame's source joined onto its File
// line (basicstisr-windows-lmdb-environment-pickle). Each fails without the column-0 start.
TEST(Segmenter, TracebackFromAFrameAtColumn0) {
  auto first = Segment(
      "File \"attend.py\", line 84, in flash_attn\n"
      "    out = F.scaled_dot_product_attention(\n"
      "RuntimeError: No available kernel. Aborting execution.\n");
  ASSERT_EQ(first.size(), 1u) << Dump(first);
  EXPECT_EQ(first[0].kind, Incident::Kind::kTraceback);
  EXPECT_EQ(first[0].exception, "RuntimeError");
  EXPECT_EQ(first[0].CulpritText(), "attend.py:84 in flash_attn: out = F.scaled_dot_product_attention(");

  auto flush = Segment(
      "File \"./new_train.py\", line 91, in train\n"
      "loss = loss_fn(input=outputs, target=labels)\n"
      "File \"/mnt/disk2/DFN/pytorch-semseg-master/ptsemseg/loss.py\", line 31, in cross_entropy2d\n"
      "loss /= mask.data.sum().\n"
      "RuntimeError: Expected object of type torch.cuda.FloatTensor but found type torch.cuda.LongTensor for "
      "argument #3 'other'\n");
  ASSERT_EQ(flush.size(), 1u) << Dump(flush);
  EXPECT_EQ(flush[0].exception, "RuntimeError") << Dump(flush);
  ASSERT_EQ(flush[0].frames.size(), 2u) << Dump(flush);
  EXPECT_EQ(flush[0].frames[0].source, "loss = loss_fn(input=outputs, target=labels)");
  EXPECT_EQ(flush[0].frames[1].source, "loss /= mask.data.sum().");
  EXPECT_EQ(flush[0].line_end, 5);
  // flush left, a frame with no source line before its exception line, a bare exception name
  auto bare = Segment("File \"run.py\", line 3, in <module>\nKeyboardInterrupt\n");
  ASSERT_EQ(bare.size(), 1u) << Dump(bare);
  EXPECT_EQ(bare[0].exception, "KeyboardInterrupt") << Dump(bare);
  EXPECT_EQ(bare[0].frames.at(0).source, "");

  // the first frame flush left and the next ones indented as printed (CycleGAN#876's paste): a line at
  // column 0 after an indented frame is read as printed, here the worker's "Original Traceback" header
  auto mixed = Segment(
      "File \"train.py\", line 44, in <module>\n"
      "    for i, data in enumerate(dataset):  # inner loop within one epoch\n"
      "  File \"/root/anaconda3/lib/python3.7/site-packages/torch/_utils.py\", line 385, in reraise\n"
      "Original Traceback (most recent call last):\n"
      "  File \"/root/anaconda3/lib/python3.7/site-packages/PIL/ImageFile.py\", line 234, in load\n"
      "    s = read(self.decodermaxblock)\n"
      "OSError: image file is truncated\n");
  ASSERT_GE(mixed.size(), 2u) << Dump(mixed);
  EXPECT_EQ(mixed[0].line_start, 1) << Dump(mixed);
  ASSERT_EQ(mixed[0].frames.size(), 2u) << Dump(mixed);
  EXPECT_EQ(mixed[0].frames[1].source, "") << Dump(mixed);
  EXPECT_EQ(mixed.back().exception, "OSError") << Dump(mixed);
  ASSERT_EQ(mixed.back().frames.size(), 1u) << Dump(mixed);
  EXPECT_EQ(mixed.back().frames[0].function, "load");

  auto joined = Segment(
      "File \"...\\BasicSTISR\\main.py\", line 45, in <module> main(config, args) \n"
      "File \"...\\BasicSTISR\\main.py\", line 14, in main Mission.train() \n"
      "File \"D:\\Python3.10.9\\lib\\multiprocessing\\popen_spawn_win32.py\", line 93, in init reduction.dump(process_obj, to_child)\n"
      "File \"D:\\Python3.10.9\\lib\\multiprocessing\\reduction.py\", li\n");
  ASSERT_EQ(joined.size(), 1u) << Dump(joined);
  EXPECT_EQ(joined[0].kind, Incident::Kind::kTraceback);
  EXPECT_EQ(joined[0].line_start, 1);
  ASSERT_EQ(joined[0].frames.size(), 3u) << Dump(joined);
  EXPECT_EQ(joined[0].frames[0].file, "...\\BasicSTISR\\main.py");
  EXPECT_EQ(joined[0].frames[2].line, 93);

  // A sentence that names a file at the start of a line, and a frame alone with text after its function,
  // start nothing.
  for (const char* text : {"File \"config.yaml\", line 3, in the dataset section, has a typo\n",
                           "File \"a.py\", line 3, in f raise err\nepoch 1 loss 0.5\n"}) {
    auto v = Segment(text);
    for (const Incident& inc : v) EXPECT_TRUE(inc.frames.empty()) << Dump(v);
  }
}

// Note: [Warning after a progress bar] (formats/warnings.h): a warnings-module line glued to a tqdm
// bar's last state is read as the warning, with its type, message, frame and source line, whether the
// bar has a total or is tqdm's counter (corpus/wild/amp/comfyui-mvadapter-14-sdxl-vae-fp16-nan-black-image
// as tests/paste_forms_test.cc glues a bar to it; corpus/wild/negative/nnue-lightning-num-workers-warning-
// custom-loader as posted). A record that is no warning keeps its bar (Note: [Text after a progress bar]).
TEST(Segmenter, WarningAfterAProgressBar) {
  auto classify = [](std::string_view line) {
    return line.find("invalid value encountered") != std::string_view::npos ? 1
           : line.find("does not have many workers") != std::string_view::npos ? 2
           : line.find("tried to get lr value") != std::string_view::npos ? 3
                                                                               : -1;
  };
  for (const std::string& bar : {std::string("\r  0%|          | 0/30 [00:00<?, ?it/s]\r  3%|\u258e         | 1/30 [00:01<00:30,  1.02s/it]"),
                                std::string("100%|##########| 30/30 [00:09<00:00,  3.20it/s, loss=0.41]")}) {
    auto v = Segment(bar +
                         "E:\\AIGC\\ComfyUI\\venv\\Lib\\site-packages\\diffusers\\image_processor.py:147: RuntimeWarning: "
                         "invalid value encountered in cast\n"
                         "  images = (images * 255).round().astype(\"uint8\")\n",
                     classify);
    ASSERT_EQ(v.size(), 1u) << Dump(v);
    EXPECT_EQ(v[0].exception, "RuntimeWarning") << Dump(v);
    EXPECT_EQ(v[0].message, "invalid value encountered in cast");
    ASSERT_EQ(v[0].frames.size(), 1u);
    EXPECT_EQ(v[0].frames[0].file, "E:\\AIGC\\ComfyUI\\venv\\Lib\\site-packages\\diffusers\\image_processor.py");
    EXPECT_EQ(v[0].frames[0].line, 147);
    EXPECT_EQ(v[0].frames[0].source, "images = (images * 255).round().astype(\"uint8\")");
  }
  auto counter = Segment(
      "Sanity Checking: 0it [00:00, ?it/s]/store/nnue/lib/python3.10/site-packages/pytorch_lightning/trainer/"
      "connectors/data_connector.py:224: PossibleUserWarning: The dataloader, val_dataloader 0, does not have many "
      "workers which may be a bottleneck.\n",
      classify);
  ASSERT_EQ(counter.size(), 1u) << Dump(counter);
  EXPECT_EQ(counter[0].exception, "PossibleUserWarning") << Dump(counter);
  EXPECT_EQ(counter[0].frames.at(0).line, 224);
  // not a warning: the record keeps the bar, where a rule reads the step it shows
  auto record = Segment(
      "  1%|\u258f         | 118/10000 [06:20<8:58:00,  3.23s/it]tried to get lr value before scheduler/optimizer "
      "started stepping, returning lr=0\n",
      classify);
  ASSERT_EQ(record.size(), 1u) << Dump(record);
  EXPECT_EQ(record[0].exception, "");
  EXPECT_NE(record[0].message.find("118/10000 ["), std::string::npos) << record[0].message;
}

// BackendCompilerFailed's "backend='inductor' raised:" takes the backend's error line after it into its
// message, so the inner error's rule reads it in the same incident.
TEST(Segmenter, BackendCompilerFailedTakesTheRaisedErrorLine) {
  auto v = Segment(
      "Traceback (most recent call last):\n"
      "  File \"/x/torch/_dynamo/output_graph.py\", line 1446, in _call_user_compiler\n"
      "    raise BackendCompilerFailed(self.compiler_fn, e) from e\n"
      "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
      "RuntimeError: Triton only support CUDA 10.0 or higher, but got CUDA version: 12.8\n"
      "\n"
      "Set TORCH_LOGS=\"+dynamo\" and TORCHDYNAMO_VERBOSE=1 for more information\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].message,
            "backend='inductor' raised:\nRuntimeError: Triton only support CUDA 10.0 or higher, but got CUDA version: 12.8");
}

// Note: [Indented tracebacks]: a traceback pasted as an indented block keeps its exception line (at the
// header's indentation) and its message; a chained one indented the same way too.
TEST(Segmenter, IndentedTracebackKeepsItsExceptionLine) {
  const std::string text =
      "    Traceback (most recent call last):\n"
      "      File \"train.py\", line 15, in <module>\n"
      "        loss = criterion(model(xb), yb)\n"
      "      File \"/usr/lib/python3/dist-packages/torch/nn/functional.py\", line 3026, in cross_entropy\n"
      "        return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)\n"
      "    IndexError: Target 10 is out of bounds.\n"
      "\n"
      "    During handling of the above exception, another exception occurred:\n"
      "\n"
      "    Traceback (most recent call last):\n"
      "      File \"train.py\", line 20, in <module>\n"
      "        raise RuntimeError(\"training failed\")\n"
      "    RuntimeError: training failed\n";
  auto v = Segment(text);
  ASSERT_EQ(v.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].exception, "IndexError");
  EXPECT_EQ(v[0].message, "Target 10 is out of bounds.");
  ASSERT_EQ(v[0].frames.size(), 2u);
  EXPECT_EQ(v[0].frames[0].source, "loss = criterion(model(xb), yb)");
  EXPECT_EQ(v[1].exception, "RuntimeError");
  EXPECT_EQ(v[1].message, "training failed");
  EXPECT_EQ(v[1].caused_by, 0);
  // The same traceback at column 0 reads the same.
  std::string plain;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    std::string line = text.substr(at, end - at);
    plain += (line.rfind("    ", 0) == 0 ? line.substr(4) : line) + "\n";
    at = end + 1;
  }
  auto w = Segment(plain);
  ASSERT_EQ(w.size(), 2u) << Dump(w);
  EXPECT_EQ(w[0].message, v[0].message);
  EXPECT_EQ(w[1].caused_by, v[1].caused_by);
}

TEST(Segmenter, LogLinesBeforeAnExceptionBecomeItsContext) {
  std::string text =
      "/pytorch/aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], "
      "thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.\n"
      "RuntimeError: CUDA error: device-side assert triggered\n";
  auto v = Segment(text, [](std::string_view line) { return line.find("Assertion") != std::string_view::npos ? 1 : -1; });
  ASSERT_EQ(v.size(), 2u) << Dump(v);
  ASSERT_EQ(v[1].context.size(), 1u);
  EXPECT_NE(v[1].context[0].find("t < n_classes"), std::string::npos);
}

TEST(SegmenterNormalize, StripsLineNoise) {
  EXPECT_EQ(Segmenter::Normalize("RuntimeError: x\r"), "RuntimeError: x");
  EXPECT_EQ(Segmenter::Normalize("\x1b[31mRuntimeError\x1b[0m: x"), "RuntimeError: x");
  EXPECT_EQ(Segmenter::Normalize(" 10%|#    | 1/10\r 20%|##   | 2/10\rTraceback (most recent call last):"),
            "Traceback (most recent call last):");
  // A UTF-8 byte order mark before a file's first line (corpus/wild/cuda/ocr-tablenet-train-oom-message-without-prefix
  // saved with one reads as it reads without); one inside the text is left alone.
  EXPECT_EQ(Segmenter::Normalize("\xef\xbb\xbfTried to allocate 1.91 GiB (GPU 0; 7.93 GiB total capacity;"),
            "Tried to allocate 1.91 GiB (GPU 0; 7.93 GiB total capacity;");
  EXPECT_EQ(Segmenter::Normalize("\xef\xbb\xbfRuntimeError: x\r"), "RuntimeError: x");
  EXPECT_EQ(Segmenter::Normalize("a\xef\xbb\xbf" "b"), "a\xef\xbb\xbf" "b");
  // Prefixes are the formats' own (their readers strip them), not line noise.
  EXPECT_EQ(Segmenter::Normalize("[rank3]:RuntimeError: x"), "[rank3]:RuntimeError: x");
  EXPECT_EQ(Segmenter::Normalize(" 2: IndexError: Target -3 is out of bounds."), " 2: IndexError: Target -3 is out of bounds.");
  EXPECT_EQ(Segmenter::Normalize("ipdb> Traceback (most recent call last):"), "ipdb> Traceback (most recent call last):");
  // Note: [Typographic characters]: no-break spaces and curly quotes, single and double, read as PyTorch
  // prints them; other non-ASCII text (CJK, other quotation marks) is left alone.
  EXPECT_EQ(Segmenter::Normalize("AttributeError:\xc2\xa0module \xe2\x80\x98torch.library\xe2\x80\x99 has\xe2\x80\xafno"),
            "AttributeError: module 'torch.library' has no");
  EXPECT_EQ(Segmenter::Normalize("\xe6\x96\x87\xe4\xbb\xb6: \xe2\x80\x9cPython.h\xe2\x80\x9d \xc2\xabx\xc2\xbb"),
            "\xe6\x96\x87\xe4\xbb\xb6: \"Python.h\" \xc2\xabx\xc2\xbb");
  // Note: [Colour codes without ESC]: removed on a line holding a reset, not where the ESC is spelled
  // out, and not on a line without a reset ("[5m" in other text).
  EXPECT_EQ(Segmenter::Normalize("[1;35mRuntimeError[0m: [35mx[0m"), "RuntimeError: x");
  EXPECT_EQ(Segmenter::Normalize("\"\\u001b[0;31mRuntimeError\\u001b[0m\","), "\"\\u001b[0;31mRuntimeError\\u001b[0m\",");
  EXPECT_EQ(Segmenter::Normalize("took [5m 3s] # type: ignore[misc]"), "took [5m 3s] # type: ignore[misc]");
  // Note: [Escapes in caret notation]: vLLM's coloured process tag as a viewer spelled its ESCs
  // (vllm-project/vllm#33155), its reset "[0;0m"; arrow keys echoed into a run's output (corpus/wild/
  // numerics/mpiifacegaze-default-lr-batch-1-loss-nan-step-100).
  EXPECT_EQ(Segmenter::Normalize("^[[0;36m(EngineCore_DP0 pid=70073)^[[0;0m INFO 01-27 00:31:44 [gpu_model_runner.py:3808] "
                                 "Starting to load model openai/gpt-oss-120b..."),
            "(EngineCore_DP0 pid=70073) INFO 01-27 00:31:44 [gpu_model_runner.py:3808] Starting to load model openai/gpt-oss-120b...");
  EXPECT_EQ(Segmenter::Normalize("^[[0;36m(EngineCore_DP0 pid=70073)^[[0;0m"), "(EngineCore_DP0 pid=70073)");
  EXPECT_EQ(Segmenter::Normalize("^[[A^[[B[2019/06/24 16:20:47 __main__ INFO] - Epoch 1 Step 800/1500 Loss nan (nan)"),
            "[2019/06/24 16:20:47 __main__ INFO] - Epoch 1 Step 800/1500 Loss nan (nan)");
  // vLLM's reset with its ESC lost, and a caret that is no escape.
  EXPECT_EQ(Segmenter::Normalize("[0;36m(VllmWorker rank=0 pid=403)[0;0m INFO x"), "(VllmWorker rank=0 pid=403) INFO x");
  EXPECT_EQ(Segmenter::Normalize("x^[[y] ^[ 2^[3]"), "x^[[y] ^[ 2^[3]");
}

TEST(SegmenterPrefixes, EachFormatKnowsItsPrefix) {
  std::string rank;
  EXPECT_EQ(RankPrefixReader::Prefix("[rank3]:RuntimeError: x", &rank), 8u);
  EXPECT_EQ(rank, "3");
  EXPECT_EQ(RankPrefixReader::Prefix("[rank1]:   File \"a.py\", line 3, in f", &rank), 9u);
  EXPECT_EQ(RankPrefixReader::Prefix("[default1]:  File \"a.py\", line 3, in f", &rank), 12u);
  EXPECT_EQ(rank, "1");
  EXPECT_EQ(RankPrefixReader::Prefix("[W NNPACK.cpp:53] Could not initialize NNPACK!", &rank), 0u);
  // nested prefixes go together, and the rank is the innermost one
  EXPECT_EQ(RankPrefixReader::Prefix("[default0]:[rank2]: RuntimeError: x", &rank), 20u);
  EXPECT_EQ(rank, "2");
  EXPECT_EQ(RankPrefixReader::Prefix("[rank0]: [rank2]:   File \"a.py\", line 3, in f", &rank), 18u);
  EXPECT_EQ(rank, "2");
  EXPECT_EQ(SrunLabelReader::Label(" 2: IndexError: Target -3 is out of bounds.", &rank), 4u);
  EXPECT_EQ(rank, "2");
  EXPECT_EQ(SrunLabelReader::Label("12:30 started", &rank), 0u) << "a time is not a task label";
  EXPECT_EQ(PdbPromptReader::Prompt("ipdb> Traceback (most recent call last):"), 6u);
  EXPECT_EQ(PdbPromptReader::Prompt("(Pdb) Traceback (most recent call last):"), 6u);
  EXPECT_EQ(PdbPromptReader::Prompt("Pdb is a debugger"), 0u);
}

// Note: [Quote markers behind a prefix]: a quoted traceback behind a rank prefix or a logging record's
// header reads as the traceback; a pytest report's own '>' lines behind a prefix stay its own.
TEST(SegmenterPrefixes, QuoteMarkersBehindAPrefixAreRemoved) {
  const std::string tb[] = {"Traceback (most recent call last):", "  File \"/w/program.py\", line 14, in <module>",
                            "    loss = F.nll_loss(out, y)", "IndexError: Target -3 is out of bounds."};
  for (const std::string prefix : {"[rank0]: > ", "[rank1]:> ", "2024-05-01 12:00:00,123 INFO > ", "> [rank0]: > "}) {
    std::string text = prefix + "epoch 1 loss 0.5\n";
    for (const std::string& l : tb) text += prefix + l + "\n";
    auto v = Segment(text);
    ASSERT_EQ(v.size(), 1u) << prefix << Dump(v);
    EXPECT_EQ(v[0].kind, Incident::Kind::kTraceback) << prefix;
    EXPECT_EQ(v[0].message, "Target -3 is out of bounds.") << prefix;
    ASSERT_EQ(v[0].frames.size(), 1u) << prefix;
    EXPECT_EQ(v[0].frames[0].source, "loss = F.nll_loss(out, y)") << prefix;
  }
  // A mail client's quotes in quotes (">> ", "> >> ", ">>>>>> ") are markers too; the interpreter's ">>> "
  // prompt is not: the REPL input after an error line does not join its message.
  for (const std::string prefix : {">> ", "> >> ", ">>>>>> "}) {
    std::string text;
    for (const std::string& l : tb) text += prefix + l + "\n";
    auto v = Segment(text);
    ASSERT_EQ(v.size(), 1u) << prefix << Dump(v);
    EXPECT_EQ(v[0].message, "Target -3 is out of bounds.") << prefix;
    ASSERT_EQ(v[0].frames.size(), 1u) << prefix;
  }
  auto v = Segment(tb[3] + "\n>>> caffe2.__file__\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].message, "Target -3 is out of bounds.");
  EXPECT_EQ(QuoteMarkerReader::Markers(">>> x"), 0u);
  EXPECT_EQ(QuoteMarkerReader::Markers("> >>> x"), 2u);
  EXPECT_EQ(QuoteMarkerReader::Markers(">>>x"), 0u);
  EXPECT_EQ(QuoteMarkerReader::Markers(">>"), 2u);
  EXPECT_EQ(QuoteMarkerReader::Markers(">> > x"), 5u);
}

// Note: [Srun labels]: text that only looks like a task label is read as it stands (it used to lose
// its number and pass for another task's line: a class table, an enumeration).
TEST(SegmenterPrefixes, NumberedLinesAreNotTaskLabelsUntilTheInputShowsThem) {
  std::vector<std::string> seen;
  auto record = [&](std::string_view line) {
    seen.emplace_back(line);
    return -1;
  };
  Segment("names:\n  0: person\n  3: truck\n1: loss 0.52\n", record);
  EXPECT_EQ(seen, (std::vector<std::string>{"names:", "0: person", "3: truck", "1: loss 0.52"}));
  // Once a labelled task fails, labels are srun's: stripped, and the task is the line's rank.
  seen.clear();
  auto v = Segment("0: step 0: loss 1.8338\n2: Traceback (most recent call last):\n"
                   "2:   File \"/w/program.py\", line 14, in <module>\n2: IndexError: Target -3 is out of bounds.\n"
                   "0: step 1: loss 1.7657\n",
                   record);
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].rank, "2");
  EXPECT_EQ(v[0].message, "Target -3 is out of bounds.");
  EXPECT_EQ(seen.front(), "0: step 0: loss 1.8338");
  EXPECT_EQ(seen.back(), "step 1: loss 1.7657");
}

// A message's own numbered lines stay in the message (they were taken for other tasks' lines and
// dropped from it).
TEST(SegmenterPrefixes, NumberedMessageLinesStayInTheMessage) {
  auto v = Segment(
      "Traceback (most recent call last):\n"
      "  File \"/w/check.py\", line 9, in <module>\n"
      "    check(names)\n"
      "ValueError: class ids missing from the names table:\n"
      "  3: 'truck'\n"
      "  7: 'boat'\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].message, "class ids missing from the names table:\n  3: 'truck'\n  7: 'boat'");
  EXPECT_EQ(v[0].rank, "");
}

// Regression: "[rank1]: RuntimeError: ..." kept a leading space after the prefix, so the exception
// line read as an indented source line and the traceback never closed.
TEST(Segmenter, RankPrefixedTracebackCloses) {
  auto v = Segment(
      "[rank1]: Traceback (most recent call last):\n"
      "[rank1]:   File \"/w/t.py\", line 3, in <module>\n"
      "[rank1]:     main()\n"
      "[rank1]: RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].exception, "RuntimeError");
  EXPECT_EQ(v[0].message, "CUDA out of memory. Tried to allocate 20.00 MiB");
  EXPECT_EQ(v[0].rank, "1");
  EXPECT_EQ(v[0].CulpritText(), "t.py:3 in <module>: main()");
}

// Regression: after "terminate called after throwing an instance of 'c10::Error'" the what() line was
// appended with its "  what():  " prefix, and the "./program" C++ frame (no line) became the culprit
// "program:0" (corpus/formats/cpp-uncaught-c10-error).
TEST(Segmenter, UncaughtC10ErrorMessageAndNoCxxCulprit) {
  auto v = Segment(
      "terminate called after throwing an instance of 'c10::Error'\n"
      "  what():  mat1 and mat2 shapes cannot be multiplied (8x300 and 256x64)\n"
      "Exception raised from meta at ./aten/src/ATen/native/LinearAlgebra.cpp:63 (most recent call first):\n"
      "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x9e (0x7f62d4d2f9ae in /lib/x86_64-linux-gnu/libc10.so.1.13)\n"
      "frame #11: <unknown function> + 0x23e1 (0x55ba11ef03e1 in ./program)\n"
      "\n"
      "Aborted\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].exception, "c10::Error");
  EXPECT_EQ(v[0].message, "mat1 and mat2 shapes cannot be multiplied (8x300 and 256x64)");
  ASSERT_EQ(v[0].frames.size(), 2u);
  EXPECT_TRUE(v[0].frames[1].user) << "./program is the user's binary";
  EXPECT_EQ(v[0].culprit, -1) << "a C++ frame has no line to point at";
}

// Regression: "(Pdb) Traceback (most recent call last):" (python -m pdb) was not a traceback header, so
// the exception became a bare line without frames (corpus/formats/pdb-post-mortem).
TEST(Segmenter, PdbPromptBeforeTracebackHeader) {
  auto v = Segment(
      "(Pdb) Traceback (most recent call last):\n"
      "  File \"/usr/lib/python3.11/bdb.py\", line 597, in run\n"
      "    exec(cmd, globals, locals)\n"
      "  File \"/w/script.py\", line 7, in <module>\n"
      "    y = net(x)\n"
      "RuntimeError: mat1 and mat2 must have the same dtype\n"
      "Uncaught exception. Entering post mortem debugging\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].kind, Incident::Kind::kTraceback);
  EXPECT_EQ(v[0].CulpritText(), "script.py:7 in <module>: y = net(x)");
}

// Note: [Debugger answers]: an expression typed at a pdb or ipdb prompt and its one-line value under it are
// one record for the rules (corpus/wild/numerics/pytorch-cuda-log-softmax-nan-from-finite-logits-ipdb); the
// program's output after a control command, pdb's "***" error line, the next prompt and a value of several
// lines are not joined.
TEST(Segmenter, PdbAnswerIsReadWithItsCommand) {
  auto hit = [](std::string_view line) {
    return line.find(".sum() 7733") != std::string_view::npos || line.find("any() tensor(True") != std::string_view::npos ? 3
                                                                                                                        : -1;
  };
  auto v = Segment("ipdb> np.isnan(x).sum()\n0\nipdb> np.isnan(F.log_softmax(x).numpy()).sum()\n7733\n", hit);
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].kind, Incident::Kind::kLogLine);
  EXPECT_EQ(v[0].message, "np.isnan(F.log_softmax(x).numpy()).sum() 7733");
  EXPECT_EQ(v[0].line_start, 3);
  EXPECT_EQ(v[0].line_end, 4);
  auto p = Segment("(Pdb) p torch.isnan(out).any()\ntensor(True, device='cuda:0')\n", hit);
  ASSERT_EQ(p.size(), 1u) << Dump(p);
  EXPECT_EQ(p[0].message, "p torch.isnan(out).any() tensor(True, device='cuda:0')");
  // not an answer: the program's output after "c", the next prompt, a line far below, another stream
  EXPECT_TRUE(Segment("ipdb> c\nstep.sum() 7733\n", [](std::string_view l) {
                return l.find("c step") != std::string_view::npos ? 0 : -1;
              }).empty());
  EXPECT_TRUE(Segment("ipdb> x.sum()\nipdb> 7733\n", hit).empty());
  EXPECT_TRUE(Segment("ipdb> x.sum()\n\n7733\n", hit).empty());
  EXPECT_TRUE(PdbPromptReader::MayBeAnswer("tensor(2994, device='cuda:0')"));
  EXPECT_FALSE(PdbPromptReader::MayBeAnswer("*** NameError: name 'err' is not defined"));
  EXPECT_FALSE(PdbPromptReader::MayBeAnswer("ipdb> x"));
  EXPECT_FALSE(PdbPromptReader::MayBeAnswer("RuntimeError: CUDA error: device-side assert triggered"));
  EXPECT_FALSE(PdbPromptReader::MayBeAnswer(""));
}

// Regression: a traceback cut before its exception line kept `raise ValueError("...")` as the message
// with no type, so no rule saw the real message (corpus/formats/cut-before-final-line).
TEST(Segmenter, CutTracebackRecoversTypeAndMessageFromRaise) {
  auto v = Segment(
      "Traceback (most recent call last):\n"
      "  File \"/w/program.py\", line 9, in <module>\n"
      "    out = model(single)\n"
      "  File \"/usr/lib/python3/dist-packages/torch/nn/functional.py\", line 2416, in _verify_batch_size\n"
      "    raise ValueError(\"Expected more than 1 value per channel when training, got input size {}\".format(size))\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].exception, "ValueError");
  EXPECT_EQ(v[0].message, "Expected more than 1 value per channel when training, got input size {}");
  EXPECT_EQ(v[0].CulpritText(), "program.py:9 in <module>: out = model(single)");
  // A cut source line that is not a raise keeps the old behaviour: the source line is the message.
  auto w = Segment("Traceback (most recent call last):\n  File \"/w/a.py\", line 3, in f\n    raise\n");
  ASSERT_EQ(w.size(), 1u) << Dump(w);
  EXPECT_EQ(w[0].exception, "");
  EXPECT_EQ(w[0].message, "raise");
}

// Regression: a warnings-module line "path:12: UserWarning: message" became a log line whose message
// kept the path, with no type and no frame (corpus/formats/warning-only).
TEST(Segmenter, WarningLineGetsTypeMessageAndFrame) {
  auto v = Segment(
      "/w/program.py:12: UserWarning: Using a target size (torch.Size([32])) that is different to the input "
      "size (torch.Size([32, 1])).\n"
      "  loss = nn.functional.mse_loss(model(x), y)\n"
      "epoch 0 loss 1.3277\n",
      [](std::string_view line) { return line.find("Using a target size") != std::string_view::npos ? 3 : -1; });
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].kind, Incident::Kind::kLogLine) << "a warning is not an exception";
  EXPECT_EQ(v[0].exception, "UserWarning");
  EXPECT_EQ(v[0].message.rfind("Using a target size", 0), 0u) << v[0].message;
  EXPECT_EQ(v[0].CulpritText(), "program.py:12: loss = nn.functional.mse_loss(model(x), y)");
  EXPECT_EQ(v[0].line_end, 2);
}

// Note: [Bare warning lines] (formats/warnings.h): a recognised line that starts with a warning category
// and no path is that warning (type, message, no frame); text that only looks like one is not.
TEST(Segmenter, BareWarningLineGetsTypeAndMessage) {
  auto hit = [](std::string_view line) { return line.find("is deprecated") != std::string_view::npos ? 1 : -1; };
  auto v = Segment("FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.\n", hit);
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].kind, Incident::Kind::kLogLine);
  EXPECT_EQ(v[0].exception, "FutureWarning");
  EXPECT_EQ(v[0].message.rfind("`torch.cuda.amp.autocast", 0), 0u) << v[0].message;
  EXPECT_TRUE(v[0].frames.empty());
  // Not a category: no name before "Warning", capitals, the category inside a sentence.
  for (const char* text : {"Warning: this is deprecated\n", "WARNING: this is deprecated\n",
                           "note that UserWarning: this is deprecated\n", "userWarning: this is deprecated\n"}) {
    auto w = Segment(text, hit);
    ASSERT_EQ(w.size(), 1u) << text << Dump(w);
    EXPECT_EQ(w[0].exception, "") << text;
  }
}

// Note: [Hand-wrapped warnings] (formats/warnings.h): a warning broken by hand in mid-sentence is read as
// one line where the joined text is what a rule recognises; the test reads the log path's way too.
TEST(Segmenter, HandWrappedWarningIsJoined) {
  auto hit = [](std::string_view line) {
    return line.find("that is different to the input size") != std::string_view::npos ? 2 : -1;
  };
  const std::string wrapped =
      "UserWarning: Using a target size (torch.Size([16, 1, 28, 28])) that is\n"
      "different to the input size (torch.Size([16, 784])) is deprecated.\n"
      "Please ensure they have the same size.\n";
  auto v = Segment(wrapped, hit);
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].exception, "UserWarning");
  EXPECT_EQ(v[0].message,
            "Using a target size (torch.Size([16, 1, 28, 28])) that is different to the input size (torch.Size([16, 784])) is deprecated.");
  EXPECT_EQ(v[0].line_start, 1);
  EXPECT_EQ(v[0].line_end, 2);
  // With its path, and its source line after the joined line.
  auto p = Segment(
      "/w/loss.py:536: UserWarning: Using a target size (torch.Size([64])) that is\n"
      "different to the input size (torch.Size([64, 1])).\n"
      "  return F.mse_loss(input, target, reduction=self.reduction)\n",
      hit);
  ASSERT_EQ(p.size(), 1u) << Dump(p);
  EXPECT_EQ(p[0].exception, "UserWarning");
  ASSERT_EQ(p[0].frames.size(), 1u);
  EXPECT_EQ(p[0].frames[0].line, 536);
  EXPECT_EQ(p[0].line_end, 3);
}

TEST(Segmenter, HandWrapJoinsOnlyASentenceThatGoesOn) {
  auto hit = [](std::string_view line) {
    return line.find("that is different to the input size") != std::string_view::npos ? 2 : -1;
  };
  // The sentence ended, the next line starts with a capital, is indented, or begins something itself:
  // nothing is joined, so no rule sees the two lines as one.
  for (const char* text : {
           "UserWarning: Using a target size (torch.Size([16])) that is.\ndifferent to the input size (torch.Size([16, 1])).\n",
           "UserWarning: Using a target size (torch.Size([16])) that is\nDifferent to the input size (torch.Size([16, 1])).\n",
           "UserWarning: Using a target size (torch.Size([16])) that is\n  different to the input size (torch.Size([16, 1])).\n",
           "UserWarning: Using a target size (torch.Size([16])) that is\n\ndifferent to the input size (torch.Size([16, 1])).\n",
           "Using a target size (torch.Size([16])) that is\ndifferent to the input size (torch.Size([16, 1])).\n",
       }) {
    EXPECT_TRUE(Segment(text, hit).empty()) << text << Dump(Segment(text, hit));
  }
  // A line the joined text does not make a rule's is read as before (here a lower-case log line a rule
  // recognises by itself).
  auto v = Segment("UserWarning: something about the run that is\nloss is nan at step 4\n",
                   [](std::string_view line) { return line.find("loss is nan") != std::string_view::npos && line.find("Warning") == std::string_view::npos ? 5 : -1; });
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].message, "loss is nan at step 4");
  EXPECT_EQ(v[0].line_start, 2);
}

// Regression: a per-line prefix (docker --timestamps, journalctl, a logging formatter) hid the traceback
// header and the exception line, so the incident was a bare line whose message kept the prefix
// (corpus/formats/docker-timestamps, journalctl-service, logging-timestamp-every-line). Digit runs in
// the prefix vary from line to line; a line with another prefix (systemd's own) is not part of it.
TEST(Segmenter, LearnedLogPrefixIsStrippedFromEveryLine) {
  auto v = Segment(
      "Mar 02 10:15:30 infer-01 systemd[1]: Started infer.service - Image preview service.\n"
      "Mar 02 10:15:31 infer-01 python3[48211]: Traceback (most recent call last):\n"
      "Mar 02 10:15:31 infer-01 python3[48211]:   File \"/srv/program.py\", line 9, in <module>\n"
      "Mar 02 10:15:31 infer-01 systemd[1]: infer.service: Watchdog ping\n"
      "Mar 02 10:15:32 infer-01 python3[48211]:     preview = model(image)\n"
      "Mar 02 10:15:32 infer-01 python3[48211]: RuntimeError: Input type (unsigned char) and bias type (float) "
      "should be the same\n"
      "Mar 02 10:15:32 infer-01 systemd[1]: infer.service: Main process exited, code=exited, status=1/FAILURE\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].exception, "RuntimeError");
  EXPECT_EQ(v[0].message, "Input type (unsigned char) and bias type (float) should be the same");
  EXPECT_EQ(v[0].CulpritText(), "program.py:9 in <module>: preview = model(image)");
  EXPECT_EQ(v[0].line_start, 2);
  EXPECT_EQ(v[0].line_end, 6);

  // Variable-width digit runs (docker trims trailing zeros of the nanoseconds).
  auto d = Segment(
      "2024-03-02T10:15:31.482114377Z Traceback (most recent call last):\n"
      "2024-03-02T10:15:31.48211Z   File \"/app/program.py\", line 8, in <module>\n"
      "2024-03-02T10:15:31.4821Z     normalised = bn(activations)\n"
      "2024-03-02T10:15:31.482132278Z RuntimeError: running_mean should contain 32 elements not 16\n");
  ASSERT_EQ(d.size(), 1u) << Dump(d);
  EXPECT_EQ(d[0].message, "running_mean should contain 32 elements not 16");
  EXPECT_EQ(d[0].CulpritText(), "program.py:8 in <module>: normalised = bn(activations)");

  // A header inside a quoted value is not a prefix (that is a flattened traceback, not a log prefix).
  auto q = Segment("job 4711 error=\"Traceback (most recent call last):\"\nRuntimeError: x\n");
  ASSERT_EQ(q.size(), 1u) << Dump(q);
  EXPECT_EQ(q[0].kind, Incident::Kind::kErrorLine);
}

// Note: [Learned prefix]: a log record's header at the start of a line teaches the prefix, not only the
// text before a traceback header, so that exception lines without a traceback, C++ errors and lines the
// rules read keep their diagnosis when a logging formatter prefixed every line. The level varies from
// line to line (INFO learned, ERROR matched), and so does a source location.
TEST(Segmenter, RecordHeaderTeachesThePrefix) {
  auto v = Segment(
      "2024-01-02 10:11:12,345 INFO train.py:40] epoch 1 loss 0.52\n"
      "2024-01-02 10:11:13,001 ERROR loader.py:7] RuntimeError: Expected hidden[0] size (2, 4, 256), got (2, 64, 256)\n"
      "2024-01-02 10:11:13,002 INFO train.py:41] terminate called after throwing an instance of 'c10::Error'\n"
      "2024-01-02 10:11:13,002 INFO train.py:41]   what():  CUDA error: an illegal memory access was encountered\n"
      "2024-01-02 10:11:13,003 INFO train.py:41] Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:44 (most recent call first):\n"
      "2024-01-02 10:11:13,003 INFO train.py:41] frame #0: c10::Error::Error() + 0x8d (0x7f in /usr/lib/libc10.so)\n");
  ASSERT_EQ(v.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].kind, Incident::Kind::kErrorLine);
  EXPECT_EQ(v[0].exception, "RuntimeError");
  EXPECT_EQ(v[0].message, "Expected hidden[0] size (2, 4, 256), got (2, 64, 256)");
  EXPECT_EQ(v[1].kind, Incident::Kind::kCxxError);
  EXPECT_EQ(v[1].message.rfind("CUDA error: an illegal memory access", 0), 0u) << v[1].message;
  EXPECT_EQ(v[1].line_start, 3);

  // A line the rules read from its first column (a `^`-anchored pattern) is read without the prefix.
  auto k = Segment("[2024-01-02 10:11:12] [INFO] load INSTRUCTOR_Transformer\n[2024-01-02 10:11:19] [ERROR] Killed\n",
                   [](std::string_view line) { return line == "Killed" ? 0 : -1; });
  ASSERT_EQ(k.size(), 1u) << Dump(k);
  EXPECT_EQ(k[0].message, "Killed");
}

// Note: [Markdown escapes]: escaped '_' and '*' are read as printed, in frames and messages; a Windows
// path's own backslash before '_' stays.
TEST(Segmenter, MarkdownEscapesAreUndone) {
  auto v = Segment(
      "Traceback (most recent call last):\n"
      "  File \"C:\\Users\\me\\lib\\site-packages\\torch\\_utils.py\", line 7, in \\_\\_init\\_\\_\n"
      "    return f(\\*\\*kwargs)\n"
      "ImportError: numpy.core.\\_multiarray\\_umath failed to import\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  ASSERT_EQ(v[0].frames.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].frames[0].file, "C:\\Users\\me\\lib\\site-packages\\torch\\_utils.py");
  EXPECT_EQ(v[0].frames[0].function, "__init__");
  EXPECT_EQ(v[0].frames[0].source, "return f(**kwargs)");
  EXPECT_EQ(v[0].message, "numpy.core._multiarray_umath failed to import");
}

// Note: [Level before the time stamp]: a vLLM engine's traceback relogged line by line behind its
// logger's "LEVEL MM-DD HH:MM:SS [file.py:N] " prefix, the paste starting inside it (vllm-project/
// vllm#14452, lines as posted, the site-packages path shortened): the prefix is learned from the first
// line and the frames are read.
TEST(Segmenter, LevelFirstPrefixedFramesAreRead) {
  auto v = Segment(
      "ERROR 04-26 20:27:52 [core.py:390]     engine_core = EngineCoreProc(*args, **kwargs)\n"
      "ERROR 04-26 20:27:52 [core.py:390]   File \"/home/ds/site-packages/vllm/v1/engine/core.py\", line 323, in __init__\n"
      "ERROR 04-26 20:27:52 [core.py:390]     super().__init__(vllm_config, executor_class, log_stats,\n"
      "ERROR 04-26 20:27:52 [core.py:390]   File \"/home/ds/site-packages/vllm/v1/engine/core.py\", line 63, in __init__\n"
      "ERROR 04-26 20:27:52 [core.py:390]     self.model_executor = executor_class(vllm_config)\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].kind, Incident::Kind::kTraceback);
  ASSERT_EQ(v[0].frames.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].frames[0].file, "/home/ds/site-packages/vllm/v1/engine/core.py");
  EXPECT_EQ(v[0].frames[1].source, "self.model_executor = executor_class(vllm_config)");
}

TEST(LogPrefix, RecordHeaders) {
  struct Case {
    const char* line;
    const char* header;  // the prefix RecordHeader finds ("" for none)
  };
  const Case cases[] = {
      {"2024-01-02 10:11:12,345 INFO epoch 1", "2024-01-02 10:11:12,345 INFO "},
      {"2024-01-02 10:11:12,345 INFO     epoch 1", "2024-01-02 10:11:12,345 INFO     "},  // %(levelname)-8s
      {"[2024-01-02 10:11:12] [ERROR] RuntimeError: x", "[2024-01-02 10:11:12] [ERROR] "},
      {"[2024-01-01 12:00:00,123][__main__][INFO] - step 3", "[2024-01-01 12:00:00,123][__main__][INFO] - "},
      {"I1128 10:11:12.345678 12345 file.py:42] Loaded", "I1128 10:11:12.345678 12345 file.py:42] "},
      {"2024-03-02T10:15:31.4812345Z Traceback (most recent call last):", "2024-03-02T10:15:31.4812345Z "},
      {"Mar 02 10:15:31 host python3[48211]: RuntimeError: x", "Mar 02 10:15:31 host python3[48211]: "},
      {"2024-01-02 10:11:12,345 - mmdet - INFO - Epoch [1][50/100]", "2024-01-02 10:11:12,345 - mmdet - INFO - "},
      {"2024-01-02 10:11:12.345 | ERROR    | train:main:42 - boom", "2024-01-02 10:11:12.345 | ERROR    | train:main:42 - "},
      {"[01/02 10:11:12 d2.engine.train_loop]: Starting training", "[01/02 10:11:12 d2.engine.train_loop]: "},
      {"2024-01-02 10:11:12 [rank0]: Traceback (most recent call last):", "2024-01-02 10:11:12 "},
      {"2024-01-02 10:11:12 fatal error: Python.h: No such file", "2024-01-02 10:11:12 "},
      {"2024-01-02 10:11:12 INFO   File \"a.py\", line 3", "2024-01-02 10:11:12 INFO   "},
      // Note: [Level before the time stamp]: vLLM's logger (0.7+ with the location in brackets, before
      // without; lines from vllm-project/vllm#14452 and #6464) and a padded level before asctime.
      {"ERROR 04-26 20:27:52 [core.py:390]     engine_core = EngineCoreProc(*args, **kwargs)",
       "ERROR 04-26 20:27:52 [core.py:390] "},
      {"ERROR 07-16 09:31:45 multiproc_worker_utils.py:226]     self.model_runner.profile_run()",
       "ERROR 07-16 09:31:45 multiproc_worker_utils.py:226] "},
      {"INFO     2024-01-02 10:11:12,345 [train.py:42] epoch 1", "INFO     2024-01-02 10:11:12,345 [train.py:42] "},
      // A level word alone, or before a number that is no time, starts no header.
      {"ERROR 42 items failed", ""},
      {"WARNING: 04-26 is a date", ""},
      // No header: an address, a CSV row, a date in a sentence, a bare time, an exception line.
      {"10.4.158.25 - - [21/Nov/2026:09:00:01 +0000] \"GET / HTTP/1.1\" 200", ""},
      {"2024-01-02,0.5,0.4", ""},
      {"2024-01-02 was the day", ""},
      {"RuntimeError: CUDA error", ""},
      {"12:30", ""},
      {"Epoch 1/10 loss 0.5", ""},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(std::string(c.line).substr(0, LogPrefix::RecordHeader(c.line)), c.header) << c.line;
  }
  // A learned shape matches other levels, digits and locations, and a blank line of the log.
  LogPrefix p;
  ASSERT_GT(p.LearnRecord("2024-01-02 10:11:12,345 INFO train.py:40] epoch 1"), 0u);
  EXPECT_EQ(p.Match("2025-11-30 01:02:03,4 WARNING data.py:7] x"), std::string("2025-11-30 01:02:03,4 WARNING data.py:7] ").size());
  EXPECT_EQ(p.Match("2024-01-02 10:11:12,345 INFO train.py:40]"), std::string("2024-01-02 10:11:12,345 INFO train.py:40]").size());
  EXPECT_EQ(p.Match("2024-01-02 10:11:12,345 Info train.py:40] x"), 0u);
  EXPECT_EQ(p.Match("epoch 1"), 0u);
}

// Match compares a shape's fixed part (literal bytes and digit runs of the learned widths) 8 bytes at
// a time before walking the rest slot by slot (Note: [Learned prefix]); it must answer as the walk alone
// does. Learned from record headers and from text before a traceback header, matched against the
// lines that taught them, with each byte of the line replaced by bytes of every class (digits of other
// widths, letters of either case, separators, a slot's control code, high bytes), cut at every length.
TEST(LogPrefix, FixedPartMatchesAsTheSlotWalk) {
  const char* const teachers[] = {
      "2026-11-21T09:00:04.004Z WARN app.db worker 2502 picked up job",
      "2024-01-02 10:11:12,345 INFO train.py:40] epoch 1",
      "2024-01-02 10:11:12,345 INFO     epoch 1",
      "[2024-01-02 10:11:12] [ERROR] RuntimeError: x",
      "[2024-01-01 12:00:00,123][__main__][INFO] - step 3",
      "I1128 10:11:12.345678 12345 file.py:42] Loaded",
      "2024-03-02T10:15:31.4812345Z Traceback (most recent call last):",
      "Mar 02 10:15:31 host python3[48211]: RuntimeError: x",
      "2024-01-02 10:11:12,345 - mmdet - INFO - Epoch [1][50/100]",
      "2024-01-02 10:11:12.345 | ERROR    | train:main:42 - boom",
      "[01/02 10:11:12 d2.engine.train_loop]: Starting training",
      "9:05:01 ERROR x",
      "12:00:01.123456789012345678901234 x",
      "2024/01/02 10:11:12 +00:00 DEBUG y",
  };
  const char* const before[] = {"[rank0]:[W1128 10:11:12] 12:30:01 ", "0: 2024-01-02 \x01|\x02: ",
                                "host-7 12345 [trainer] 42: "};
  std::vector<LogPrefix> prefixes;
  std::vector<std::string> lines;
  for (const char* t : teachers) {
    LogPrefix p;
    if (p.LearnRecord(t) > 0) prefixes.push_back(p);
    lines.push_back(t);
  }
  for (const char* b : before) {
    const std::string line = std::string(b) + "Traceback (most recent call last):";
    LogPrefix p;
    if (p.LearnBefore(line, std::string(b).size()) > 0) prefixes.push_back(p);
    lines.push_back(line);
  }
  ASSERT_GE(prefixes.size(), 14u);
  // sizeof keeps the array's terminating NUL: a NUL byte is one of the replacements.
  static const char kReplacements[] = "0795aZzT-:. |,[]\t\x01\x02\x05";
  const std::string replacements = std::string(kReplacements, sizeof kReplacements) + "\xc3\x80";
  size_t matched = 0, compared = 0;
  for (const LogPrefix& p : prefixes) {
    for (const std::string& line : lines) {
      std::vector<std::string> variants = {line, "1" + line, line.substr(1)};
      for (size_t i = 0; i < std::min<size_t>(line.size(), 40); ++i) {
        for (char c : replacements) {
          std::string v = line;
          v[i] = c;
          variants.push_back(v);
        }
        variants.push_back(line.substr(0, i) + line.substr(i + 1));  // a digit run one shorter, ...
        variants.push_back(line.substr(0, i) + "7" + line.substr(i));  // ... or one longer
      }
      for (const std::string& v : variants) {
        for (size_t cut = 0; cut <= v.size(); ++cut) {
          const std::string_view text = std::string_view(v).substr(0, cut);
          const size_t fast = p.Match(text);
          ASSERT_EQ(fast, p.MatchBySteps(text)) << "shape learned from a line; text: " << text;
          ++compared;
          matched += fast > 0;
        }
      }
    }
  }
  // The level slot takes the eleven level words in capitals, nothing else.
  LogPrefix level;
  ASSERT_GT(level.LearnRecord("2024-01-02 10:11:12,345 INFO epoch 1"), 0u);
  for (const char* word : {"DEBUG", "INFO", "WARN", "WARNING", "ERROR", "CRITICAL", "FATAL", "TRACE", "NOTICE",
                           "SUCCESS", "EXCEPTION"}) {
    const std::string header = std::string("2025-12-31 23:59:59,9 ") + word + " ";
    EXPECT_EQ(level.Match(header + "x"), header.size()) << word;
  }
  for (const char* word : {"Info", "INFOS", "INF", "WARNINGX", "EXCEPTIONS", "CRITICAl", "INFO_", "INFO1", "WARNINg",
                           "ABCDEFGHIJ", "DEBUGGING", "NOTICED"}) {
    EXPECT_EQ(level.Match(std::string("2025-12-31 23:59:59,9 ") + word + " x"), 0u) << word;
  }
  // Both answers occur often (most lines are of another shape than the one learned).
  EXPECT_GT(matched, compared / 200) << compared;
  EXPECT_LT(matched, compared / 2) << compared;
}

// Regression: another rank's progress line inside rank 3's traceback ended it, and a source line
// became the message (corpus/formats/rank-prefix-2x); `srun --label` task prefixes ("2: ") were not
// rank prefixes at all (corpus/formats/slurm-srun-label).
TEST(Segmenter, OtherRanksLinesDoNotBreakATraceback) {
  auto v = Segment(
      "[rank3]: Traceback (most recent call last):\n"
      "[rank0]: step 3 loss 0.0464\n"
      "[rank3]:   File \"/w/program.py\", line 13, in <module>\n"
      "[rank1]: step 3 loss 0.0554\n"
      "[rank3]:     loss = model(torch.randn(16, width)).pow(2).mean()\n"
      "[rank3]: RuntimeError: mat1 and mat2 shapes cannot be multiplied (16x31 and 32x64)\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].rank, "3");
  EXPECT_EQ(v[0].message, "mat1 and mat2 shapes cannot be multiplied (16x31 and 32x64)");
  EXPECT_EQ(v[0].CulpritText(), "program.py:13 in <module>: loss = model(torch.randn(16, width)).pow(2).mean()");

  auto s = Segment(
      "2: Traceback (most recent call last):\n"
      "3: step 0: loss 1.8340\n"
      "2:   File \"/w/program.py\", line 14, in <module>\n"
      " 0: step 1: loss 1.7657\n"
      "2:     loss = nn.functional.nll_loss(out, targets)\n"
      "2: IndexError: Target -3 is out of bounds.\n"
      "srun: error: cpu-node-03: task 2: Exited with exit code 1\n");
  ASSERT_EQ(s.size(), 1u) << Dump(s);
  EXPECT_EQ(s[0].rank, "2");
  EXPECT_EQ(s[0].exception, "IndexError");
  EXPECT_EQ(s[0].message, "Target -3 is out of bounds.");
  EXPECT_EQ(s[0].CulpritText(), "program.py:14 in <module>: loss = nn.functional.nll_loss(out, targets)");
}

// Regression: IPython's frames ("Cell In [5], line 3, in predict(images)", "File /path.py:1194, in
// f(...)", the "---->" arrow on the line that ran) were not frames, so a notebook error had no culprit
// (corpus/formats/ipython-cell-nocolor, ipython-cell-ansi, ipython-run-script).
TEST(Segmenter, IPythonTracebackFramesAndCulprit) {
  auto v = Segment(
      "In [6]: ---------------------------------------------------------------------------\n"
      "RuntimeError                              Traceback (most recent call last)\n"
      "Cell In [6], line 1\n"
      "----> 1 predict(torch.randn(2, 3, 28, 28))\n"
      "\n"
      "Cell In [5], line 3, in predict(images)\n"
      "      1 def predict(images):\n"
      "      2     feats = encoder(images)\n"
      "----> 3     return head(feats)\n"
      "\n"
      "File /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:114, in Linear.forward(self, input)\n"
      "    113 def forward(self, input: Tensor) -> Tensor:\n"
      "--> 114     return F.linear(input, self.weight, self.bias)\n"
      "\n"
      "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x10816 and 14400x10)\n"
      "\n"
      "In [7]: Do you really want to exit ([y]/n)?\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].kind, Incident::Kind::kTraceback);
  EXPECT_EQ(v[0].exception, "RuntimeError");
  EXPECT_EQ(v[0].message, "mat1 and mat2 shapes cannot be multiplied (2x10816 and 14400x10)");
  ASSERT_EQ(v[0].frames.size(), 3u) << Dump(v);
  EXPECT_EQ(v[0].frames[2].function, "Linear.forward");
  EXPECT_FALSE(v[0].frames[2].user);
  EXPECT_EQ(v[0].CulpritText(), "In [5]:3 in predict: return head(feats)");

  // IPython < 8: no line number in the frame header, only on the arrow.
  auto old = Segment(
      "RuntimeError                              Traceback (most recent call last)\n"
      "<ipython-input-3-1b2c3d> in <module>\n"
      "      1 x = torch.ones(3)\n"
      "----> 2 y = x.view(2, 2)\n"
      "\n"
      "RuntimeError: shape '[2, 2]' is invalid for input of size 3\n");
  ASSERT_EQ(old.size(), 1u) << Dump(old);
  EXPECT_EQ(old[0].CulpritText(), "<ipython-input-3-1b2c3d>:2 in <module>: y = x.view(2, 2)");

  // The same pasted as a Markdown code block indented by four spaces (Note: [Indented tracebacks]): the
  // exception line is the header's indentation, not one more source line.
  auto indented = Segment(
      "    RuntimeError                              Traceback (most recent call last)\n"
      "    <ipython-input-3-1b2c3d> in <module>\n"
      "          1 x = torch.ones(3)\n"
      "    ----> 2 y = x.view(2, 2)\n"
      "\n"
      "    RuntimeError: shape '[2, 2]' is invalid for input of size 3\n");
  ASSERT_EQ(indented.size(), 1u) << Dump(indented);
  EXPECT_EQ(indented[0].exception, "RuntimeError");
  EXPECT_EQ(indented[0].message, "shape '[2, 2]' is invalid for input of size 3");
}

// Note: [Cut IPython tracebacks]: a notebook paste cut before its exception line keeps the type its header
// named (corpus/wild/index/sentence-camembert-encode-long-text-position-embeddings-jupyter, which the stored
// copy cuts inside the third frame); a plain traceback cut the same way has no type to keep.
TEST(Segmenter, IPythonTracebackCutKeepsHeaderType) {
  auto v = Segment(
      "IndexError                                Traceback (most recent call last)\n"
      "/var/folders/vk/qdyvc5xx4nv6nmlzhfvc1p4sf_xqvd/T/ipykernel_6448/1081646493.py in <module>\n"
      "      1 sentences = dataset_cleaned['all_text']\n"
      "      2 \n"
      "----> 3 sentence_embeddings = model.encode(sentences)\n"
      "\n"
      "~/Desktop/projects/venv/lib/python3.7/site-packages/sentence_transformers/SentenceTransformer.py in "
      "encode(self, sentences, batch_size, show_progress_bar, output_value, convert_to_numpy, convert_to_tensor, "
      "device, normalize_embeddings)\n"
      "    162 \n"
      "    163             with torch.no_grad():\n"
      "--> 164                 out_features = self.forward(features)\n"
      "    165 \n"
      "    166                 if output_value == 'token_embeddings':\n"
      "\n"
      "~/Desktop/projects/venv/lib/python3.7/site-packages/torch/nn/modules/container.py in forward(self, input)\n"
      "    139     def forward(self, input):\n"
      "    140         for module i");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].kind, Incident::Kind::kTraceback);
  EXPECT_EQ(v[0].exception, "IndexError");
  EXPECT_EQ(v[0].message, "out_features = self.forward(features)");
  EXPECT_EQ(v[0].frames.size(), 3u) << Dump(v);

  auto plain = Segment(
      "Traceback (most recent call last):\n"
      "  File \"E:\\MaterialSearch_tmp\\MaterialSearchWindows\\main.py\", line 13, in <module>\n"
      "    from process_assets import match_text_and_image, process_image, process_text\n"
      "  File \"E:\\MaterialSearch_tmp\\MaterialSearchWindows\\process_assets.py\", line 9, in <module>\n"
      "    import torch\n"
      "  File \"E:\\MaterialSearch_tmp\\MaterialSearchWindows\\lib\\site-packages\\torch\\__init__.py\", line 148, in <module>\n"
      "    raise err\n");
  ASSERT_EQ(plain.size(), 1u) << Dump(plain);
  EXPECT_EQ(plain[0].exception, "");
  EXPECT_EQ(plain[0].message, "raise err");
}

// Note: [Cython frames in notebooks]: a Colab traceback whose innermost frame is a compiled Cython module's
// ("numpy/random/mtrand.pyx in init numpy.random.mtrand()", the form of corpus/wild/env/birefnet-202-...) keeps
// it as a frame, so a paste cut before the exception line reads as cut with the header's type, and the
// exception line below it is the message.
TEST(Segmenter, IPythonCythonFrame) {
  const std::string head =
      "ValueError                                Traceback (most recent call last)\n"
      "[<ipython-input-3-0c54302c25ea>](https://localhost:8080/#) in <cell line: 0>()\n"
      "----> 4 from torchvision import transforms\n"
      "\n"
      "11 frames\n"
      "[/usr/local/lib/python3.11/dist-packages/numpy/random/_pickle.py](https://localhost:8080/#) in <module>\n"
      "----> 1 from .mtrand import RandomState\n"
      "\n"
      "numpy/random/mtrand.pyx in init numpy.random.mtrand()\n"
      "\n";
  auto cut = Segment(head);
  ASSERT_EQ(cut.size(), 1u) << Dump(cut);
  EXPECT_EQ(cut[0].exception, "ValueError");
  EXPECT_TRUE(cut[0].CutBeforeExceptionLine()) << cut[0].message;
  ASSERT_EQ(cut[0].frames.size(), 3u) << Dump(cut);
  EXPECT_EQ(cut[0].frames[2].file, "numpy/random/mtrand.pyx");
  EXPECT_EQ(cut[0].frames[2].function, "init numpy.random.mtrand");
  auto whole = Segment(head + "ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject\n");
  ASSERT_EQ(whole.size(), 1u) << Dump(whole);
  EXPECT_EQ(whole[0].exception, "ValueError");
  EXPECT_EQ(whole[0].frames.size(), 3u) << Dump(whole);
  // prose with " in " is no frame
  auto prose = Segment("ValueError                                Traceback (most recent call last)\n"
                       "see notes.pyx in the docs\n");
  ASSERT_FALSE(prose.empty());
  EXPECT_EQ(prose[0].frames.size(), 0u) << Dump(prose);
}

// Note: [Headerless IPython frames]: a notebook paste that starts at an IPython >= 8 frame line (the
// forms of three corpus/wild pastes: faster-rcnn-tutorial-7-classes-without-background-jupyter's Windows
// path under ~ with a cut-free signature, transformers-21391's absolute path, a "Cell In[...]" line)
// is read as a traceback with its frames; an indented one, a warning's "path.py:N:" and prose are not.
TEST(Segmenter, IPythonTracebackWithoutHeader) {
  auto win = Segment(
      "File ~\\Documents\\proj\\venv\\lib\\site-packages\\torch\\nn\\functional.py:2846, in cross_entropy(input, "
      "target, weight, size_average, ignore_index, reduce, reduction, label_smoothing)\n"
      "   2844 if size_average is not None or reduce is not None:\n"
      "   2845     reduction = _Reduction.legacy_get_string(size_average, reduce)\n"
      "-> 2846 return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), "
      "ignore_index, label_smoothing)\n"
      "\n"
      "IndexError: Target 1 is out of bounds.\n");
  ASSERT_EQ(win.size(), 1u) << Dump(win);
  EXPECT_EQ(win[0].kind, Incident::Kind::kTraceback);
  EXPECT_EQ(win[0].exception, "IndexError");
  EXPECT_EQ(win[0].message, "Target 1 is out of bounds.");
  ASSERT_EQ(win[0].frames.size(), 1u) << Dump(win);
  EXPECT_EQ(win[0].frames[0].function, "cross_entropy");
  EXPECT_EQ(win[0].frames[0].line, 2846);
  EXPECT_FALSE(win[0].frames[0].user);
  EXPECT_EQ(win[0].line_start, 1);

  auto cell = Segment(
      "Cell In[12], line 7, in train(model, loader)\n"
      "      5 for x, y in loader:\n"
      "----> 7     loss = criterion(model(x), y)\n"
      "\n"
      "File /usr/local/lib/python3.10/dist-packages/torch/nn/modules/linear.py:114, in Linear.forward(self, input)\n"
      "--> 114     return F.linear(input, self.weight, self.bias)\n"
      "\n"
      "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x10816 and 14400x10)\n");
  ASSERT_EQ(cell.size(), 1u) << Dump(cell);
  EXPECT_EQ(cell[0].exception, "RuntimeError");
  ASSERT_EQ(cell[0].frames.size(), 2u) << Dump(cell);
  EXPECT_EQ(cell[0].CulpritText(), "In[12]:7 in train: loss = criterion(model(x), y)");

  // A header whose type does not end in Error (torch._dynamo's CacheLimitExceeded, heavyball's paste)
  // starts the traceback at the header, as IPython pads it; unpadded, such a name is prose.
  auto named = Segment(
      "CacheLimitExceeded                        Traceback (most recent call last)\n"
      "Cell In[21], line 5\n"
      "----> 5     result, stats = train_run(1e-3)\n"
      "\n"
      "CacheLimitExceeded: cache_size_limit reached\n");
  ASSERT_EQ(named.size(), 1u) << Dump(named);
  EXPECT_EQ(named[0].exception, "CacheLimitExceeded");
  EXPECT_EQ(named[0].line_start, 1);
  for (const Incident& inc : Segment("Something Traceback (most recent call last)\n")) {
    EXPECT_NE(inc.kind, Incident::Kind::kTraceback) << Dump(Segment("Something Traceback (most recent call last)\n"));
  }

  // Not frame lines: indented (a source line or a quote), a warning's location, prose naming a file.
  for (const char* text : {
           "  File /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:114, in Linear.forward(self, input)\n",
           "/usr/lib/python3/dist-packages/torch/nn/modules/module.py:1501: UserWarning: something\n",
           "File train.py:12, in main() is where it stops\n",
           "Cell In[3] looked fine to me\n"}) {
    for (const Incident& inc : Segment(text)) EXPECT_TRUE(inc.frames.empty()) << text << Dump(Segment(text));
  }
}

// Regression: nbclient's CellExecutionError (whose message holds the kernel's IPython traceback) was
// the primary incident, and the repeated last line was a third incident (corpus/formats/nbconvert-cell-error).
TEST(Segmenter, CellExecutionErrorWrapsTheKernelTraceback) {
  auto v = Segment(
      "Traceback (most recent call last):\n"
      "  File \"/usr/lib/python3/dist-packages/nbclient/client.py\", line 915, in _check_raise_for_error\n"
      "    raise CellExecutionError.from_cell_and_msg(cell, exec_reply_content)\n"
      "nbclient.exceptions.CellExecutionError: An error occurred while executing the following cell:\n"
      "------------------\n"
      "scores = model(tokens)\n"
      "------------------\n"
      "\n"
      "---------------------------------------------------------------------------\n"
      "RuntimeError                              Traceback (most recent call last)\n"
      "Cell In [2], line 10, in Tagger.forward(self, tokens)\n"
      "---> 10     return self.out(hidden)\n"
      "\n"
      "RuntimeError: mat1 and mat2 shapes cannot be multiplied (48x64 and 128x5)\n"
      "RuntimeError: mat1 and mat2 shapes cannot be multiplied (48x64 and 128x5)\n");
  ASSERT_EQ(v.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].exception, "nbclient.exceptions.CellExecutionError");
  EXPECT_EQ(v[0].caused_by, 1);
  EXPECT_EQ(v[1].CulpritText(), "In [2]:10 in Tagger.forward: return self.out(hidden)");
  EXPECT_EQ(v[1].line_end, 15) << "the repeated exception line is the same failure";
}

// Regression: pytest's report ("E       RuntimeError: ...", "test_x.py:16: " locations, "path:1194: in
// f" short frames) was not parsed: the "E" marker stayed in the message, with no type and no culprit
// (corpus/formats/pytest-e-lines).
TEST(Segmenter, PytestReportOneIncidentPerFailingTest) {
  auto v = Segment(
      "=================================== FAILURES ===================================\n"
      "______________________________ test_forward_shape ______________________________\n"
      "\n"
      "    def test_forward_shape():\n"
      "        model = build_classifier()\n"
      ">       out = model(grayscale)\n"
      "\n"
      "test_classifier.py:16: \n"
      "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \n"
      "/usr/lib/python3/dist-packages/torch/nn/modules/module.py:1194: in _call_impl\n"
      "    return forward_call(*input, **kwargs)\n"
      "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \n"
      "\n"
      "self = Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))\n"
      ">       return F.conv2d(input, weight, bias, self.stride,\n"
      "                        self.padding, self.dilation, self.groups)\n"
      "E       RuntimeError: Given groups=1, weight of size [8, 3, 3, 3], expected input[2, 1, 32, 32] to have 3 "
      "channels, but got 1 channels instead\n"
      "\n"
      "/usr/lib/python3/dist-packages/torch/nn/modules/conv.py:459: RuntimeError\n"
      "_________________________________ test_loss __________________________________\n"
      "\n"
      ">       assert loss.item() < 1.0\n"
      "E       assert 2.5 < 1.0\n"
      "\n"
      "test_classifier.py:30: AssertionError\n"
      "=========================== short test summary info ============================\n"
      "FAILED test_classifier.py::test_forward_shape - RuntimeError: Given groups=1,...\n");
  ASSERT_EQ(v.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].exception, "RuntimeError");
  EXPECT_EQ(v[0].message.rfind("Given groups=1, weight of size [8, 3, 3, 3]", 0), 0u) << v[0].message;
  ASSERT_EQ(v[0].frames.size(), 3u) << Dump(v);
  EXPECT_EQ(v[0].frames[1].function, "_call_impl");
  EXPECT_EQ(v[0].frames[1].source, "return forward_call(*input, **kwargs)");
  EXPECT_EQ(v[0].CulpritText(), "test_classifier.py:16: out = model(grayscale)");
  EXPECT_EQ(v[1].exception, "AssertionError");
  EXPECT_EQ(v[1].message, "assert 2.5 < 1.0");
  EXPECT_EQ(v[1].CulpritText(), "test_classifier.py:30: assert loss.item() < 1.0");
}

// Regression: a traceback flattened onto one line with literal "\n" (a scheduler's error field) or
// inside a JSON log record ("\n", "\"" and "\\n" escapes) was one log line or nothing
// (corpus/formats/literal-newlines-one-line, json-escaped-newlines).
TEST(Segmenter, FlattenedTracebacksAreSplit) {
  auto v = Segment(
      "job 4711 state=FAILED exit=1 error=\"Traceback (most recent call last):\\n  File \"/w/program.py\", line 8, "
      "in <module>\\n    hidden = decoder(tokens)\\nRuntimeError: Expected tensor for argument #1 'indices' to have "
      "one of the following scalar types: Long, Int; but got torch.FloatTensor instead\"\n"
      "next line\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].exception, "RuntimeError");
  EXPECT_EQ(v[0].message.back(), 'd') << "the closing quote is not part of the message: " << v[0].message;
  EXPECT_EQ(v[0].CulpritText(), "program.py:8 in <module>: hidden = decoder(tokens)");
  EXPECT_EQ(v[0].line_start, 1);
  EXPECT_EQ(v[0].line_end, 1);

  auto j = Segment(
      "{\"level\": \"ERROR\", \"msg\": \"restore failed\", \"exc\": \"Traceback (most recent call last):\\n  File "
      "\\\"/w/program.py\\\", line 29, in <module>\\n    model.load_state_dict(state)\\n  File "
      "\\\"/usr/lib/python3/dist-packages/torch/nn/modules/module.py\\\", line 1671, in load_state_dict\\n    raise "
      "RuntimeError('Error(s) in loading state_dict for {}:\\\\n\\\\t{}'.format(\\nRuntimeError: Error(s) in loading "
      "state_dict for Sequential:\\n\\tMissing key(s) in state_dict: \\\"0.weight\\\". \\n\", \"pid\": 7}\n");
  ASSERT_EQ(j.size(), 1u) << Dump(j);
  EXPECT_EQ(j[0].exception, "RuntimeError");
  EXPECT_EQ(j[0].message, "Error(s) in loading state_dict for Sequential:\n\tMissing key(s) in state_dict: \"0.weight\". ");
  EXPECT_EQ(j[0].frames[1].source, "raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(");
  EXPECT_EQ(j[0].CulpritText(), "program.py:29 in <module>: model.load_state_dict(state)");
}

// Regression: torchrun's own ChildFailedError traceback counted as another incident next to the ranks'
// failures it wraps, and a SIGKILLed rank (which prints nothing) was no incident at all
// (corpus/formats/torchrun-identical-ranks, torchrun-tee-one-rank, torchrun-rank-sigkill).
TEST(Segmenter, ChildFailedErrorWrapsTheRootCauseRank) {
  const std::string wrapper =
      "Traceback (most recent call last):\n"
      "  File \"/usr/lib/python3/dist-packages/torch/distributed/launcher/api.py\", line 246, in launch_agent\n"
      "    raise ChildFailedError(\n"
      "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
      "============================================================\n"
      "train.py FAILED\n"
      "------------------------------------------------------------\n"
      "Failures:\n"
      "[1]:\n"
      "  rank      : 1 (local_rank: 1)\n"
      "  exitcode  : -9 (pid: 20705)\n"
      "  traceback : Signal 9 (SIGKILL) received by PID 20705\n"
      "------------------------------------------------------------\n"
      "Root Cause (first observed failure):\n"
      "[0]:\n"
      "  rank      : 0 (local_rank: 0)\n"
      "  exitcode  : 1 (pid: 20704)\n"
      "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
      "============================================================\n";
  const std::string rank0 =
      "[default0]:Traceback (most recent call last):\n"
      "[default0]:  File \"/w/train.py\", line 20, in main\n"
      "[default0]:    dist.barrier()\n"
      "[default0]:RuntimeError: [./gloo/transport/tcp/pair.cc:589] Read error [127.0.0.1]:9617: Connection reset by peer\n";
  auto v = Segment(rank0 + wrapper);
  ASSERT_EQ(v.size(), 3u) << Dump(v);
  EXPECT_EQ(v[2].exception, "");
  EXPECT_EQ(v[2].message, "Signal 9 (SIGKILL) received by PID 20705");
  EXPECT_EQ(v[2].rank, "1");
  EXPECT_EQ(v[1].caused_by, 2) << "the wrapper's cause is the killed rank";
  EXPECT_EQ(v[0].caused_by, 2) << "the peer's connection error is a consequence of the kill";

  // Without a signal, the wrapper's cause is the root-cause rank's own incident.
  std::string no_signal = wrapper;
  no_signal.replace(no_signal.find("  exitcode  : -9"), 16, "  exitcode  : 1 ");
  no_signal.replace(no_signal.find("Signal 9 (SIGKILL) received by PID 20705"), 40, "To enable traceback see: x");
  auto w = Segment(rank0 + no_signal);
  ASSERT_EQ(w.size(), 2u) << Dump(w);
  EXPECT_EQ(w[1].caused_by, 0);
  EXPECT_EQ(w[0].caused_by, -1);
}

// Regression: an ExceptionGroup's "|"-prefixed sub-tracebacks were bare lines "| RuntimeError: ..." with no
// frames, and the group itself was the primary incident (corpus/formats/exception-group).
TEST(Segmenter, ExceptionGroupSubExceptionsAreIncidents) {
  auto v = Segment(
      "  + Exception Group Traceback (most recent call last):\n"
      "  |   File \"/w/program.py\", line 15, in main\n"
      "  |     async with asyncio.TaskGroup() as tg:\n"
      "  | ExceptionGroup: unhandled errors in a TaskGroup (2 sub-exceptions)\n"
      "  +-+---------------- 1 ----------------\n"
      "    | Traceback (most recent call last):\n"
      "    |   File \"/w/program.py\", line 11, in embed\n"
      "    |     return shard @ weights\n"
      "    |            ~~~~~~^~~~~~~~~\n"
      "    | RuntimeError: mat1 and mat2 shapes cannot be multiplied (10x100 and 128x64)\n"
      "    +---------------- 2 ----------------\n"
      "    | Traceback (most recent call last):\n"
      "    |   File \"/w/program.py\", line 11, in embed\n"
      "    |     return shard @ weights\n"
      "    | RuntimeError: mat1 and mat2 shapes cannot be multiplied (10x96 and 128x64)\n"
      "    +------------------------------------\n");
  ASSERT_EQ(v.size(), 3u) << Dump(v);
  EXPECT_EQ(v[0].exception, "ExceptionGroup");
  EXPECT_EQ(v[0].caused_by, 1) << "the group's cause is its first sub-exception";
  EXPECT_EQ(v[1].message, "mat1 and mat2 shapes cannot be multiplied (10x100 and 128x64)");
  EXPECT_EQ(v[1].CulpritText(), "program.py:11 in embed: return shard @ weights");
  EXPECT_EQ(v[2].message, "mat1 and mat2 shapes cannot be multiplied (10x96 and 128x64)");
  EXPECT_EQ(v[2].caused_by, -1);
}

// Regression: torch.multiprocessing.spawn's ProcessRaisedException (empty message, the child's traceback
// after "-- Process 1 terminated with the following error:") was the primary incident and the child's
// traceback an unlinked second one (corpus/formats/mp-spawn-process-raised).
TEST(Segmenter, SpawnProcessRaisedExceptionWrapsTheChild) {
  auto v = Segment(
      "Traceback (most recent call last):\n"
      "  File \"/w/program.py\", line 16, in <module>\n"
      "    mp.spawn(worker, args=(2,), nprocs=2, join=True)\n"
      "torch.multiprocessing.spawn.ProcessRaisedException: \n"
      "\n"
      "-- Process 1 terminated with the following error:\n"
      "Traceback (most recent call last):\n"
      "  File \"/w/program.py\", line 12, in worker\n"
      "    print(model(ids).shape)\n"
      "IndexError: index out of range in self\n");
  ASSERT_EQ(v.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].message, "-- Process 1 terminated with the following error:");
  EXPECT_EQ(v[0].caused_by, 1);
  EXPECT_EQ(v[1].exception, "IndexError");
  EXPECT_EQ(v[1].CulpritText(), "program.py:12 in worker: print(model(ids).shape)");
}

// Regression: a TorchScript interpreter report was one incident "The following operation failed in the
// TorchScript interpreter." (C++: std::runtime_error with the what() prefix) and its last
// "RuntimeError: ..." line another; the original-code frame was lost (corpus/formats/cpp-torchscript-runtime).
TEST(Segmenter, TorchScriptReportYieldsTheInnerError) {
  // Python 3.11, torch 1.13.1, a module scripted in the same process.
  auto v = Segment(
      "Traceback (most recent call last):\n"
      "  File \"/tmp/ts_py.py\", line 6, in <module>\n"
      "    m(torch.randn(2, 300))\n"
      "  File \"/usr/lib/python3/dist-packages/torch/nn/modules/module.py\", line 1194, in _call_impl\n"
      "    return forward_call(*input, **kwargs)\n"
      "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "RuntimeError: The following operation failed in the TorchScript interpreter.\n"
      "Traceback of TorchScript (most recent call last):\n"
      "  File \"/tmp/ts_py.py\", line 4, in forward\n"
      "    def forward(self, image: torch.Tensor) -> torch.Tensor:\n"
      "        return image.reshape(image.size(0), -1, 48)\n"
      "               ~~~~~~~~~~~~~ <--- HERE\n"
      "RuntimeError: shape '[2, -1, 48]' is invalid for input of size 600\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].exception, "RuntimeError");
  EXPECT_EQ(v[0].message, "shape '[2, -1, 48]' is invalid for input of size 600");
  EXPECT_EQ(v[0].CulpritText(), "ts_py.py:4 in forward: return image.reshape(image.size(0), -1, 48)");
  ASSERT_FALSE(v[0].context.empty());
  EXPECT_EQ(v[0].context.back(), "The following operation failed in the TorchScript interpreter.");
  EXPECT_EQ(v[0].line_end, 13);

  // LibTorch: an uncaught std::runtime_error of a module exported from Python (serialized + original code).
  auto c = Segment(
      "terminate called after throwing an instance of 'std::runtime_error'\n"
      "  what():  The following operation failed in the TorchScript interpreter.\n"
      "Traceback of TorchScript, serialized code (most recent call last):\n"
      "  File \"code/__torch__.py\", line 9, in forward\n"
      "    patches = torch.reshape(image, [torch.size(image, 0), -1, 48])\n"
      "              ~~~~~~~~~~~~~ <--- HERE\n"
      "\n"
      "Traceback of TorchScript, original code (most recent call last):\n"
      "  File \"/w/export.py\", line 14, in forward\n"
      "        patches = image.reshape(image.size(0), -1, 48)\n"
      "                  ~~~~~~~~~~~~~ <--- HERE\n"
      "RuntimeError: shape '[2, -1, 48]' is invalid for input of size 600\n"
      "\n"
      "Aborted\n");
  ASSERT_EQ(c.size(), 1u) << Dump(c);
  EXPECT_EQ(c[0].exception, "RuntimeError");
  EXPECT_EQ(c[0].message, "shape '[2, -1, 48]' is invalid for input of size 600");
  EXPECT_EQ(c[0].CulpritText(), "export.py:14 in forward: patches = image.reshape(image.size(0), -1, 48)");
}

// Note: [Handled]. corpus/formats/caught-then-fatal: an error caught and logged with logging.exception,
// then more training output, then the error that ended the run. The first is marked handled so the ranker
// can prefer the fatal one. A traceback announced by "Exception ignored in:" (CPython's unraisable hook)
// is handled itself and says nothing about the others. Text: Python 3.11, torch 1.13.1.
TEST(Segmenter, CaughtErrorFollowedByOutputIsHandled) {
  const std::string text =
      "ERROR step 1: skipping bad batch\n"
      "Traceback (most recent call last):\n"
      "  File \"/w/ign.py\", line 8, in <module>\n"
      "    torch.ones(3).view(2, 2)\n"
      "RuntimeError: shape '[2, 2]' is invalid for input of size 3\n"
      "INFO step 2: loss 1.0955\n"
      "Exception ignored in: <function Holder.__del__ at 0x7fd3674bef20>\n"
      "Traceback (most recent call last):\n"
      "  File \"/w/ign.py\", line 5, in __del__\n"
      "    raise RuntimeError(\"closing the shard writer failed\")\n"
      "RuntimeError: closing the shard writer failed\n"
      "Traceback (most recent call last):\n"
      "  File \"/w/ign.py\", line 13, in <module>\n"
      "    torch.zeros(2, 3) @ torch.zeros(4, 5)\n"
      "    ~~~~~~~~~~~~~~~~~~^~~~~~~~~~~~~~~~~~~\n"
      "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)\n";
  auto v = Segment(text);
  ASSERT_EQ(v.size(), 3u) << Dump(v);
  EXPECT_TRUE(v[0].handled) << "the run went on after it";
  EXPECT_TRUE(v[1].handled) << "ignored by the interpreter";
  EXPECT_FALSE(v[2].handled) << "the fatal one";

  // Without output in between (two processes failing, a chain), nothing is marked.
  auto w = Segment(
      "Traceback (most recent call last):\n  File \"/w/a.py\", line 1, in <module>\n    f()\nValueError: a\n"
      "\n"
      "Traceback (most recent call last):\n  File \"/w/b.py\", line 1, in <module>\n    g()\nKeyError: 'b'\n");
  ASSERT_EQ(w.size(), 2u) << Dump(w);
  EXPECT_FALSE(w[0].handled);
  EXPECT_FALSE(w[1].handled);
}

// Regression: two processes' tracebacks interleaved line by line without prefixes were merged into one
// frame list, so the culprit came from the other traceback (corpus/formats/interleaved-ranks).
TEST(Segmenter, InterleavedTracebacksAreSeparated) {
  auto v = Segment(
      "Traceback (most recent call last):\n"
      "Traceback (most recent call last):\n"
      "  File \"/w/program.py\", line 19, in <module>\n"
      "  File \"/w/program.py\", line 21, in <module>\n"
      "    step(torch.randn(4, 3, 32, 32), torch.tensor([1, 2, 3, 10]))\n"
      "    step(torch.randn(4, 3, 32), torch.tensor([1, 2, 3, 4]))\n"
      "  File \"/w/program.py\", line 15, in step\n"
      "  File \"/w/program.py\", line 14, in step\n"
      "    return nn.functional.cross_entropy(head(features), labels)\n"
      "    features = encoder(images).mean(dim=(2, 3))\n"
      "IndexError: Target 10 is out of bounds.\n"
      "  File \"/usr/lib/python3/dist-packages/torch/nn/modules/conv.py\", line 459, in _conv_forward\n"
      "    return F.conv2d(input, weight, bias, self.stride,\n"
      "RuntimeError: Given groups=1, weight of size [16, 3, 3, 3], expected input[1, 4, 3, 32] to have 3 "
      "channels, but got 4 channels instead\n");
  ASSERT_EQ(v.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].exception, "IndexError");
  EXPECT_EQ(v[0].line_start, 1);
  EXPECT_EQ(v[0].CulpritText(), "program.py:15 in step: return nn.functional.cross_entropy(head(features), labels)");
  EXPECT_EQ(v[1].exception, "RuntimeError");
  EXPECT_EQ(v[1].line_start, 2);
  EXPECT_EQ(v[1].CulpritText(), "program.py:14 in step: features = encoder(images).mean(dim=(2, 3))");
  ASSERT_EQ(v[1].frames.size(), 3u);
}

// Regression: rich's boxed frames ("│ /path/program.py:12 in encode │", "❱ 12 │   return ...") were not
// frames, so the incident had no culprit (corpus/formats/rich-traceback; rich 13.3.1).
TEST(Segmenter, RichBoxedTraceback) {
  auto v = Segment(
      "╭───────────────────── Traceback (most recent call last) ─────────────────────╮\n"
      "│ /w/program.py:12 in encode                                                   │\n"
      "│                                                                              │\n"
      "│   11 def encode(token_ids):                                                  │\n"
      "│ ❱ 12 │   return embedding(token_ids).mean(dim=1)                             │\n"
      "│   13                                                                         │\n"
      "│                                                                              │\n"
      "│ /usr/lib/python3/dist-packages/torch/nn/functional.py:2210 in embedding      │\n"
      "│                                                                              │\n"
      "│ ❱ 2210 │   return torch.embedding(weight, input, padding_idx, scale_grad_by_ │\n"
      "╰──────────────────────────────────────────────────────────────────────────────╯\n"
      "IndexError: index out of range in self\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].exception, "IndexError");
  EXPECT_EQ(v[0].message, "index out of range in self");
  ASSERT_EQ(v[0].frames.size(), 2u) << Dump(v);
  EXPECT_FALSE(v[0].frames[1].user);
  EXPECT_EQ(v[0].CulpritText(), "program.py:12 in encode: return embedding(token_ids).mean(dim=1)");
}

// Regression: under rich's logging handler (RichHandler(rich_tracebacks=True), logger.exception()) the box
// and the exception line under it are indented to the record's message column; the indented exception
// line was read as a source line, so the incident had no message (Note: [rich tracebacks]; real output of
// corpus/formats/rich-handler-traceback/program.py at 120 columns, rich 13.3.1; its 80-column log is the
// corpus case, where the exception line wraps too). The next record, at another indentation, is no part
// of the message.
TEST(Segmenter, RichHandlerTracebackKeepsItsIndentedExceptionLine) {
  auto v = Segment(
      "[11/28/26 10:40:23] INFO     starting training                                                             program.py:22\n"
      "                    ERROR    training step failed                                                          program.py:26\n"
      "                             ╭──────────────────── Traceback (most recent call last) ────────────────────╮\n"
      "                             │ /work/wt/rules-crash/corpus/formats/rich-handler-traceback/program.py:24  │\n"
      "                             │ in <module>                                                               │\n"
      "                             │                                                                           │\n"
      "                             │ ❱ 24 │   train_step(images)                                               │\n"
      "                             │                                                                           │\n"
      "                             │ /work/wt/rules-crash/corpus/formats/rich-handler-traceback/program.py:19  │\n"
      "                             │ in train_step                                                             │\n"
      "                             │                                                                           │\n"
      "                             │ ❱ 19 │   return model(batch).sum()                                        │\n"
      "                             ╰───────────────────────────────────────────────────────────────────────────╯\n"
      "                             RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)\n"
      "                    INFO     stopping                                                                      program.py:27\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].exception, "RuntimeError");
  EXPECT_EQ(v[0].message, "mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)");
  ASSERT_EQ(v[0].frames.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].frames[0].function, "<module>");
  EXPECT_EQ(v[0].CulpritText(), "program.py:19 in train_step: return model(batch).sum()");
  EXPECT_EQ(v[0].line_end, 14);
}

// rich's locals panels (tracebacks_show_locals=True) are boxes inside the box, after a blank line, where a
// frame location may start: they add no frame and do not hide the next location (real output of
// corpus/formats/rich-handler-traceback/program.py with tracebacks_show_locals=True at 120 columns, lines
// cut out of it; rich 13.3.1).
TEST(Segmenter, RichHandlerLocalsPanelsAreNotFrames) {
  auto v = Segment(
      "[11/28/26 11:08:56] INFO     starting training                                                              locals.py:22\n"
      "                    ERROR    training step failed                                                           locals.py:26\n"
      "                             ╭──────────────────── Traceback (most recent call last) ─────────────────────╮\n"
      "                             │ /tmp/rc/rh/locals.py:24 in <module>                                        │\n"
      "                             │                                                                            │\n"
      "                             │ ❱ 24 │   train_step(images)                                                │\n"
      "                             │                                                                            │\n"
      "                             │ ╭──────────────────────────────── locals ────────────────────────────────╮ │\n"
      "                             │ │         log = <Logger train (INFO)>                                    │ │\n"
      "                             │ │  train_step = <function train_step at 0x7fd11b5d18a0>                  │ │\n"
      "                             │ ╰────────────────────────────────────────────────────────────────────────╯ │\n"
      "                             │                                                                            │\n"
      "                             │ /tmp/rc/rh/locals.py:19 in train_step                                      │\n"
      "                             │                                                                            │\n"
      "                             │ ❱ 19 │   return model(batch).sum()                                         │\n"
      "                             │ ╰────────────────────────────────────────────────────────────────────────╯ │\n"
      "                             ╰────────────────────────────────────────────────────────────────────────────╯\n"
      "                             RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)\n"
      "[11/28/26 11:08:57] INFO     stopping                                                                       locals.py:27\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].message, "mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)");
  ASSERT_EQ(v[0].frames.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].CulpritText(), "locals.py:19 in train_step: return model(batch).sum()");
}

// Regression: anomaly mode's "Traceback of forward call that caused the error" was not attached to the
// backward error, whose culprit was then the loss.backward() call instead of the forward line that made
// the NaN (corpus/formats/anomaly-mode-forward-trace).
TEST(Segmenter, AnomalyForwardTraceGivesTheCulprit) {
  auto v = Segment(
      "/usr/lib/python3/dist-packages/torch/autograd/__init__.py:197: UserWarning: Error detected in DivBackward0. "
      "Traceback of forward call that caused the error:\n"
      "  File \"/w/program.py\", line 16, in <module>\n"
      "    loss = normalise(features).sum()\n"
      "  File \"/w/program.py\", line 10, in normalise\n"
      "    return x / norms\n"
      "  File \"/usr/lib/python3/dist-packages/torch/fx/traceback.py\", line 57, in format_stack\n"
      "    return traceback.format_stack()\n"
      " (Triggered internally at  ./torch/csrc/autograd/python_anomaly_mode.cpp:114.)\n"
      "  Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass\n"
      "Traceback (most recent call last):\n"
      "  File \"/w/program.py\", line 17, in <module>\n"
      "    loss.backward()\n"
      "  File \"/usr/lib/python3/dist-packages/torch/_tensor.py\", line 488, in backward\n"
      "    torch.autograd.backward(\n"
      "RuntimeError: Function 'DivBackward0' returned nan values in its 1th output.\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].exception, "RuntimeError");
  ASSERT_EQ(v[0].frames.size(), 5u) << "backward frames, then the forward call's";
  EXPECT_EQ(v[0].frames[0].line, 17);
  EXPECT_EQ(v[0].CulpritText(), "program.py:10 in normalise: return x / norms");
}

// Regression: an executed notebook's error output (the "traceback" array of JSON strings with \u001b
// colour escapes) was not decoded: only the "evalue" line was seen (corpus/formats/ipynb-error-output).
TEST(Segmenter, NotebookErrorOutputTraceback) {
  auto v = Segment(
      "     \"ename\": \"RuntimeError\",\n"
      "     \"evalue\": \"mat1 and mat2 shapes cannot be multiplied (48x64 and 128x5)\",\n"
      "     \"output_type\": \"error\",\n"
      "     \"traceback\": [\n"
      "      \"\\u001b[0;31mRuntimeError\\u001b[0m                              Traceback (most recent call last)\",\n"
      "      \"Cell \\u001b[0;32mIn [2], line 10\\u001b[0m, in \\u001b[0;36mTagger.forward\\u001b[0;34m(self, tokens)"
      "\\u001b[0m\\n\\u001b[0;32m---> 10\\u001b[0m     \\u001b[38;5;28;01mreturn\\u001b[39;00m self.out(hidden)\\n\",\n"
      "      \"\\u001b[0;31mRuntimeError\\u001b[0m: mat1 and mat2 shapes cannot be multiplied (48x64 and 128x5)\"\n"
      "     ]\n"
      "    }\n");
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].exception, "RuntimeError");
  EXPECT_EQ(v[0].message, "mat1 and mat2 shapes cannot be multiplied (48x64 and 128x5)");
  EXPECT_EQ(v[0].CulpritText(), "In [2]:10 in Tagger.forward: return self.out(hidden)");
}

// Note: [Chained culprit]. corpus/formats/dataloader-worker-killed (torch 1.13.1, Python 3.11; frames
// left out): the cause, "killed by signal: Killed.", has only library frames; its user frame is printed
// once, in the chained traceback. Before, the cause (the primary incident) had no culprit.
TEST(Segmenter, ChainedCauseWithOnlyLibraryFramesTakesTheCulpritFromTheChain) {
  const std::string cause =
      "Traceback (most recent call last):\n"
      "  File \"/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py\", line 1120, in _try_get_data\n"
      "    data = self._data_queue.get(timeout=timeout)\n"
      "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "  File \"/usr/lib/python3/dist-packages/torch/utils/data/_utils/signal_handling.py\", line 66, in handler\n"
      "    _error_if_any_worker_fails()\n"
      "RuntimeError: DataLoader worker (pid 9899) is killed by signal: Killed. \n";
  const std::string chained =
      "\n"
      "The above exception was the direct cause of the following exception:\n"
      "\n"
      "Traceback (most recent call last):\n"
      "  File \"/work/main/corpus/formats/dataloader-worker-killed/program.py\", line 22, in <module>\n"
      "    for step, batch in enumerate(loader):\n"
      "  File \"/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py\", line 628, in __next__\n"
      "    data = self._next_data()\n"
      "           ^^^^^^^^^^^^^^^^^\n"
      "  File \"/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py\", line 1133, in _try_get_data\n"
      "    raise RuntimeError('DataLoader worker (pid(s) {}) exited unexpectedly'.format(pids_str)) from e\n"
      "RuntimeError: DataLoader worker (pid(s) 9899) exited unexpectedly\n";
  auto v = Segment(cause + chained);
  ASSERT_EQ(v.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].message, "DataLoader worker (pid 9899) is killed by signal: Killed.");
  EXPECT_EQ(v[0].CulpritText(), "program.py:22 in <module>: for step, batch in enumerate(loader):");
  // The chained traceback's frames above the catching frame (_try_get_data) are the cause's outer frames.
  ASSERT_EQ(v[0].frames.size(), 4u) << Dump(v);
  EXPECT_EQ(v[0].frames[1].function, "__next__");
  EXPECT_EQ(v[0].frames[2].line, 1120);
  EXPECT_EQ(v[1].caused_by, 0);
  EXPECT_EQ(v[1].frames.size(), 3u);
  EXPECT_EQ(v[1].CulpritText(), v[0].CulpritText());

  // "The above exception" is the last exception, not a log line a rule recognised after it (another
  // worker's message landing in between).
  auto w = Segment(cause + "ERROR: Unexpected segmentation fault encountered in worker.\n" + chained,
                   [](std::string_view line) { return line.rfind("ERROR:", 0) == 0 ? 0 : -1; });
  ASSERT_EQ(w.size(), 3u) << Dump(w);
  EXPECT_EQ(w[1].kind, Incident::Kind::kLogLine);
  EXPECT_EQ(w[2].caused_by, 0) << Dump(w);
  EXPECT_EQ(w[0].CulpritText(), "program.py:22 in <module>: for step, batch in enumerate(loader):");
}

// Note: [Fatal Python error]. corpus/formats/dataloader-worker-segfault (torch 1.13.1, Python 3.11; frames
// and the extension-module list shortened): faulthandler's dump of the crashed worker, most recent call
// first, then the main process's chain. The dump is no incident; its crash site is the culprit of the
// worker-died error, which has only library frames.
TEST(Segmenter, FaulthandlerDumpGivesTheWorkerDiedErrorItsCulprit) {
  const std::string dump =
      "Fatal Python error: Segmentation fault\n"
      "\n"
      "Current thread 0x00007fd86382c040 (most recent call first):\n"
      "  File \"/usr/lib/python3.11/ctypes/__init__.py\", line 519 in string_at\n"
      "  File \"/work/main/corpus/formats/dataloader-worker-segfault/program.py\", line 13 in decode\n"
      "  File \"/work/main/corpus/formats/dataloader-worker-segfault/program.py\", line 22 in __getitem__\n"
      "  File \"/usr/lib/python3/dist-packages/torch/utils/data/_utils/fetch.py\", line 58 in fetch\n"
      "  File \"/usr/lib/python3/dist-packages/torch/utils/data/_utils/worker.py\", line 302 in _worker_loop\n"
      "  File \"/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py\", line 435 in __iter__\n"
      "  File \"/work/main/corpus/formats/dataloader-worker-segfault/program.py\", line 31 in <module>\n"
      "\n"
      "Extension modules: torch._C, torch._C._fft, numpy.random._generator (total: 20)\n"
      "ERROR: Unexpected segmentation fault encountered in worker.\n"
      " step 0: (4, 3, 8, 8)\n";
  const std::string main_process =
      "Traceback (most recent call last):\n"
      "  File \"/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py\", line 1120, in _try_get_data\n"
      "    data = self._data_queue.get(timeout=timeout)\n"
      "  File \"/usr/lib/python3/dist-packages/torch/utils/data/_utils/signal_handling.py\", line 66, in handler\n"
      "    _error_if_any_worker_fails()\n"
      "RuntimeError: DataLoader worker (pid 12134) is killed by signal: Segmentation fault. \n"
      "\n"
      "The above exception was the direct cause of the following exception:\n"
      "\n"
      "Traceback (most recent call last):\n"
      "  File \"/work/main/corpus/formats/dataloader-worker-segfault/program.py\", line 31, in <module>\n"
      "    for step, batch in enumerate(loader):\n"
      "  File \"/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py\", line 1133, in _try_get_data\n"
      "    raise RuntimeError('DataLoader worker (pid(s) {}) exited unexpectedly'.format(pids_str)) from e\n"
      "RuntimeError: DataLoader worker (pid(s) 12134) exited unexpectedly\n";
  auto v = Segment(dump + main_process);
  ASSERT_EQ(v.size(), 2u) << Dump(v);
  EXPECT_EQ(v[0].message, "DataLoader worker (pid 12134) is killed by signal: Segmentation fault.");
  EXPECT_EQ(v[0].line_start, 15);
  // Its own two frames, then the worker's stack outermost first: <module> ... decode, string_at.
  ASSERT_EQ(v[0].frames.size(), 9u) << Dump(v);
  EXPECT_EQ(v[0].frames[2].line, 31);
  EXPECT_EQ(v[0].frames[8].function, "string_at");
  EXPECT_FALSE(v[0].frames[8].user);
  EXPECT_EQ(v[0].CulpritText(), "program.py:13 in decode");
  EXPECT_EQ(v[1].caused_by, 0);
  EXPECT_EQ(v[1].CulpritText(), "program.py:31 in <module>: for step, batch in enumerate(loader):");

  // An exception with a user frame of its own keeps its culprit; the dump goes nowhere.
  auto w = Segment(dump + main_process.substr(main_process.find("Traceback", 10)));
  ASSERT_EQ(w.size(), 1u) << Dump(w);
  EXPECT_EQ(w[0].frames.size(), 2u);
  EXPECT_EQ(w[0].CulpritText(), "program.py:31 in <module>: for step, batch in enumerate(loader):");
}

// Note: [Dump frames on the crash line]. pytorch#107371 (python -X faulthandler -c "import torch", stack cut
// where the post was): a dump no exception follows. When a rule recognises its first line, that log-line
// incident gets the crashed thread's frames, outermost first; when none does, the dump is no incident.
TEST(Segmenter, FaulthandlerDumpFramesGoToItsRecognisedFirstLine) {
  const std::string dump =
      "Fatal Python error: Segmentation fault\n"
      "\n"
      "Current thread 0x00007fade862d080 (most recent call first):\n"
      "  File \"<frozen importlib._bootstrap>\", line 228 in _call_with_frames_removed\n"
      "  File \"<frozen importlib._bootstrap_external>\", line 1173 in create_module\n"
      "  File \"<frozen importlib._bootstrap>\", line 565 in module_from_spec\n"
      "  File \"/root/anaconda3/envs/pipenv/lib/python3.9/site-packages/torch/__init__.py\", line 229 in <module>\n";
  auto fatal = [](std::string_view line) { return line.find("Fatal Python error") != std::string_view::npos ? 0 : -1; };
  auto v = Segment(dump, fatal);
  ASSERT_EQ(v.size(), 1u) << Dump(v);
  EXPECT_EQ(v[0].kind, Incident::Kind::kLogLine);
  EXPECT_EQ(v[0].message, "Fatal Python error: Segmentation fault");
  ASSERT_EQ(v[0].frames.size(), 4u) << Dump(v);
  EXPECT_EQ(v[0].frames[0].line, 229);  // outermost first
  EXPECT_EQ(v[0].frames[2].function, "create_module");
  EXPECT_EQ(v[0].frames[3].function, "_call_with_frames_removed");
  EXPECT_TRUE(Segment(dump).empty());

  // pytest's unfinished "collecting ... " before the header, and Windows' header, start the same dump.
  auto w = Segment("collecting ... " + dump, fatal);
  ASSERT_EQ(w.size(), 1u) << Dump(w);
  EXPECT_EQ(w[0].frames.size(), 4u) << Dump(w);
  const std::string windows = "Windows fatal exception: code 0xe0465043" + dump.substr(dump.find('\n'));
  auto x = Segment(windows, [](std::string_view line) { return line.find("Windows fatal") != std::string_view::npos ? 0 : -1; });
  ASSERT_EQ(x.size(), 1u) << Dump(x);
  EXPECT_EQ(x[0].frames.size(), 4u) << Dump(x);
}

TEST(SegmenterLibraryFiles, SeparatesUserFromLibraryCode) {
  EXPECT_TRUE(Segmenter::IsLibraryFile("/usr/lib/python3/dist-packages/torch/nn/modules/module.py"));
  EXPECT_TRUE(Segmenter::IsLibraryFile("/home/u/.venv/lib/python3.11/site-packages/transformers/trainer.py"));
  EXPECT_TRUE(Segmenter::IsLibraryFile("C:\\Python311\\Lib\\site-packages\\torch\\nn\\functional.py"));
  EXPECT_TRUE(Segmenter::IsLibraryFile("<frozen runpy>"));
  EXPECT_FALSE(Segmenter::IsLibraryFile("/home/u/project/train.py"));
  EXPECT_FALSE(Segmenter::IsLibraryFile("C:\\Users\\me\\train.py"));
  EXPECT_FALSE(Segmenter::IsLibraryFile("<string>"));
}

}  // namespace
}  // namespace triage
