// DebuggerPanelReader::Header (Note: [Debugger exception panels]) and ComposePrefixReader::Prefix (Note: [Compose
// service prefixes]): the headers and prefixes read, and lines that only look like one. The panel headers are the
// forms met in stored public text (a wild case, debugpy's pydevd_api.py, repository notes and code comments that
// kept a panel's header: English, Chinese and Japanese labels, the type copied alone, one retyped with no blank
// before the note and the message after it); the compose prefixes are docker-compose 1.x's and 2.x's and a
// container_name's, as in the pastes of weaviate/weaviate#1736, AbdBarho/stable-diffusion-webui-docker#389 and
// matatonic/openedai-images-flux#7; the other lines are made up to hold one edge each (a comment says which).
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "log/formats/compose_prefix.h"
#include "log/formats/debugger_panel.h"

namespace triage {
namespace {

TEST(DebuggerPanel, ReadsTheHeadersType) {
  struct Case {
    const char* line;
    const char* type;
    const char* rest;  // the text after the header's note ("" when none)
  } cases[] = {
      {"Exception has occurred: RuntimeError", "RuntimeError", ""},
      {"Exception has occurred: ImportError       (note: full exception trace is shown but execution is paused at: "
       "_run_module_as_main)",
       "ImportError", ""},
      {"ImportError       (note: full exception trace is shown but execution is paused at: _run_module_as_main)",
       "ImportError", ""},
      {"\xe5\x8f\x91\xe7\x94\x9f\xe5\xbc\x82\xe5\xb8\xb8: RuntimeError", "RuntimeError", ""},
      {"\xe4\xbe\x8b\xe5\xa4\x96\xe3\x81\x8c\xe7\x99\xba\xe7\x94\x9f\xe3\x81\x97\xe3\x81\xbe\xe3\x81\x97\xe3\x81\x9f: "
       "ModuleNotFoundError       (note: full exception trace is shown but execution is paused at: <module>)",
       "ModuleNotFoundError", ""},
      {"Exception has occurred: PermissionError (note: full exception trace is shown but execution is paused at: <module>)",
       "PermissionError", ""},
      {"KeyError(note: full exception trace is shown but execution is paused at: <module>)'running_avg'", "KeyError",
       "'running_avg'"},
      // made up: a dotted type, the full-width colon after the label
      {"Exception has occurred: torch.cuda.OutOfMemoryError", "torch.cuda.OutOfMemoryError", ""},
      {"\xe5\x8f\x91\xe7\x94\x9f\xe5\xbc\x82\xe5\xb8\xb8\xef\xbc\x9a KeyError", "KeyError", ""},
  };
  for (const Case& c : cases) {
    std::string_view type;
    size_t rest = 0;
    ASSERT_TRUE(DebuggerPanelReader::Header(c.line, &type, &rest)) << c.line;
    EXPECT_EQ(type, c.type) << c.line;
    std::string_view after = std::string_view(c.line).substr(rest);
    EXPECT_EQ(after, c.rest) << c.line;
  }
}

TEST(DebuggerPanel, LeavesOtherLinesAlone) {
  for (const char* line : {
           "RuntimeError: CUDA out of memory.",                // Python's own exception line
           "Exception has occurred: see the log above",        // the label, no type after it
           "Exception has occurred: RuntimeError in step 3",   // text after the type, no note
           "An exception has occurred: RuntimeError",          // not the panel's label at the start
           "loss (note: full exception trace is shown but execution is paused at: main)",  // no type before the note
       }) {
    std::string_view type;
    size_t rest = 0;
    EXPECT_FALSE(DebuggerPanelReader::Header(line, &type, &rest)) << line;
  }
}

TEST(ComposePrefix, ReadsServicePrefixes) {
  struct Case {
    const char* line;
    const char* service;
    size_t length;
  } cases[] = {
      {"qna-transformers_1  |     torch._C._cuda_init()", "qna-transformers_1", 22},
      {"webui-docker-auto-1  | Mounted .cache", "webui-docker-auto-1", 23},
      {"openedai-images-flux  | RuntimeError: No CUDA GPUs are available", "openedai-images-flux", 24},
      {"web_1 |", "web_1", 7},  // made up: a blank line of the service's output, its trailing blank trimmed
  };
  for (const Case& c : cases) {
    std::string_view service;
    size_t bar = 0;
    EXPECT_EQ(ComposePrefixReader::Prefix(c.line, &service, &bar), c.length) << c.line;
    EXPECT_EQ(service, c.service) << c.line;
  }
  for (const char* line : {
           "| loss | 0.5 |",             // a table row: no name before the bar
           "0 | model | ResNet | 11.2 M",  // Lightning's summary row: a number, no name
           "epoch 1 | loss 0.5",         // a blank inside what would be the name
           "web_1 |x",                   // no blank after the bar
           "train_loss|0.5",             // no blank before the bar
       }) {
    std::string_view service;
    size_t bar = 0;
    EXPECT_EQ(ComposePrefixReader::Prefix(line, &service, &bar), 0u) << line;
  }
}

// Note: [Compose runs]: the prefix is shown by a name Compose numbered itself from the first line on, by
// two lines in a row of one service otherwise, and never by capitalised names or a table's rows.
TEST(ComposePrefix, StripsOnceShown) {
  struct Line {
    const char* text;
    size_t stripped;  // the length Strip removes, 0 for none
  };
  const std::vector<std::vector<Line>> inputs = {
      // AbdBarho/stable-diffusion-webui-docker#64's console output (Compose 2.x's own numbered name):
      // removed from its first line, no traceback needed.
      {{"webui-docker-automatic1111-1  | + /docker/mount.sh", 32},
       {"webui-docker-automatic1111-1  | Mounted model.ckpt", 32}},
      // ggml-org/llama.cpp#1866's service, named in the file (container_name): shown by the second line.
      {{"llama-cpp    | ggml_cuda_init: failed to initialize CUDA: unknown error", 0},
       {"llama-cpp    | llm_load_tensors: offloading 80 repeating layers to GPU", 15},
       {"llama-cpp    | llm_load_tensors: offloaded 81/81 layers to GPU", 15}},
      // Made up: a line of other text between two lines of one service breaks the run.
      {{"llama-cpp    | one", 0}, {"something else", 0}, {"llama-cpp    | two", 0}},
      // Made up: a table's header and rows, and a logger's level before a bar, are no service.
      {{"Epoch  | Loss   | Acc", 0}, {"1      | 2.3026 | 0.10", 0}, {"2      | 2.3019 | 0.11", 0},
       {"INFO     | train:main:12 - start", 0}, {"INFO     | train:main:13 - epoch 1", 0}, {"epoch | loss", 0},
       {"1     | 0.5", 0}},
  };
  for (const std::vector<Line>& input : inputs) {
    ComposePrefixReader r;
    for (const Line& line : input) {
      std::string_view service;
      EXPECT_EQ(r.Strip(line.text, &service), line.stripped) << line.text;
    }
  }
}

}  // namespace
}  // namespace triage
