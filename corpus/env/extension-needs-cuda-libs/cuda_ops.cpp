// A CPython extension that, like any op package built for a CUDA build of torch, links
// against libc10_cuda.so.
#include <Python.h>

extern "C" int c10_cuda_stub_symbol();

static PyObject* device_count(PyObject*, PyObject*) { return PyLong_FromLong(c10_cuda_stub_symbol()); }
static PyMethodDef kMethods[] = {{"device_count", device_count, METH_NOARGS, ""}, {nullptr, nullptr, 0, nullptr}};
static PyModuleDef kModule = {PyModuleDef_HEAD_INIT, "cuda_ops", nullptr, -1, kMethods};
PyMODINIT_FUNC PyInit_cuda_ops() { return PyModule_Create(&kModule); }
