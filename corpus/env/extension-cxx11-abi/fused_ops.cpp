// A tiny CPython extension that uses c10's TORCH_CHECK, like any custom-op package.
#include <Python.h>
#include <string>

#include <c10/util/Exception.h>

static PyObject* check_positive(PyObject*, PyObject* args) {
  long n = 0;
  if (!PyArg_ParseTuple(args, "l", &n)) return nullptr;
  std::string what = "n must be positive";
  TORCH_CHECK(n > 0, what);
  Py_RETURN_NONE;
}

static PyMethodDef kMethods[] = {{"check_positive", check_positive, METH_VARARGS, ""},
                                 {nullptr, nullptr, 0, nullptr}};
static PyModuleDef kModule = {PyModuleDef_HEAD_INIT, "fused_ops", nullptr, -1, kMethods};
PyMODINIT_FUNC PyInit_fused_ops() { return PyModule_Create(&kModule); }
