"""The CUDA backend's ``-t`` printers: ``cuda`` (CUDA C++, cuda_cpp/) and ``ptx`` (PTX, ptx/)."""
