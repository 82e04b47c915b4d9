// Note: [Hard-wrapped pastes] (log/hard_wrap.h): a paste that a console or a form hard-wrapped at a
// fixed width is recognised from its head and its rows are joined back into lines before any reader
// sees them; an ordinary log is read as it is.
//
// WrappedPastes.CorpusLogsKeepTheirDiagnosis is the property over the corpus (ours and the wild tuning
// split, never corpus/heldout): every log hard-wrapped at 80, 100 and 120 columns (code points, as a
// console cuts a line) must get the first diagnosis (rule and category, or none) of the log as printed.
// Of the 1176 logs (2026-11-28), wrapping changes 989, 806 and 613; before the joining, about 40% of
// those got another diagnosis (403, 287 and 178 of 960, 781 and 596 on the day's earlier corpus); with
// it, 5, 4 and 8 (a log that is one line of literal "\n" escapes, metric logs whose wrapped tqdm bars
// and records are not all joined, one-row wraps whose next line opens like a record or like the row, a
// negative whose joined warning now reads as the non-leaf .grad one). On the 1294 logs later that day
// (1089, 895 and 676 changed), 6, 4 and 8 differed; with short pastes' rows read too (a row cut short, a
// word cut before small letters: Note: [Rows cut short] in log/hard_wrap.cc), 2, 4 and 7: at 80 columns
// the one-line literal "\n" log and the negative whose joined warning reads as the non-leaf .grad one,
// the four one-line and five-line pastes gone from the list. The ceiling is 1.5% of the logs
// that the wrap changes at each width (15, 13 and 10): room for the rule changes other work makes, far
// under what the old reading gave (the test fails without the joining).
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_support.h"
#include "log/hard_wrap.h"
#include "paste_forms.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {
namespace fs = std::filesystem;

// A console's hard wrap: every line longer than `width` code points is cut into rows of `width`.
std::string WrapAt(const std::string& text, int width) {
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  int chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      chars = 0;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      if (chars == width) {
        out += '\n';
        chars = 0;
      }
      ++chars;
    }
    out += c;
  }
  return out;
}

// The joiner's output for `text` fed in pieces of `chunk` bytes.
std::string Unwrap(std::string_view text, int width, size_t chunk) {
  HardWrap wrap(width);
  std::string out;
  for (size_t at = 0; at < text.size(); at += chunk) wrap.Feed(text.substr(at, chunk), &out);
  wrap.Finish(&out);
  return out;
}

const char kTraceback[] =
    "epoch 1 step 10 loss 2.3011\n"
    "Traceback (most recent call last):\n"
    "  File \"/home/someone/projects/segmentation/experiments/train_cityscapes.py\", line 212, in <module>\n"
    "    main(parse_args())\n"
    "  File \"/home/someone/miniconda3/envs/seg/lib/python3.10/site-packages/torch/nn/modules/module.py\", "
    "line 1501, in _call_impl\n"
    "    return forward_call(*args, **kwargs)\n"
    "  File \"/home/someone/projects/segmentation/models/head.py\", line 40, in forward\n"
    "    return self.classifier(features.flatten(1))\n"
    "RuntimeError: mat1 and mat2 shapes cannot be multiplied (16x57600 and 2048x19) while running the "
    "classifier head of the segmentation model\n";

TEST(HardWrap, JoinsTheRowsOfAWrappedPaste) {
  const std::string text = kTraceback;
  for (int width : {60, 80, 100}) {
    const std::string wrapped = WrapAt(text, width);
    ASSERT_NE(wrapped, text);
    EXPECT_EQ(HardWrap::DetectWidth(wrapped), width);
    for (size_t chunk : {size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{64}, wrapped.size()}) {
      EXPECT_EQ(Unwrap(wrapped, width, chunk), text) << "width " << width << ", chunk " << chunk;
    }
  }
  // CRLF line ends: the width does not count the '\r', and a joined row loses its "\r\n".
  std::string crlf;
  for (char c : WrapAt(text, 80)) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  std::string want;
  for (char c : text) want += c == '\n' ? std::string("\r\n") : std::string(1, c);
  EXPECT_EQ(HardWrap::DetectWidth(crlf), 80);
  EXPECT_EQ(Unwrap(crlf, 80, 5), want);
  // Code points, not bytes: a row of 80 characters holding multi-byte ones.
  const std::string utf8 = "RuntimeError: \xe5\x8f\x82\xe6\x95\xb0\xe9\x94\x99\xe8\xaf\xaf " + std::string(90, 'x') +
                           "\n" + kTraceback;
  EXPECT_EQ(Unwrap(WrapAt(utf8, 80), 80, 11), utf8);
}

// Note: [Joined lines bound]: past the bound no new line gets rows joined to it; the lines already
// joined stay joined, the rest comes out as it was fed, and the line map stays right.
TEST(HardWrap, JoinsAtMostTheBoundsLines) {
  std::string text;
  for (int i = 0; i < 6; ++i) text += "RuntimeError: record " + std::to_string(i) + " " + std::string(100, 'x') + "\n";
  const std::string wrapped = WrapAt(text, 80);
  HardWrap wrap(80, 3);
  std::string out;
  for (size_t at = 0; at < wrapped.size(); at += 9) wrap.Feed(std::string_view(wrapped).substr(at, 9), &out);
  wrap.Finish(&out);
  size_t first_three = 0;
  for (int i = 0; i < 3; ++i) first_three = text.find('\n', first_three) + 1;
  const std::string wrapped_head = WrapAt(text.substr(0, first_three), 80);
  EXPECT_EQ(out, text.substr(0, first_three) + wrapped.substr(wrapped_head.size()));
  EXPECT_EQ(wrap.joined_rows(), 3u);
  EXPECT_EQ(wrap.FirstRow(3), 5u);  // the third record: rows 5-6 of the input
  EXPECT_EQ(wrap.LastRow(3), 6u);
  EXPECT_EQ(wrap.FirstRow(4), 7u);  // past the bound, rows come out one for one
  EXPECT_EQ(wrap.LastRow(5), 8u);
  HardWrap unbounded(80);
  std::string all;
  unbounded.Feed(wrapped, &all);
  unbounded.Finish(&all);
  EXPECT_EQ(all, text);
}

TEST(HardWrap, LeavesLinesOfTheirOwn) {
  const std::string row(80, 'a');
  // After a row of the width: a frame's source line, an exception line, a traceback header, a blank
  // line, the next record of the row's own shape; a row that is a drawn rule.
  for (const char* next : {"    return x", "ValueError: bad value", "Traceback (most recent call last):", "",
                           "KeyboardInterrupt", "builtins.ValueError: bad value"}) {
    const std::string text = row + "\n" + next + "\nend\n";
    EXPECT_EQ(Unwrap(text, 80, 3), text) << next;
  }
  const std::string record = "Epoch 1 " + std::string(72, 'b');
  EXPECT_EQ(Unwrap(record + "\nEpoch 2 done\n", 80, 4), record + "\nEpoch 2 done\n");
  const std::string rule = std::string(30, '=') + " test session starts " + std::string(29, '=');
  ASSERT_EQ(rule.size(), 80u);
  EXPECT_EQ(Unwrap(rule + "\nplatform linux\n", 80, 1), rule + "\nplatform linux\n");
  // A row of the width at the very end, with and without its line end.
  EXPECT_EQ(Unwrap(row + "\n", 80, 1), row + "\n");
  EXPECT_EQ(Unwrap(row, 80, 1), row);
  EXPECT_EQ(Unwrap(row + "\nbc", 80, 1), row + "bc");
}

TEST(HardWrap, OrdinaryLayoutsAreNotTakenForAWrap) {
  std::string metrics, boxes, bars;
  for (int i = 0; i < 30; ++i) {
    // Metric records of one layout, all of one length.
    metrics += "{'loss': 0." + std::to_string(1000 + i) + ", 'learning_rate': 0.002, 'epoch': " +
               std::to_string(10 + i) + ".0, 'grad_norm': 1.5}\n";
    // A box padded to the width, as rich draws it.
    boxes += "\xe2\x94\x82 /work/train.py:" + std::to_string(10 + i) + " in <module>" + std::string(52, ' ') +
             "\xe2\x94\x82\n";
    // Progress bars drawn to the terminal's width.
    bars += "Epoch " + std::to_string(i % 10) + ": 100%|##########| 88/88 [00:28<00:00,  3.07it/s, loss=0." +
            std::to_string(100 + i) + "]   \n";
  }
  EXPECT_EQ(HardWrap::DetectWidth(metrics), 0);
  EXPECT_EQ(HardWrap::DetectWidth(boxes), 0);
  EXPECT_EQ(HardWrap::DetectWidth(bars), 0);
  // Keras' Progbar (keras/utils/generic_utils.py, tf.keras 2.x; Keras 3 on the torch backend prints the same):
  // an "Epoch E/N" line, then the bar's row, all rows of one length when the values print with the same digits.
  std::string keras;
  for (int i = 1; i <= 12; ++i) {
    keras += "Epoch " + std::to_string(i) + "/12\n50/50 [==============================] - 1s 10ms/step - loss: -" +
             std::to_string(1000 + i) + ".8918\n";
  }
  EXPECT_EQ(HardWrap::DetectWidth(keras), 0);
  // Keras with verbose=2: no bar, the epoch's summary row after its "Epoch E/N" line, every row of one length
  // (Note: [Epoch headers] in log/hard_wrap.cc; the layout of daniellerch/stegolab#1's paste).
  std::string keras2;
  for (int i = 1; i <= 8; ++i) {
    keras2 += "Epoch " + std::to_string(i) + "/8\n - 37" + std::to_string(i) + "s - loss: 0." +
              std::to_string(5000 - 100 * i) + " - acc: 0.7" + std::to_string(100 + i) + " - val_loss: 0." +
              std::to_string(7000 + 100 * i) + " - val_acc: 0.5938\n";
  }
  EXPECT_EQ(HardWrap::DetectWidth(keras2), 0);
  EXPECT_EQ(HardWrap::DetectWidth(kTraceback), 0);
  // TorchScript's report: its longest line a marker under the source, then the exception line.
  const std::string marker = "        " + std::string(100, '~') + " <--- HERE";
  EXPECT_EQ(HardWrap::DetectWidth("Traceback of TorchScript, original code (most recent call last):\n"
                                  "        raise ValueError(\"Expected more than 1 value per channel\")\n" +
                                  marker + "\nbuiltins.ValueError: Expected more than 1 value per channel\n"),
            0);
  // A table whose one row is 80 wide, the next row of the same shape ("Mem:", "Swap:"; free -h).
  EXPECT_EQ(HardWrap::DetectWidth("              total        used        free      shared  buff/cache   available\n"
                                  "Mem:            31Gi        30Gi       215Mi       1.2Gi       812Mi       150Mi\n"
                                  "Swap:          2.0Gi       2.0Gi          0B\n"
                                  "RuntimeError: DataLoader worker (pid 12345) is killed by signal: Killed.\n"),
            0);
}

// A short log has few rows for the check to go by, and in these each was passed over: a frame line cut
// at ", in " (its next line "<module>"), a warning cut inside its category ("...py:147: Runtime" then
// "Warning: ..."), a one-line message cut inside a word whose rest begins with a first word of the
// same shape as the row's ("...key-v" then "alue store ..."). Corpus logs wrapped at 80 columns: each was
// read as it came before (Note: [Rows cut short] in log/hard_wrap.cc), and each is whole again.
TEST(HardWrap, ShortPastesWrappedAt80) {
  for (const char* name : {"shape/similarity-untransposed", "negative/argparse-valueerror",
                           "wild/amp/comfyui-mvadapter-14-sdxl-vae-fp16-nan-black-image",
                           "wild/distributed/llamafactory-tokenizer-map-socket-timeout",
                           "wild/checkpoint/efficientdet-d3-head-num-classes-44", "wild/cuda/naf-cbct-compute-86-rtx3090",
                           "training/eval-mode-preview-helper-flags", "negative/innocent-words"}) {
    const std::string text = triage_test::ReadFile(std::string(TRIAGE_SOURCE_DIR) + "/corpus/" + name + "/log.txt");
    const std::string wrapped = WrapAt(text, 80);
    ASSERT_NE(wrapped, text) << name;
    EXPECT_EQ(HardWrap::DetectWidth(HardWrap::Head(wrapped)), 80) << name;
    EXPECT_EQ(HardWrap::DetectWidth(HardWrap::Head(text)), 0) << name;
    for (size_t chunk : {1, 7, 4096}) EXPECT_EQ(Unwrap(wrapped, 80, chunk), text) << name << " in pieces of " << chunk;
  }
  // Rows of the width that are whole lines (a SyntaxError's frame, which has no function, a warning line,
  // a frame line with its function), each followed by a line of its own: not cut short.
  const std::string frame = "  File \"/home/someone/projects/segmentation/experiments/train_city.py\", line 212";
  const std::string warning = "/home/someone/projects/seg/experiments/train_city.py:212: UserWarning: bad xyzwv";
  const std::string named = "  File \"/home/someone/projects/segmentation/model/train.py\", line 21, in forward";
  ASSERT_EQ(frame.size(), 80u);
  ASSERT_EQ(warning.size(), 80u);
  ASSERT_EQ(named.size(), 80u);
  for (const std::string& row : {frame, warning, named}) {
    EXPECT_EQ(HardWrap::DetectWidth(row + "\nValueError: bad value\n"), 0) << row;
  }
  // A frame line cut at the width (a viewer that cuts instead of wrapping) whose next line is its source,
  // indented: the source is not the frame's rest.
  const std::string cut = "  File \"/home/someone/projects/segmentation/experiments/train_cityscape.py\", lin";
  ASSERT_EQ(cut.size(), 80u);
  EXPECT_EQ(Unwrap(cut + "\n    main(parse_args())\n", 80, 1), cut + "\n    main(parse_args())\n");
  EXPECT_EQ(Unwrap(cut + "\ne 212, in <module>\n", 80, 1), cut + "e 212, in <module>\n");
}

// Note: [Script change at a cut]: an English line of exactly a usual width before a sentence in Chinese is no
// split. corpus/wild/memory/2s-agcn-gen-bone-data-np-load-29gib-16gb-ram-zh, as posted in
// https://github.com/lshiwjx/2s-AGCN/issues/56: its NumPy MemoryError line is 100 characters long and was taken for a
// row of a paste wrapped at 100 columns (its next line joined onto it).
TEST(HardWrap, AScriptChangeAfterARowIsNoCut) {
  const std::string text = triage_test::ReadFile(std::string(TRIAGE_SOURCE_DIR) +
                                                 "/corpus/wild/memory/2s-agcn-gen-bone-data-np-load-29gib-16gb-ram-zh/log.txt");
  const std::string error =
      "MemoryError: Unable to allocate 29.0 GiB for an array with shape (7790126400,) and data type float32";
  ASSERT_EQ(error.size(), 100u);
  ASSERT_NE(text.find(error + "\n\xe8\xbf\x99"), std::string::npos);  // "这样的错误..." after it
  EXPECT_EQ(HardWrap::DetectWidth(HardWrap::Head(text)), 0);
  // The same log wrapped at 80 columns is still told (its rows end and begin in ASCII).
  EXPECT_EQ(HardWrap::DetectWidth(HardWrap::Head(WrapAt(text, 80))), 80);
  // A row cut inside Chinese text goes on in Chinese: still a split.
  EXPECT_EQ(HardWrap::DetectWidth("Error " + std::string(92, 'b') + "\xe9\x94\x99\xe8\xaf\xaf\n\xe8\xbf\x99\xe6\xa0\xb7\n"), 100);
}

// Note: [Broken after a closing quote]: corpus/wild/env/materialsearch-fbgemm-dll-winerror126-zh's error line, broken
// at the blank after its quoted DLL path (as FormatWrappedQuotes breaks it), leaves a row of exactly 132 code points
// (a usual console width) before "or one of its dependencies.": an editor's break at a blank, not a wrap at 132.
TEST(HardWrap, ABreakAfterAClosingQuoteIsNoCut) {
  std::string text = triage_test::ReadFile(std::string(TRIAGE_SOURCE_DIR) +
                                           "/corpus/wild/env/materialsearch-fbgemm-dll-winerror126-zh/log.txt");
  const size_t at = text.find("\" or one of its dependencies.");
  ASSERT_NE(at, std::string::npos);
  text[at + 1] = '\n';
  const size_t row = text.rfind('\n', at) + 1;
  ASSERT_EQ(text.compare(row, 8, "OSError:"), 0);
  EXPECT_EQ(HardWrap::DetectWidth(HardWrap::Head(text)), 0);
  // The same log wrapped at 80 columns is still told.
  EXPECT_EQ(HardWrap::DetectWidth(HardWrap::Head(WrapAt(text, 80))), 80);
}

// Note: [Ends with a directory]: corpus/wild/data/fast-neural-style-2-coco-found-0-images-no-subfolder-quoted's
// ImageFolder error ends with a Windows directory and its trailing separator at exactly 80 code points, before
// torchvision's own second line: a line that ended there, not a row of a paste wrapped at 80.
TEST(HardWrap, ARowEndingInADirectoryBeforeASentenceIsNoCut) {
  const std::string text = triage_test::ReadFile(
      std::string(TRIAGE_SOURCE_DIR) + "/corpus/wild/data/fast-neural-style-2-coco-found-0-images-no-subfolder-quoted/log.txt");
  const size_t nl = text.find('\n');
  ASSERT_EQ(nl, 80u);
  ASSERT_EQ(text[nl - 1], '\\');
  EXPECT_EQ(HardWrap::DetectWidth(HardWrap::Head(text)), 0);
  // The same on a POSIX path.
  const std::string posix = "RuntimeError: Found 0 files in subfolders of: /home/someone/datasets/coco/train/\n"
                            "Supported extensions are: .jpg,.jpeg,.png\n";
  ASSERT_EQ(posix.find('\n'), 80u);
  EXPECT_EQ(HardWrap::DetectWidth(posix), 0);
  // A cut inside a path goes on with the path's rest: still a split (a separator in the next line's second
  // word, or no blank after its first word).
  const std::string spaced = "FileNotFoundError: [Errno 2] No such file or directory: 'C:\\Users\\someo\\Program\\\n"
                             "Files x\\data\\train.csv'\n";
  ASSERT_EQ(spaced.find('\n'), 80u);
  EXPECT_EQ(HardWrap::DetectWidth(spaced), 80);
  const std::string deeper = "FileNotFoundError: [Errno 2] No such file or directory: '/home/someone/datasets/\n"
                             "Coco/train/0001.png'\n";
  ASSERT_EQ(deeper.find('\n'), 80u);
  EXPECT_EQ(HardWrap::DetectWidth(deeper), 80);
}

TEST(HardWrap, HeadIsWhatASessionDecidesFrom) {
  std::string many;
  for (int i = 0; i < 300; ++i) many += "line " + std::to_string(i) + "\n";
  const std::string_view head = HardWrap::Head(many);
  EXPECT_EQ(std::count(head.begin(), head.end(), '\n'), HardWrap::kHeadLines);
  const std::string longer(HardWrap::kHeadBytes + 10, 'x');
  EXPECT_EQ(HardWrap::Head(longer), "");
  EXPECT_EQ(HardWrap::Head("short\nend"), "short\nend");
}

LoadResult BundledRules() {
  LoadOptions o;
  o.system = o.user = o.project = o.env_path = o.cache = false;
  return LoadRules(o);
}

// The report of a wrapped paste speaks of the input's lines: the incident of the wrapped traceback spans
// its first to its last row, and `lines` counts the rows.
TEST(HardWrap, ReportsLinesOfTheInput) {
  LoadResult loaded = BundledRules();
  ASSERT_TRUE(loaded.ok());
  Engine engine(loaded.rules);
  const std::string text = kTraceback;
  const std::string wrapped = WrapAt(text, 80);
  const Report plain = engine.DiagnoseText(text);
  ASSERT_FALSE(plain.diagnoses.empty());
  ASSERT_EQ(plain.incidents.size(), 1u);
  Report r;
  {
    Session session(loaded.rules);
    for (size_t at = 0; at < wrapped.size(); at += 13) session.Feed(std::string_view(wrapped).substr(at, 13));
    r = session.Finish();
  }
  ASSERT_FALSE(r.diagnoses.empty());
  EXPECT_EQ(r.diagnoses[0].rule, plain.diagnoses[0].rule);
  EXPECT_EQ(r.lines, static_cast<std::uint64_t>(std::count(wrapped.begin(), wrapped.end(), '\n')));
  ASSERT_EQ(r.incidents.size(), 1u);
  EXPECT_EQ(r.incidents[0].line_start, 2);
  EXPECT_EQ(r.incidents[0].line_end, static_cast<int>(r.lines));
  EXPECT_EQ(r.incidents[0].message, plain.incidents[0].message);
  EXPECT_EQ(r.incidents[0].CulpritText(), plain.incidents[0].CulpritText());
  // A snapshot taken while the session still holds the head is the report of what it was fed.
  Session partial(loaded.rules);
  partial.Feed(wrapped);
  const Report snap = partial.Snapshot(true);
  ASSERT_FALSE(snap.diagnoses.empty());
  EXPECT_EQ(snap.diagnoses[0].rule, plain.diagnoses[0].rule);
  EXPECT_EQ(snap.incidents.at(0).line_end, static_cast<int>(r.lines));
}

// Note: [Word-wrapped pastes]: an editor's word wrap at `width` (a line longer than it broken at its last
// blank that fits, the blank dropped; a word longer than the width stays whole), as the cut-paste
// measure's word_wrap_80 form makes it.
std::string WordWrapAt(const std::string& text, size_t width) {
  std::string out;
  for (const std::string& whole : triage_test::Lines(text)) {
    std::string l = whole;
    while (l.size() > width) {
      const size_t b = l.rfind(' ', width);
      if (b == std::string::npos || b == 0 || l.find_first_not_of(' ') >= b) break;
      out += l.substr(0, b) + "\n";
      l = l.substr(b + 1);
    }
    out += l + "\n";
  }
  return out;
}

std::string UnwrapWords(std::string_view text, int width, size_t chunk) {
  HardWrap wrap(width, HardWrap::kMaxJoinedLines, true);
  std::string out;
  for (size_t at = 0; at < text.size(); at += chunk) wrap.Feed(text.substr(at, chunk), &out);
  wrap.Finish(&out);
  return out;
}

TEST(WordWrap, JoinsTheRowsOfAWordWrappedPaste) {
  const std::string text =
      "Traceback (most recent call last):\n"
      "  File \"/work/corpus/checkpoint/shape-conv-width/program.py\", line 22, in <module>\n"
      "    net.load_state_dict(ckpt[\"state_dict\"])\n"
      "  File \"/usr/lib/python3/dist-packages/torch/nn/modules/module.py\", line 1671, in load_state_dict\n"
      "    raise RuntimeError('Error(s) in loading state_dict for {}:'.format(\n"
      "RuntimeError: Error(s) in loading state_dict for Sequential:\n"
      "\tsize mismatch for 0.weight: copying a param with shape torch.Size([32, 1, 3, 3]) from checkpoint, the "
      "shape in current model is torch.Size([16, 1, 3, 3]).\n";
  const std::string wrapped = WordWrapAt(text, 80);
  ASSERT_NE(wrapped, text);
  EXPECT_EQ(HardWrap::DetectWordWidth(wrapped), 80);
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{64}, wrapped.size()}) {
    EXPECT_EQ(UnwrapWords(wrapped, 80, chunk), text) << "chunk " << chunk;
  }
  // As printed, and hard-wrapped (rows of exactly the width, cut inside words), it is no word wrap.
  EXPECT_EQ(HardWrap::DetectWordWidth(text), 0);
  EXPECT_EQ(HardWrap::DetectWordWidth(WrapAt(kTraceback, 80)), 0);
  // Lines of their own after a long row stay: an exception line, an indented line, a blank one.
  const std::string own =
      "a message that a person typed on one line and that is long enough to end near\n"
      "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)\n";
  EXPECT_EQ(UnwrapWords(own, 80, 7), own);
}

TEST(WordWrap, FewCorpusLogsAsPrintedLookWordWrapped) {
  // Ours and the wild tuning logs as they were posted: the few whose head looks word-wrapped (most are
  // short pastes with a long typed line or two) are read with those rows joined; 14 at 2026-11-30.
  int found = 0, logs = 0;
  for (const fs::path& log : triage_test::CorpusLogs()) {
    ++logs;
    if (HardWrap::DetectWordWidth(HardWrap::Head(triage_test::ReadFile(log.string()))) > 0) {
      ++found;
      std::printf("  taken for word-wrapped: %s\n", log.parent_path().string().c_str());
    }
  }
  std::printf("word-wrap detection: %d of %d corpus logs\n", found, logs);
  EXPECT_LE(found, 14);
}

std::string TopOf(const Report& r) {
  return r.diagnoses.empty() ? "(none)" : r.diagnoses[0].rule + " " + r.diagnoses[0].category;
}

TEST(WrappedPastes, CorpusLogsKeepTheirDiagnosis) {
  LoadResult loaded = BundledRules();
  ASSERT_TRUE(loaded.ok());
  Engine engine(loaded.rules);
  const std::vector<fs::path> logs = triage_test::CorpusLogs();
  std::vector<std::string> text, top;
  for (const fs::path& log : logs) {
    text.push_back(triage_test::ReadFile(log.string()));
    top.push_back(TopOf(engine.DiagnoseText(text.back(), triage_test::LeaveOut(log))));
  }
  for (int width : {80, 100, 120}) {
    int wrapped = 0, differ = 0;
    for (size_t i = 0; i < logs.size(); ++i) {
      const std::string pasted = WrapAt(text[i], width);
      if (pasted == text[i]) continue;
      ++wrapped;
      const std::string got = TopOf(engine.DiagnoseText(pasted, triage_test::LeaveOut(logs[i])));
      if (got == top[i]) continue;
      ++differ;
      std::printf("  wrapped at %d: %s: %s instead of %s\n", width, logs[i].string().c_str(), got.c_str(),
                  top[i].c_str());
    }
    std::printf("hard-wrapped at %d columns: %d of %d changed logs keep their first diagnosis, %d differ (%zu logs)\n",
                width, wrapped - differ, wrapped, differ, logs.size());
    EXPECT_GE(wrapped, static_cast<int>(logs.size()) / 3) << "most corpus logs have lines longer than " << width;
    EXPECT_LE(differ, (wrapped * 3 + 199) / 200) << "at most 1.5% of the wrapped logs may change diagnosis, width "
                                                  << width;
  }
}

// The other half: a log that is not wrapped is read as it is. Only these corpus logs, each a paste
// that really was hard-wrapped where it was posted, are taken for wrapped ones.
TEST(WrappedPastes, OnlyWrappedCorpusLogsAreJoined) {
  const std::set<std::string> wrapped_pastes = {
      "diffusion-colabui-torchvision-cu118-torch-cu117-wrapped",  // an issue form's 80 columns
      "bitsandbytes-492-centos-rich-setup-failed",  // the exception's message word-wrapped at 80 columns
      "happytransformer-label-minus-one",                         // 120 columns
      "mmediting-iconvsr-unused-params",                          // 173 columns
      "maskrcnn-benchmark-finetune-all-layers-nan-lr-0.005",      // a terminal's 191 columns
      "pytorch-4387-dataloader-fork-errno12-second-epoch",        // 88 columns
      "slideflow-slurm-dataloader-workers-warning-wrapped",       // 80 columns
      "anomalygpt-deepspeed-sigkill-minus-9-host-ram-zh",         // DeepSpeed's command list at 204 columns
      "edsr-31-dataloaderiter-renamed-windows",                   // the command line at 120 columns
      "xinference-5260-peft-hybridcache-transformers-5",          // a pull request's message wrapped at 80 columns
      "gemma-tuner-18-mps-16gb-mac-default-profile-oom",          // the MPS message wrapped at 120 columns
      "optimate-253-llama-pad-id-minus-one-index-select-wrapped",  // each kernel assertion at a terminal's 187 columns
  };
  std::set<std::string> found;
  int logs = 0;
  for (const fs::path& log : triage_test::CorpusLogs()) {
    ++logs;
    const std::string text = triage_test::ReadFile(log.string());
    const int width = HardWrap::DetectWidth(HardWrap::Head(text));
    if (width == 0) continue;
    const std::string name = log.parent_path().filename().string();
    found.insert(name);
    EXPECT_TRUE(wrapped_pastes.count(name)) << log << " taken for a paste wrapped at " << width;
  }
  for (const std::string& name : wrapped_pastes) EXPECT_TRUE(found.count(name)) << name << " not recognised";
  std::printf("hard-wrap detection: %zu of %d corpus logs taken for wrapped pastes\n", found.size(), logs);
}

}  // namespace
}  // namespace triage
