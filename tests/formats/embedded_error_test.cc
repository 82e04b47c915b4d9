// EmbeddedErrorReader::Find (Note: [Embedded exception lines] in engine/src/log/formats/embedded_error.h): where an
// exception line sits inside other text, and where none does. The messages are real wordings (the corpus'); the
// text around them is each form people paste them in.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "log/formats/embedded_error.h"

namespace triage {
namespace {

struct Found {
  bool found = false;
  std::string type, message;
};

Found Find(std::string_view line) {
  Found f;
  std::string_view type, message;
  f.found = EmbeddedErrorReader::Find(line, &type, &message);
  f.type = std::string(type);
  f.message = std::string(message);
  return f;
}

TEST(EmbeddedError, ReadsTheTypeAndMessageInsideOtherText) {
  struct Case {
    const char* line;
    const char* type;
    const char* message;
  } cases[] = {
      // behind a wrapper's level and in a sentence: the message runs to the line's end
      {"ERROR: EOFError: Ran out of input", "EOFError", "Ran out of input"},
      {"- Error: KeyError: 'model_state_dict'", "KeyError", "'model_state_dict'"},
      {"When I run it I get RuntimeError: Socket Timeout", "RuntimeError", "Socket Timeout"},
      // a dotted type
      {"fails with torch.cuda.OutOfMemoryError: CUDA out of memory.", "torch.cuda.OutOfMemoryError", "CUDA out of memory."},
      // quotes, backquotes and brackets opened before the type close the message
      {"I keep getting `IndexError: index out of range in self` when I run train.py", "IndexError", "index out of range in self"},
      {"{\"level\": \"ERROR\", \"message\": \"EOFError: Ran out of input\"}", "EOFError", "Ran out of input"},
      {"(ValueError: persistent_workers option needs num_workers > 0)", "ValueError", "persistent_workers option needs num_workers > 0"},
      // Markdown emphasis, and prose without a blank before the type (a full-width colon, CJK text)
      {"actually meant _IndexError: index out of range in self_. I will", "IndexError", "index out of range in self"},
      {"see **ValueError: too many values to unpack (expected 2)** here", "ValueError", "too many values to unpack (expected 2)"},
      {"\xe6\x8a\xa5\xe9\x94\x99\xef\xbc\x9aRuntimeError: Socket Timeout", "RuntimeError", "Socket Timeout"},
      // a repr: the text between its quotes
      {"Training failed with EOFError('Ran out of input')", "EOFError", "Ran out of input"},
      {"Unhandled error: RuntimeError(\"CUDA error: device-side assert triggered\",) (run.py:3)", "RuntimeError",
       "CUDA error: device-side assert triggered"},
      // the first exception line of the text is the outer one
      {"got RuntimeError: Caught ValueError in DataLoader worker process 0.", "RuntimeError",
       "Caught ValueError in DataLoader worker process 0."},
  };
  for (const Case& c : cases) {
    const Found f = Find(c.line);
    EXPECT_TRUE(f.found) << c.line;
    EXPECT_EQ(f.type, c.type) << c.line;
    EXPECT_EQ(f.message, c.message) << c.line;
  }
}

TEST(EmbeddedError, LeavesOtherTextAlone) {
  const char* lines[] = {
      // the type starts the line: the bare error line's, not this reader's
      "RuntimeError: Socket Timeout",
      "  ValueError: too many values to unpack (expected 2)",
      // the ending alone, or a metric's name
      "Error: mat1 and mat2 shapes cannot be multiplied (64x512 and 1024x10)",
      "epoch 3 Mean Squared Error: 0.0312",
      "Validation Exception: none",
      // a type without the colon and blank, or without a capital
      "a RuntimeError was raised at step 40",
      "see RuntimeError:foo",
      "UserWarning: Plan failed with a cudnnException: CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: cudnnFinalize",
      // glued to a word before it
      "myRuntimeError: x",
      "a.Error: x",
      // a warning category is no exception
      "train.py:3: UserWarning: the lr is high",
      // a raise statement is code
      "    raise ValueError(\"expected a 4-D input\")",
  };
  for (const char* line : lines) {
    EXPECT_FALSE(Find(line).found) << line;
  }
}

}  // namespace
}  // namespace triage
