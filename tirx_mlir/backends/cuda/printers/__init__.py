"""The CUDA backend's source printers: ``-t cuda`` (cuda_cpp/) and ``-t ptx`` (ptx/)."""
