// Note: [Emphasis across lines] (engine/src/log/formats/markdown_emphasis.h): which lines open an emphasis pair
// around a pasted traceback, and that what is not one is read as it was.
#include <gtest/gtest.h>

#include <string>

#include "log/formats/markdown_emphasis.h"
#include "log/segmenter.h"
#include "../segment_text.h"

namespace triage {
namespace {

std::vector<Incident> Read(const std::string& text) { return triage_test::SegmentText(text); }

TEST(MarkdownEmphasis, OpensOnlyBeforeATraceback) {
  EXPECT_EQ(MarkdownEmphasisReader::Opener("**Traceback (most recent call last):"), "**");
  EXPECT_EQ(MarkdownEmphasisReader::Opener("__File \"/x/train.py\", line 3, in main"), "__");
  EXPECT_EQ(MarkdownEmphasisReader::Opener("**File /x/train.py:3, in main()"), "**");  // IPython 8's frame line
  EXPECT_EQ(MarkdownEmphasisReader::Opener("**RuntimeError: boom**"), "**");
  EXPECT_EQ(MarkdownEmphasisReader::Opener("**During handling of the above exception, another exception occurred:"), "**");
  // Not an opener: a bold label, ordinary bold text, a list marker, a rule, a name with underscores.
  EXPECT_EQ(MarkdownEmphasisReader::Opener("**ImportError:** lib/x.so: undefined symbol: _ZN3c10"), "");
  EXPECT_EQ(MarkdownEmphasisReader::Opener("**Environment**"), "");
  EXPECT_EQ(MarkdownEmphasisReader::Opener("** RuntimeError: boom"), "");
  EXPECT_EQ(MarkdownEmphasisReader::Opener("****"), "");
  EXPECT_EQ(MarkdownEmphasisReader::Opener("__init__.py: RuntimeError: x"), "");
}

TEST(MarkdownEmphasis, APairAcrossLinesGivesTheTracebackItsFramesAndAPlainMessage) {
  const std::vector<Incident> kept = Read(
      "**Traceback (most recent call last):\n"
      "  File \"/x/train.py\", line 3, in <module>\n"
      "    main(**kwargs)\n"
      "RuntimeError: boom at the end**\n");
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].exception, "RuntimeError");
  EXPECT_EQ(kept[0].message, "boom at the end");
  ASSERT_EQ(kept[0].frames.size(), 1u);
  EXPECT_EQ(kept[0].frames[0].source, "main(**kwargs)");  // a source line's own "**" stays
}

TEST(MarkdownEmphasis, ABlankLineEndsThePair) {
  // The opener's pair never closed before the paragraph ended: a later line's "**" at its end is its own.
  const std::vector<Incident> kept = Read(
      "**RuntimeError: first failure\n"
      "\n"
      "ValueError: second failure **\n");
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].exception, "RuntimeError");
  EXPECT_EQ(kept[1].exception, "ValueError");
  EXPECT_EQ(kept[1].message.substr(0, 22), "second failure **");
}

}  // namespace
}  // namespace triage
